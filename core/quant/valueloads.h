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

} // namespace stb::quant
