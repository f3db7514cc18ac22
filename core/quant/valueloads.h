#pragma once

#include "core/format/dtype.h"

#include <bit>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <cstring>

namespace stb::quant {

// Unaligned little-endian loads from mapped bytes for the dequantizing loops (element `index`
// of an array of that type). Inline: they sit in the innermost loops.

inline std::uint32_t wordAt(const std::byte *data, std::uint64_t index)
{
    std::uint32_t v;
    std::memcpy(&v, data + 4 * index, 4);
    return v;
}

// GPTQ's packing along a dimension of 32-bit words: the code of element k is the `bits` bits at
// bit bits·k of the little-endian stream of the words of one column (word r of the column at
// index r·wordStride + column). For 2, 4 and 8 bits a code stays inside one word; AutoGPTQ's
// 3-bit packer fills 32 elements into three words, codes 10 and 21 straddling a boundary.
inline std::uint32_t streamCode(const std::byte *data, std::uint64_t wordStride, std::uint64_t column,
    std::uint64_t k, unsigned bits)
{
    const std::uint64_t bit = k * bits, word = bit / 32;
    const unsigned shift = static_cast<unsigned>(bit % 32);
    std::uint64_t v = wordAt(data, word * wordStride + column) >> shift;
    if (shift + bits > 32)
        v |= static_cast<std::uint64_t>(wordAt(data, (word + 1) * wordStride + column)) << (32 - shift);
    return static_cast<std::uint32_t>(v) & ((1u << bits) - 1);
}

inline std::int32_t int32At(const std::byte *data, std::uint64_t index)
{
    std::int32_t v;
    std::memcpy(&v, data + 4 * index, 4);
    return v;
}

inline float halfToFloat(std::uint16_t h)
{
    const std::uint32_t sign = (h & 0x8000u) << 16, exponent = (h >> 10) & 0x1f, mantissa = h & 0x3ff;
    if (exponent == 0x1f)
        return std::bit_cast<float>(sign | 0x7f800000u | (mantissa << 13));
    if (exponent == 0) {
        const float v = std::ldexp(static_cast<float>(mantissa), -24);
        return sign ? -v : v;
    }
    return std::bit_cast<float>(sign | ((exponent + 112) << 23) | (mantissa << 13));
}

// A scale of dtype F32, BF16 or F16 (the only ones recognition accepts); NaN otherwise.
inline float floatAt(DType dtype, const std::byte *data, std::uint64_t index)
{
    switch (dtype) {
    case DType::F32: {
        float v;
        std::memcpy(&v, data + 4 * index, 4);
        return v;
    }
    case DType::BF16: {
        std::uint16_t v;
        std::memcpy(&v, data + 2 * index, 2);
        return std::bit_cast<float>(static_cast<std::uint32_t>(v) << 16);
    }
    case DType::F16: {
        std::uint16_t v;
        std::memcpy(&v, data + 2 * index, 2);
        return halfToFloat(v);
    }
    default:
        return NAN;
    }
}

// n scales from index first on, `stride` apart, as floatAt() converts them (the dtype's switch
// taken once, not once per scale: a group's scales of every output are converted at once).
inline void convertScales(DType dtype, const std::byte *data, std::uint64_t first, std::uint64_t stride,
    std::uint64_t n, float *out)
{
    switch (dtype) {
    case DType::F16:
        for (std::uint64_t k = 0; k < n; ++k)
            out[k] = floatAt(DType::F16, data, first + k * stride);
        return;
    case DType::BF16:
        for (std::uint64_t k = 0; k < n; ++k)
            out[k] = floatAt(DType::BF16, data, first + k * stride);
        return;
    default:
        for (std::uint64_t k = 0; k < n; ++k)
            out[k] = floatAt(dtype, data, first + k * stride);
    }
}

} // namespace stb::quant
