// Dequantizer, part three: decoding in storage order for the statistics. A GPTQ or AWQ weight
// is packed along a dimension its logical rows cross, so logical order reads one word per
// `out` words; storage order reads every word once, in memory order, with the group's scales
// and zero-points converted beforehand, in runs the vectorizer handles (dequantruns.h).
#include "core/quant/dequantizer.h"

#include "core/io/busguard.h"
#include "core/quant/dequantruns.h"
#include "core/quant/valueloads.h"

#include <algorithm>

namespace stb {

using namespace quant;

namespace {

// AWQ: nibble slot s of a word holds output column 8·(o/8) + kAwqOrder[s] (AutoAWQ's order_map).
constexpr unsigned kAwqOrder[8] = { 0, 2, 4, 6, 1, 3, 5, 7 };

// affineRun for codes that straddle two words (3-bit GPTQ, inputs 10 and 21 of every 32): the
// low bits from `low[k]` above `shift`, the rest from `high[k]`. Two inputs in 32: no vector loop.
void straddleRun(const std::byte *low, const std::byte *high, unsigned shift, std::uint32_t mask,
    const float *zeros, const float *scales, std::size_t n, float *out)
{
    for (std::size_t k = 0; k < n; ++k) {
        const std::uint32_t code = ((wordAt(low, k) >> shift) | (wordAt(high, k) << (32 - shift))) & mask;
        out[k] = (static_cast<float>(code) - zeros[k]) * scales[k];
    }
}

struct StorageJob {
    const Dequantizer *self;
    std::uint64_t first, n;
    float *out;
    DequantScratch *scratch;
};

} // namespace

float Dequantizer::blockScale(std::uint64_t block) const
{
    const auto *scales = reinterpret_cast<const std::uint8_t *>(m_scale.data);
    if (m_scheme == QuantScheme::Mxfp4)
        return m_table[scales[block]];
    if (m_nestedAbsmax.data)
        return nestedScale(scales[block], block / m_nestedBlock);
    return scaleAt(block);
}

// A block's absmax under double quantization: its 8-bit code through the nested quant map, times
// its nested block's absmax, plus the offset.
float Dequantizer::nestedScale(unsigned code, std::uint64_t nested) const
{
    return m_table[code] * floatAt(DType::F32, m_nestedAbsmax.data, nested) + m_nestedOffset;
}

// GPTQ: the zero-point of an output in a group. The gptq (v1) checkpoint format stores z − 1 in
// each field, so a zero of 0 is stored as all ones: read back, as AutoGPTQ's, exllama's and
// GPTQModel's kernels read it, as (field + 1) mod 2^bits (docs/quantization.md cites them).
std::int32_t Dequantizer::gptqZero(std::uint64_t group, std::uint64_t output) const
{
    const std::uint32_t field = streamCode(m_zeros.data + 4 * group * m_zeroCols, 1, 0, output, m_bits);
    return static_cast<std::int32_t>(m_zeroPlusOne ? (field + 1) & ((1u << m_bits) - 1) : field);
}

// GPTQ: the scales and zero-points of group `group` for every output o, at [o]. AWQ: for every
// nibble slot s and word w of a row, at [s · words + w], the order storageGrouped reads codes in.
void Dequantizer::loadGroup(std::uint64_t group, DequantScratch &scratch) const
{
    const std::uint64_t outputs = m_rows;
    scratch.scales.resize(outputs);
    scratch.zeros.resize(outputs);
    if (m_scheme == QuantScheme::Gptq) {
        convertScales(m_scale.dtype, m_scale.data, group * outputs, 1, outputs, scratch.scales.data());
        for (std::uint64_t o = 0; o < outputs; ++o)
            scratch.zeros[o] = static_cast<float>(gptqZero(group, o));
    } else {
        const std::uint64_t words = outputs / 8;
        for (unsigned s = 0; s < 8; ++s) {
            convertScales(m_scale.dtype, m_scale.data, group * outputs + kAwqOrder[s], 8, words,
                scratch.scales.data() + s * words);
            for (std::uint64_t w = 0; w < words; ++w)
                scratch.zeros[s * words + w]
                    = static_cast<float>((wordAt(m_zeros.data, group * m_zeroCols + w) >> (4 * s)) & 15u);
        }
    }
    scratch.group = group;
}

// Storage position k is input i = k / out, then (GPTQ) output k % out, or (AWQ) nibble slot and
// word of row i: each run is one shift over consecutive words.
void Dequantizer::storageGrouped(
    std::uint64_t first, std::uint64_t n, float *out, DequantScratch &scratch) const
{
    const std::uint64_t outputs = m_rows;
    const bool gptq = m_scheme == QuantScheme::Gptq;
    const std::uint32_t mask = (1u << m_bits) - 1;
    const std::uint64_t words = outputs / 8; // AWQ words per row
    while (n) {
        const std::uint64_t i = first / outputs, r = first % outputs;
        const std::uint64_t group
            = m_groupIndex.data ? static_cast<std::uint64_t>(int32At(m_groupIndex.data, i)) : i / m_groupSize;
        if (group != scratch.group)
            loadGroup(group, scratch);
        std::uint64_t take, word, at;
        unsigned shift;
        if (gptq) {
            take = std::min(n, outputs - r);
            const std::uint64_t bit = m_bits * i; // 3 bits: the code of input i may straddle two words
            word = (bit / 32) * outputs + r;
            shift = static_cast<unsigned>(bit % 32);
            at = r;
            if (shift + m_bits > 32) {
                straddleRun(m_codes.data + 4 * word, m_codes.data + 4 * (word + outputs), shift, mask,
                    scratch.zeros.data() + at, scratch.scales.data() + at, take, out);
                out += take;
                first += take;
                n -= take;
                continue;
            }
        } else {
            const std::uint64_t slot = r / words, w = r % words;
            take = std::min(n, words - w);
            word = i * words + w;
            shift = 4 * static_cast<unsigned>(slot);
            at = r;
        }
        affineRun(m_codes.data + 4 * word, shift, mask, scratch.zeros.data() + at, scratch.scales.data() + at,
            take, out);
        out += take;
        first += take;
        n -= take;
    }
}

namespace {
constexpr float kNibbles[16] = { 0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15 };
} // namespace

// Pack-quantized 4-bit without g_idx, whole groups and unpadded rows: the codes are blocks of
// a group each (bytes [b · group/2, (b + 1) · group/2), low nibble first), block b has scale b
// (scales [out, groups]), and decodeRow's (code − 8 − (zero − 8)) · scale is (code − zero) · scale.
bool Dequantizer::packedBlocks() const
{
    const std::uint64_t group = m_groupSize ? m_groupSize : m_cols;
    return m_scheme == QuantScheme::PackQuantized && m_bits == 4 && !m_groupIndex.data
        && m_cols == 8 * m_scaleCols && group % 2 == 0 && m_cols % group == 0 && m_groups == m_cols / group;
}

// Block b's zero (the code decoding to 0) for nibbleBlocksRun: bitsandbytes and MXFP4 have
// none (0: their table's values are already centred), pack-quantized its group's zero point.
float Dequantizer::blockZero(std::uint64_t b) const
{
    if (m_scheme != QuantScheme::PackQuantized)
        return 0.0f;
    if (!m_zeros.data)
        return 8.0f;
    const std::uint64_t row = b / m_groups, g = b % m_groups;
    return static_cast<float>((wordAt(m_zeros.data, (row / 8) * m_groups + g) >> (4 * (row % 8))) & 15u);
}

// Whole blocks: their low nibbles, then their high ones; the last, partial block (when the
// block size does not divide the elements) in logical order.
void Dequantizer::storageFlat(std::uint64_t first, std::uint64_t n, float *out, DequantScratch &scratch) const
{
    const bool packed = m_scheme == QuantScheme::PackQuantized;
    const std::uint64_t block = m_scheme == QuantScheme::Mxfp4 ? 32
        : packed                                               ? m_cols / m_groups
                                                               : m_groupSize;
    const std::uint64_t half = block / 2;
    const std::uint64_t wholeEnd = m_elements / block * block, end = first + n;
    const auto *codes = reinterpret_cast<const std::uint8_t *>(m_codes.data);
    const float *table = packed ? kNibbles : m_fourBit.data();
    const auto one = [&](std::uint64_t p) {
        const std::uint64_t b = p / block, j = p % block;
        const std::uint8_t byte = codes[b * half + j % half];
        return (table[j < half ? (byte & 15) : (byte >> 4)] - blockZero(b)) * blockScale(b);
    };
    std::uint64_t p = first;
    for (; p < std::min(end, wholeEnd) && p % block; ++p)
        *out++ = one(p);
    while (p + block <= std::min(end, wholeEnd)) {
        const std::uint64_t b0 = p / block,
                            blocks = std::min(kBlocksPerRun, (std::min(end, wholeEnd) - p) / block);
        scratch.scales.resize(blocks);
        if (m_scheme == QuantScheme::Mxfp4) { // blockScale's first case, without a call per block
            const auto *e8m0 = reinterpret_cast<const std::uint8_t *>(m_scale.data) + b0;
            for (std::uint64_t b = 0; b < blocks; ++b)
                scratch.scales[b] = m_table[e8m0[b]];
        } else {
            for (std::uint64_t b = 0; b < blocks; ++b)
                scratch.scales[b] = blockScale(b0 + b);
        }
        if (packed) {
            scratch.zeros.resize(blocks);
            for (std::uint64_t b = 0; b < blocks; ++b)
                scratch.zeros[b] = blockZero(b0 + b);
        }
        nibbleBlocksRun(codes + b0 * half, table, packed ? scratch.zeros.data() : nullptr,
            scratch.scales.data(), blocks, half, out);
        out += blocks * block;
        p += blocks * block;
    }
    for (; p < std::min(end, wholeEnd); ++p)
        *out++ = one(p);
    if (p < end)
        decodeFlat(p, end - p, out);
}

void Dequantizer::decodeStorage(
    std::uint64_t first, std::uint64_t n, float *out, DequantScratch &scratch) const
{
    if (scratch.owner != this) {
        scratch.owner = this;
        scratch.group = UINT64_MAX;
    }
    switch (m_scheme) {
    case QuantScheme::Gptq:
    case QuantScheme::Awq:
        storageGrouped(first, n, out, scratch);
        return;
    case QuantScheme::PackQuantized:
        if (!packedBlocks()) {
            decode(first, n, out);
            return;
        }
        [[fallthrough]];
    case QuantScheme::Mxfp4:
    case QuantScheme::BnbNf4:
    case QuantScheme::BnbFp4:
        scratch.group = UINT64_MAX; // the scales hold blocks' scales, not a group's
        storageFlat(first, n, out, scratch);
        return;
    default:
        decode(first, n, out); // storage order is logical order
        return;
    }
}

bool Dequantizer::decodeStorageGuarded(
    std::uint64_t first, std::uint64_t n, float *out, DequantScratch &scratch) const
{
    StorageJob job { this, first, n, out, &scratch };
    return runGuarded(
        [](void *c) {
            auto &j = *static_cast<StorageJob *>(c);
            j.self->decodeStorage(j.first, j.n, j.out, *j.scratch);
        },
        &job);
}

} // namespace stb
