// Dequantizer, part five: code counts of the grouped layouts (GPTQ, AWQ, pack-quantized), whose
// scales and zero-points change along a row every group; the rest and the choice of layout are
// in dequantizercounts.cpp.
#include "core/quant/dequantizer.h"

#include "core/quant/dequantruns.h"
#include "core/quant/valueloads.h"

#include <algorithm>

namespace stb {

using namespace quant;

// GPTQ and AWQ in storage order (input-major): a table per output for the group's inputs, at
// the storage position r within an input row (the order loadGroup lays scales out in).
void Dequantizer::countGrouped(
    std::uint64_t first, std::uint64_t n, DequantScratch &scratch, CodeCountSink &sink) const
{
    const std::uint64_t outputs = m_rows, words = outputs / 8; // AWQ words per row
    const unsigned bits = m_bits, codesPer = 1u << bits, pack = 32 / bits;
    const std::uint32_t mask = codesPer - 1;
    const bool gptq = m_scheme == QuantScheme::Gptq;
    std::uint32_t *tables = scratch.counts.data();
    float *values = scratch.values.data();
    std::uint64_t group = UINT64_MAX, lo = UINT64_MAX, hi = 0; // positions touched: [lo, hi)
    const auto flush = [&] {
        if (scratch.group != group)
            loadGroup(group, scratch);
        quant::affineTablesRun(
            scratch.zeros.data() + lo, scratch.scales.data() + lo, hi - lo, codesPer, values + lo * codesPer);
        report(scratch, sink, values + lo * codesPer, tables + lo * codesPer, (hi - lo) * codesPer);
        lo = UINT64_MAX;
        hi = 0;
    };
    const bool replay = scratch.tape.replay != nullptr; // the tables come from the tape
    // Inputs [i0, i1) of positions [r0, r1) each; whole rows a block of outputs at a time, so
    // that the block's tables stay in the L1 cache while all its inputs are counted.
    const auto count = [&](std::uint64_t i0, std::uint64_t i1, std::uint64_t r0, std::uint64_t r1) {
        lo = std::min(lo, r0);
        hi = std::max(hi, r1);
        if (replay)
            return;
        if (bits == 4 && r0 == 0 && r1 == outputs) { // whole rows of 4-bit codes: the vector loops
            if (gptq && i0 % 8 == 0 && i1 % 8 == 0)
                return quant::columnNibbleCounts(
                    m_codes.data + 4 * (i0 / 8) * outputs, 4 * outputs, (i1 - i0) / 8, outputs, tables);
            if (!gptq)
                return quant::slotNibbleCounts(m_codes.data + 4 * i0 * words, 4 * words, i1 - i0, words, words, tables);
        }
        constexpr std::uint64_t kBlock = 64;
        for (std::uint64_t b0 = r0; b0 < r1; b0 += kBlock) {
            const std::uint64_t b1 = std::min(r1, b0 + kBlock);
            for (std::uint64_t i = i0; i < i1; ++i) {
                if (gptq) {
                    const std::byte *row = m_codes.data + 4 * (i / pack) * outputs;
                    const unsigned shift = bits * static_cast<unsigned>(i % pack);
                    for (std::uint64_t r = b0; r < b1; ++r)
                        ++tables[r * codesPer + ((wordAt(row, r) >> shift) & mask)];
                } else {
                    // Position r = slot · words + w: nibble `slot` of word w.
                    const std::byte *row = m_codes.data + 4 * i * words;
                    for (std::uint64_t r = b0; r < b1;) {
                        const std::uint64_t slot = r / words, w0 = r % words;
                        const std::uint64_t take = std::min(b1 - r, words - w0);
                        const unsigned shift = 4 * static_cast<unsigned>(slot);
                        std::uint32_t *t = tables + r * 16;
                        for (std::uint64_t k = 0; k < take; ++k)
                            ++t[k * 16 + ((wordAt(row, w0 + k) >> shift) & 15u)];
                        r += take;
                    }
                }
            }
        }
    };
    const std::uint64_t end = first + n;
    for (std::uint64_t p = first; p < end;) {
        const std::uint64_t i = p / outputs, r0 = p % outputs;
        if (i / m_groupSize != group) {
            if (hi > lo)
                flush();
            group = i / m_groupSize;
        }
        if (r0 == 0 && end - p >= outputs) { // whole rows, up to the group's end
            const std::uint64_t i1 = std::min((group + 1) * m_groupSize, i + (end - p) / outputs);
            count(i, i1, 0, outputs);
            p += (i1 - i) * outputs;
        } else {
            const std::uint64_t r1 = std::min(outputs, r0 + (end - p));
            count(i, i + 1, r0, r1);
            p += r1 - r0;
        }
    }
    if (hi > lo)
        flush();
}

// compressed-tensors pack-quantized (storage order is logical order): a table per group of a
// row, flushed at the row's end.
void Dequantizer::countPacked(
    std::uint64_t first, std::uint64_t n, DequantScratch &scratch, CodeCountSink &sink) const
{
    const unsigned bits = m_bits, codesPer = 1u << bits, pack = 32 / bits;
    const std::uint32_t mask = codesPer - 1;
    const float half = static_cast<float>(1u << (bits - 1));
    const std::uint64_t groupSize = m_groupSize ? m_groupSize : m_cols;
    std::uint32_t *tables = scratch.counts.data();
    float *values = scratch.values.data();
    std::uint64_t row = UINT64_MAX, lo = UINT64_MAX, hi = 0; // groups of `row` counted: [lo, hi)
    const auto flush = [&] {
        const unsigned zeroShift = bits * static_cast<unsigned>(row % pack);
        for (std::uint64_t g = lo; g < hi; ++g) {
            const float s = scaleAt(row * m_groups + g);
            const float z = m_zeros.data
                ? static_cast<float>((wordAt(m_zeros.data, (row / pack) * m_groups + g) >> zeroShift) & mask) - half
                : 0.0f;
            for (unsigned c = 0; c < codesPer; ++c) // as decodeRow
                values[g * codesPer + c] = (static_cast<float>(c) - half - z) * s;
        }
        report(scratch, sink, values + lo * codesPer, tables + lo * codesPer, (hi - lo) * codesPer);
        lo = UINT64_MAX;
        hi = 0;
    };
    const bool replay = scratch.tape.replay != nullptr; // the tables come from the tape
    const std::uint64_t end = first + n;
    for (std::uint64_t p = first; p < end;) {
        const std::uint64_t r = p / m_cols, i0 = p % m_cols;
        if (r != row) {
            if (hi > lo)
                flush();
            row = r;
        }
        const std::uint64_t g = std::min(i0 / groupSize, m_groups - 1);
        const std::byte *words = m_codes.data + 4 * row * m_scaleCols;
        if (replay) { // the row's groups up to the range's end, not counted
            const std::uint64_t i1 = std::min(m_cols, i0 + (end - p));
            lo = std::min(lo, g);
            hi = std::max(hi, std::min(m_groups - 1, (i1 - 1) / groupSize) + 1);
            p += i1 - i0;
            continue;
        }
        if (bits == 4 && i0 % groupSize == 0 && groupSize % 64 == 0) { // whole groups: the vector loop
            const std::uint64_t limit = std::min(m_cols, i0 + (end - p));
            const std::uint64_t whole = std::min((limit - i0) / groupSize, m_groups - 1 - g);
            if (whole) {
                quant::blockNibbleCounts(reinterpret_cast<const std::uint8_t *>(words) + i0 / 2, groupSize / 2, whole,
                    tables + g * codesPer);
                lo = std::min(lo, g);
                hi = std::max(hi, g + whole);
                p += whole * groupSize;
                continue;
            }
        }
        const std::uint64_t groupEnd = g == m_groups - 1 ? m_cols : std::min(m_cols, (g + 1) * groupSize);
        const std::uint64_t i1 = std::min(groupEnd, i0 + (end - p));
        std::uint32_t *t = tables + g * codesPer;
        std::uint64_t i = i0;
        for (; i < i1 && i % pack; ++i)
            ++t[(wordAt(words, i / pack) >> (bits * static_cast<unsigned>(i % pack))) & mask];
        for (; i + pack <= i1; i += pack) {
            const std::uint32_t word = wordAt(words, i / pack);
            for (unsigned j = 0; j < pack; ++j)
                ++t[(word >> (bits * j)) & mask];
        }
        for (; i < i1; ++i)
            ++t[(wordAt(words, i / pack) >> (bits * static_cast<unsigned>(i % pack))) & mask];
        lo = std::min(lo, g);
        hi = std::max(hi, g + 1);
        p += i1 - i0;
    }
    if (hi > lo)
        flush();
}

} // namespace stb
