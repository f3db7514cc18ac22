// Dequantizer, part two: the decoding loops, one per layout (docs/quantization.md). Each
// fetches a scale or zero-point once per group or block, not per element.
#include "core/quant/dequantizer.h"

#include "core/quant/valueloads.h"

#include <algorithm>

namespace stb {

using namespace quant;

namespace {

// AWQ packs output column order[s] into nibble s, order = [0, 2, 4, 6, 1, 3, 5, 7]; this is the
// inverse: the nibble holding column c of an 8-column group.
constexpr unsigned kAwqSlot[8] = { 0, 4, 1, 5, 2, 6, 3, 7 };

inline const std::uint8_t *bytesOf(const std::byte *data)
{
    return reinterpret_cast<const std::uint8_t *>(data);
}

} // namespace

void Dequantizer::decodeRow(std::uint64_t row, std::uint64_t c0, std::uint64_t c1, float *out) const
{
    switch (m_scheme) {
    case QuantScheme::Fp8Block: {
        const std::uint8_t *codes = bytesOf(m_codes.data) + row * m_cols;
        const std::uint64_t scaleRow = (row / m_block[0]) * m_scaleCols;
        for (std::uint64_t c = c0; c < c1;) {
            const std::uint64_t blockCol = c / m_block[1];
            const std::uint64_t end = std::min(c1, (blockCol + 1) * m_block[1]);
            const float s = scaleAt(scaleRow + blockCol);
            for (; c < end; ++c)
                *out++ = m_table[codes[c]] * s;
        }
        return;
    }
    case QuantScheme::Fp8Tensor:
    case QuantScheme::Fp8Channel: {
        const std::uint8_t *codes = bytesOf(m_codes.data) + row * m_cols;
        const float s = scaleAt(m_scheme == QuantScheme::Fp8Tensor ? 0 : row);
        for (std::uint64_t c = c0; c < c1; ++c)
            *out++ = m_table[codes[c]] * s;
        return;
    }
    case QuantScheme::BnbInt8: {
        const auto *codes = reinterpret_cast<const std::int8_t *>(m_codes.data) + row * m_cols;
        const float s = scaleAt(row) / 127.0f;
        for (std::uint64_t c = c0; c < c1; ++c)
            *out++ = static_cast<float>(codes[c]) * s;
        return;
    }
    case QuantScheme::Gptq: {
        // qweight [in·bits/32, out]: input i of output `row` in word (i / pack, row).
        const unsigned bits = m_bits, pack = 32 / bits;
        const std::uint32_t mask = (1u << bits) - 1;
        const std::uint64_t out_ = m_rows, zeroWord = row / pack;
        const unsigned zeroShift = bits * static_cast<unsigned>(row % pack);
        std::uint64_t group = UINT64_MAX;
        float s = 0, z = 0;
        for (std::uint64_t i = c0; i < c1; ++i) {
            const std::uint64_t g = m_groupIndex.data
                ? static_cast<std::uint64_t>(int32At(m_groupIndex.data, i))
                : i / m_groupSize;
            if (g != group) {
                group = g;
                s = scaleAt(g * out_ + row);
                z = static_cast<float>(((wordAt(m_zeros.data, g * m_zeroCols + zeroWord) >> zeroShift) & mask)
                    + (m_zeroPlusOne ? 1 : 0));
            }
            const std::uint32_t q
                = (wordAt(m_codes.data, (i / pack) * out_ + row) >> (bits * (i % pack))) & mask;
            *out++ = s * (static_cast<float>(q) - z);
        }
        return;
    }
    case QuantScheme::Awq: {
        // qweight [in, out/8]: output `row` in word (i, row / 8), nibble kAwqSlot[row % 8].
        const std::uint64_t wordsPerRow = m_rows / 8, word = row / 8;
        const unsigned shift = 4 * kAwqSlot[row % 8];
        std::uint64_t group = UINT64_MAX;
        float s = 0, z = 0;
        for (std::uint64_t i = c0; i < c1; ++i) {
            const std::uint64_t g = i / m_groupSize;
            if (g != group) {
                group = g;
                s = scaleAt(g * m_rows + row);
                z = static_cast<float>((wordAt(m_zeros.data, g * m_zeroCols + word) >> shift) & 15u);
            }
            const std::uint32_t q = (wordAt(m_codes.data, i * wordsPerRow + word) >> shift) & 15u;
            *out++ = (static_cast<float>(q) - z) * s;
        }
        return;
    }
    case QuantScheme::PackQuantized: {
        // weight_packed [out, ceil(in/pack)], unsigned with an offset of 2^(bits-1).
        const unsigned bits = m_bits, pack = 32 / bits;
        const std::uint32_t mask = bits == 32 ? ~0u : (1u << bits) - 1;
        const float half = static_cast<float>(1u << (bits - 1));
        const std::uint64_t groupSize = m_groupSize ? m_groupSize : m_cols;
        const unsigned zeroShift = bits * static_cast<unsigned>(row % pack);
        std::uint64_t group = UINT64_MAX;
        float s = 0, z = 0;
        for (std::uint64_t i = c0; i < c1; ++i) {
            const std::uint64_t g = m_groupIndex.data
                ? static_cast<std::uint64_t>(int32At(m_groupIndex.data, i))
                : std::min(i / groupSize, m_groups - 1);
            if (g != group) {
                group = g;
                s = scaleAt(row * m_groups + g);
                z = m_zeros.data
                    ? static_cast<float>(
                          (wordAt(m_zeros.data, (row / pack) * m_groups + g) >> zeroShift) & mask)
                        - half
                    : 0.0f;
            }
            const std::uint32_t q
                = (wordAt(m_codes.data, row * m_scaleCols + i / pack) >> (bits * (i % pack))) & mask;
            *out++ = (static_cast<float>(q) - half - z) * s;
        }
        return;
    }
    default:
        return;
    }
}

void Dequantizer::decodeFlat(std::uint64_t first, std::uint64_t n, float *out) const
{
    const std::uint8_t *codes = bytesOf(m_codes.data);
    const std::uint64_t end = first + n;
    if (m_scheme == QuantScheme::Mxfp4) {
        // 32 values per scale, two per byte, low nibble first.
        const std::uint8_t *scales = bytesOf(m_scale.data);
        for (std::uint64_t e = first; e < end;) {
            const std::uint64_t block = e / 32, blockEnd = std::min(end, (block + 1) * 32);
            const float s = m_table[scales[block]];
            for (; e < blockEnd; ++e) {
                const std::uint8_t b = codes[e / 2];
                *out++ = m_fourBit[(e & 1) ? (b >> 4) : (b & 15)] * s;
            }
        }
        return;
    }
    // bitsandbytes 4-bit: blocks of m_groupSize values, two per byte, high nibble first.
    for (std::uint64_t e = first; e < end;) {
        const std::uint64_t block = e / m_groupSize, blockEnd = std::min(end, (block + 1) * m_groupSize);
        float a;
        if (m_nestedAbsmax.data)
            a = m_table[bytesOf(m_scale.data)[block]]
                    * floatAt(DType::F32, m_nestedAbsmax.data, block / m_nestedBlock)
                + m_nestedOffset;
        else
            a = scaleAt(block);
        for (; e < blockEnd; ++e) {
            const std::uint8_t b = codes[e / 2];
            *out++ = m_fourBit[(e & 1) ? (b & 15) : (b >> 4)] * a;
        }
    }
}

} // namespace stb
