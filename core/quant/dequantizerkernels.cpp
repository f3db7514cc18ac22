// Dequantizer, part two: the decoding loops, one per layout (docs/quantization.md). Each
// fetches a scale or zero-point once per group or block, not per element.
#include "core/quant/dequantizer.h"

#include "core/quant/dequantruns.h"
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

void Dequantizer::fp8Run(const std::uint8_t *codes, float scale, std::uint64_t n, float *out) const
{
    if (m_codes.dtype == DType::F8_E4M3)
        e4m3Run(codes, scale, n, out);
    else
        tableRun(codes, m_table.data(), scale, n, out);
}

void Dequantizer::decodeRow(std::uint64_t row, std::uint64_t c0, std::uint64_t c1, float *out) const
{
    switch (m_scheme) {
    case QuantScheme::Fp8Block: {
        const std::uint8_t *codes = bytesOf(m_codes.data) + row * m_cols;
        const std::uint64_t scaleRow = (row / m_block[0]) * m_scaleCols, width = m_block[1];
        for (std::uint64_t c = c0; c < c1;) {
            const std::uint64_t blockCol = c / width;
            const std::uint64_t whole = c % width ? 0 : std::min<std::uint64_t>((c1 - c) / width, 64);
            if (whole > 1 && m_codes.dtype == DType::F8_E4M3) {
                // Whole E4M3 blocks, up to 64 in one call: per block, the call, the division and
                // the checks cost as much as decoding 128 codes.
                std::array<float, 64> scales;
                for (std::uint64_t b = 0; b < whole; ++b)
                    scales[b] = scaleAt(scaleRow + blockCol + b);
                e4m3BlocksRun(codes + c, scales.data(), width, whole, out);
                out += whole * width;
                c += whole * width;
                continue;
            }
            const std::uint64_t end = std::min(c1, (blockCol + 1) * width);
            fp8Run(codes + c, scaleAt(scaleRow + blockCol), end - c, out);
            out += end - c;
            c = end;
        }
        return;
    }
    case QuantScheme::Fp8Tensor:
    case QuantScheme::Fp8Channel: {
        const std::uint8_t *codes = bytesOf(m_codes.data) + row * m_cols;
        fp8Run(codes + c0, scaleAt(m_scheme == QuantScheme::Fp8Tensor ? 0 : row), c1 - c0, out);
        return;
    }
    case QuantScheme::BnbInt8: {
        const auto *codes = reinterpret_cast<const std::int8_t *>(m_codes.data) + row * m_cols;
        int8Run(codes + c0, scaleAt(row) / 127.0f, c1 - c0, out);
        return;
    }
    case QuantScheme::Gptq: {
        // qweight [in·bits/32, out]: input i of output `row` in word (i / pack, row). One word
        // and one division per `pack` values; scale and zero reloaded when the group changes.
        // 3 bits do not divide 32: each code is read from the column's bit stream (streamCode).
        const unsigned bits = m_bits, pack = 32 / bits;
        const bool straddles = 32 % bits != 0;
        const std::uint32_t mask = (1u << bits) - 1;
        const std::uint64_t outputs = m_rows;
        std::uint64_t group = UINT64_MAX, groupEnd = 0;
        float s = 0, z = 0;
        const auto load = [&](std::uint64_t g) {
            group = g;
            s = scaleAt(g * outputs + row);
            z = static_cast<float>(gptqZero(g, row));
        };
        const auto groupAt = [&](std::uint64_t i) {
            if (m_groupIndex.data) {
                if (const auto g = static_cast<std::uint64_t>(int32At(m_groupIndex.data, i)); g != group)
                    load(g);
            } else if (i >= groupEnd) {
                load(i / m_groupSize);
                groupEnd = (group + 1) * m_groupSize;
            }
        };
        if (straddles) {
            for (std::uint64_t i = c0; i < c1; ++i) {
                groupAt(i);
                *out++ = s * (static_cast<float>(streamCode(m_codes.data, outputs, row, i, bits)) - z);
            }
            return;
        }
        for (std::uint64_t i = c0; i < c1;) {
            const std::uint64_t w = i / pack, end = std::min(c1, (w + 1) * pack);
            std::uint32_t word
                = wordAt(m_codes.data, w * outputs + row) >> (bits * static_cast<unsigned>(i - w * pack));
            for (; i < end; ++i, word >>= bits) {
                groupAt(i);
                *out++ = s * (static_cast<float>(word & mask) - z);
            }
        }
        return;
    }
    case QuantScheme::Awq: {
        // qweight [in, out/8]: output `row` in word (i, row / 8), nibble kAwqSlot[row % 8].
        const std::uint64_t wordsPerRow = m_rows / 8, word = row / 8;
        const unsigned shift = 4 * kAwqSlot[row % 8];
        std::uint64_t groupEnd = 0;
        float s = 0, z = 0;
        for (std::uint64_t i = c0; i < c1; ++i) {
            if (i >= groupEnd) {
                const std::uint64_t g = i / m_groupSize;
                groupEnd = (g + 1) * m_groupSize;
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
        const std::uint32_t mask = (1u << bits) - 1;
        const float half = static_cast<float>(1u << (bits - 1));
        const std::uint64_t groupSize = m_groupSize ? m_groupSize : m_cols;
        const unsigned zeroShift = bits * static_cast<unsigned>(row % pack);
        std::uint64_t group = UINT64_MAX, groupEnd = 0;
        float s = 0, z = 0;
        const auto load = [&](std::uint64_t g) {
            group = g;
            s = scaleAt(row * m_groups + g);
            z = m_zeros.data
                ? static_cast<float>((wordAt(m_zeros.data, (row / pack) * m_groups + g) >> zeroShift) & mask)
                    - half
                : 0.0f;
        };
        if (bits == 8 && !m_groupIndex.data) { // a code per byte: a vector loop per group
            const auto *codes = bytesOf(m_codes.data) + 4 * row * m_scaleCols;
            for (std::uint64_t i = c0; i < c1;) {
                load(std::min(i / groupSize, m_groups - 1));
                const std::uint64_t end = group == m_groups - 1 ? c1 : std::min(c1, (group + 1) * groupSize);
                // (q - half) - z of small integers is exact, and so is q - (half + z).
                byteAffineRun(codes + i, half + z, s, end - i, out);
                out += end - i;
                i = end;
            }
            return;
        }
        for (std::uint64_t i = c0; i < c1;) {
            const std::uint64_t w = i / pack, end = std::min(c1, (w + 1) * pack);
            std::uint32_t word
                = wordAt(m_codes.data, row * m_scaleCols + w) >> (bits * static_cast<unsigned>(i - w * pack));
            for (; i < end; ++i, word >>= bits) {
                if (m_groupIndex.data) {
                    if (const auto g = static_cast<std::uint64_t>(int32At(m_groupIndex.data, i)); g != group)
                        load(g);
                } else if (i >= groupEnd) {
                    load(std::min(i / groupSize, m_groups - 1));
                    groupEnd = group == m_groups - 1 ? UINT64_MAX : (group + 1) * groupSize;
                }
                *out++ = (static_cast<float>(word & mask) - half - z) * s;
            }
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
    // Both 4-bit layouts: blocks of `block` values sharing a scale, two values per byte; MXFP4
    // puts the first of a pair in the low nibble, bitsandbytes in the high one.
    const bool lowFirst = m_scheme == QuantScheme::Mxfp4;
    const std::uint64_t block = lowFirst ? 32 : m_groupSize;
    for (std::uint64_t e = first; e < end;) {
        const std::uint64_t b = e / block, blockEnd = std::min(end, (b + 1) * block);
        const float s = blockScale(b);
        const auto value = [&](std::uint64_t k) {
            const std::uint8_t byte = codes[k / 2];
            const bool low = ((k & 1) != 0) != lowFirst;
            return m_fourBit[low ? (byte & 15) : (byte >> 4)] * s;
        };
        if (e & 1)
            *out++ = value(e++);
        for (; e + 1 < blockEnd; e += 2) {
            const std::uint8_t byte = codes[e / 2];
            const float first = m_fourBit[lowFirst ? (byte & 15) : (byte >> 4)];
            const float second = m_fourBit[lowFirst ? (byte >> 4) : (byte & 15)];
            *out++ = first * s;
            *out++ = second * s;
        }
        if (e < blockEnd)
            *out++ = value(e++);
    }
}

} // namespace stb
