// Dequantizer, part four: code counts for the statistics. A dequantized value is a function of
// its code (16 or 256 of them) and the scale (and zero-point) of its group, so instead of a
// float per element the codes of the elements sharing a scale are counted in a table, and each
// code's value is computed once, the same way the decoding loops compute it (bit for bit), and
// reported with its count. Scales that are themselves 8-bit codes (MXFP4's E8M0, bitsandbytes'
// nested absmax) are counted jointly with the codes, so runs span many blocks.
#include "core/quant/dequantizer.h"

#include "core/quant/dequantruns.h"
#include "core/quant/valueloads.h"
#include "core/stats/kernels/avx512.h"
#include "core/stats/kernels/valuescan.h"

#include <algorithm>
#include <bit>
#include <cstring>

namespace stb {

using namespace quant;

namespace {

// A thread's count tables at most (4 MiB): beyond that the statistics decode values instead.
constexpr std::uint64_t kMaxCountEntries = std::uint64_t(1) << 20;

constexpr unsigned kJointSets = 4; // countFlat's joint table sets
constexpr std::uint32_t kJointTable = 256 * 16; // a set: 16 codes for each of 256 scale codes

bool anyCounted(const std::uint32_t *counts, unsigned codes)
{
    std::uint32_t any = 0;
    for (unsigned c = 0; c < codes; ++c)
        any |= counts[c];
    return any != 0;
}

bool sameBits(float a, float b)
{
    return std::bit_cast<std::uint32_t>(a) == std::bit_cast<std::uint32_t>(b);
}

} // namespace

bool Dequantizer::countsCodes() const
{
    switch (m_scheme) {
    case QuantScheme::Fp8Tensor:
    case QuantScheme::Fp8Channel:
    case QuantScheme::BnbInt8:
    case QuantScheme::Mxfp4:
        return true;
    case QuantScheme::Fp8Block:
        return m_block[0] && m_block[1] && (m_cols + m_block[1] - 1) / m_block[1] <= kMaxCountEntries / 256;
    case QuantScheme::BnbNf4:
    case QuantScheme::BnbFp4:
        return m_groupSize && (!m_nestedAbsmax.data || m_nestedBlock);
    case QuantScheme::Gptq:
    case QuantScheme::Awq:
        return !m_groupIndex.data && m_bits <= 8 && 32 % m_bits == 0 && m_groupSize
            && m_rows <= (kMaxCountEntries >> m_bits);
    case QuantScheme::PackQuantized:
        return !m_groupIndex.data && m_bits <= 8 && 32 % m_bits == 0 && m_groups
            && m_groups <= (kMaxCountEntries >> m_bits);
    }
    return false;
}

std::uint64_t Dequantizer::scaleRun() const
{
    switch (m_scheme) {
    case QuantScheme::Fp8Tensor:
        return m_elements;
    case QuantScheme::Fp8Channel:
    case QuantScheme::BnbInt8:
        return m_cols;
    case QuantScheme::Fp8Block:
        return m_block[0] * m_block[1];
    case QuantScheme::Mxfp4:
        return UINT64_MAX; // counted with their scale codes
    case QuantScheme::BnbNf4:
    case QuantScheme::BnbFp4:
        return m_nestedAbsmax.data ? UINT64_MAX : m_groupSize;
    case QuantScheme::Gptq:
    case QuantScheme::Awq:
        return m_groupSize;
    case QuantScheme::PackQuantized:
        return m_groupSize ? m_groupSize : m_cols;
    }
    return 0;
}

unsigned Dequantizer::codeBits() const
{
    const bool eightBit = m_scheme == QuantScheme::Fp8Tensor || m_scheme == QuantScheme::Fp8Channel
        || m_scheme == QuantScheme::Fp8Block || m_scheme == QuantScheme::BnbInt8;
    return eightBit ? 8 : m_bits;
}

bool Dequantizer::countingPays() const
{
    return countsCodes() && codeBits() <= 8 && scaleRun() >= (std::uint64_t(1) << codeBits());
}

namespace {

// Integer codes with zero points (GPTQ, AWQ, pack-quantized), as against float codes.
bool zeroPointCodes(QuantScheme scheme)
{
    return scheme == QuantScheme::Gptq || scheme == QuantScheme::Awq || scheme == QuantScheme::PackQuantized;
}

} // namespace

bool Dequantizer::countingPaysWithoutHistogram() const
{
    // bench_quant BENCH_BOTH=1 BENCH_BINS=0, 34 M values, Zen 4: counting against decoding, ms,
    // AVX-512: fp8-block 7.9/5.5, mxfp4 9.5/3.9, bnb-int8 7.4/3.9, bnb-nf4 4.7/3.6, but
    // gptq 4-bit 3.5/4.7, pack-quantized 4-bit 4.8/25.3. Portable with AVX2 (dequantruns.cpp's
    // AVX2 decoders): fp8-block 12.3/6.4, fp8-channel 9.1/5.0, mxfp4 8.6/5.0, bnb-int8 7.3/5.8,
    // but bnb-nf4 5.4/5.7, bnb-fp4 5.4/5.5. Without AVX2 counting is faster for every scheme.
    // With a histogram counting bins for free, it wins throughout. 4-bit GPTQ in whole groups is
    // summed as byte groups instead (quantbytegroups.cpp, nibbles split into bytes), faster than
    // counting with every family: AVX-512 3.5–3.8/2.9–3.1 ms, portable 4.4–5.2/3.3–3.4.
    if (!countingPays())
        return false;
    if (m_scheme == QuantScheme::Gptq && byteGroups())
        return false;
    if (kernels::avx512::enabled()) // pack-quantized 4-bit blocks: 6.4/4.5 (portable 7.4/8.8)
        return zeroPointCodes(m_scheme) && !packedBlocks();
    if (zeroPointCodes(m_scheme))
        return true;
    if (kernels::avx2::enabled())
        return m_scheme == QuantScheme::BnbNf4 || m_scheme == QuantScheme::BnbFp4;
    return true;
}

bool Dequantizer::tapesCounts() const
{
    if (!countsCodes() || scaleRun() > 255)
        return false;
    if (m_scheme == QuantScheme::BnbNf4 || m_scheme == QuantScheme::BnbFp4)
        return !m_nestedAbsmax.data;
    return zeroPointCodes(m_scheme);
}

std::uint64_t Dequantizer::tapeBytes(std::uint64_t n) const
{
    const std::uint64_t codes = std::uint64_t(1) << codeBits();
    switch (m_scheme) {
    case QuantScheme::BnbNf4:
    case QuantScheme::BnbFp4:
        return codes * (n / m_groupSize + 2); // a table per block touched
    case QuantScheme::Gptq:
    case QuantScheme::Awq:
        return codes * (n / m_groupSize + 2 * m_rows); // a table per output, per group touched
    case QuantScheme::PackQuantized:
        return codes * m_groups * (n / m_cols + 2); // a table per group, per row touched
    default:
        return 0;
    }
}

void Dequantizer::report(
    DequantScratch &scratch, CodeCountSink &sink, const float *values, std::uint32_t *tables, std::size_t n)
{
    CountTape &tape = scratch.tape;
    if (tape.replay) {
        if (n)
            sink.addBytes(values, tape.replay, n);
        tape.replay += n;
        return;
    }
    if (tape.record) {
        quant::narrowCounts(tables, n, tape.record);
        tape.record += n;
    }
    sink.take(values, tables, n);
}

std::uint64_t Dequantizer::countSpan() const
{
    switch (m_scheme) {
    case QuantScheme::Gptq:
    case QuantScheme::Awq:
        return m_groupSize * m_rows;
    case QuantScheme::Fp8Block:
        return m_block[0] * m_cols;
    case QuantScheme::BnbNf4:
    case QuantScheme::BnbFp4:
        return m_nestedAbsmax.data ? m_nestedBlock * m_groupSize : 1;
    default:
        return 1;
    }
}

// FP8 per tensor or channel and bitsandbytes int8: a row's bytes counted into one table, flushed
// when the scale changes (never, per tensor).
void Dequantizer::countRows(std::uint64_t first, std::uint64_t n, DequantScratch &scratch, CodeCountSink &sink) const
{
    // Two tables: a repeated code does not wait for the previous increment's store.
    std::uint32_t *t0 = scratch.counts.data(), *t1 = t0 + 256;
    float *values = scratch.values.data();
    const auto *codes = reinterpret_cast<const std::uint8_t *>(m_codes.data);
    const bool int8 = m_scheme == QuantScheme::BnbInt8;
    float scale = 0;
    bool pending = false;
    const auto flush = [&] {
        for (unsigned c = 0; c < 256; ++c) {
            t0[c] += t1[c];
            t1[c] = 0;
        }
        for (unsigned c = 0; c < 256; ++c) // as int8Run and fp8Run (e4m3Run equals the table)
            values[c] = int8 ? static_cast<float>(static_cast<std::int8_t>(c)) * scale : m_table[c] * scale;
        sink.take(values, t0, 256);
    };
    const std::uint64_t end = first + n;
    for (std::uint64_t p = first; p < end;) {
        const std::uint64_t row = p / m_cols, stop = std::min(end, (row + 1) * m_cols);
        const float s = m_scheme == QuantScheme::Fp8Tensor ? scaleAt(0)
            : int8                                         ? scaleAt(row) / 127.0f
                                                           : scaleAt(row);
        if (pending && !sameBits(s, scale))
            flush();
        scale = s;
        pending = true;
        std::uint64_t k = p;
        for (; k + 2 <= stop; k += 2) {
            ++t0[codes[k]];
            ++t1[codes[k + 1]];
        }
        if (k < stop)
            ++t0[codes[k]];
        p = stop;
    }
    if (pending)
        flush();
}

// FP8 blocks: a table per block column, flushed when the rows leave the block row.
void Dequantizer::countFp8Blocks(
    std::uint64_t first, std::uint64_t n, DequantScratch &scratch, CodeCountSink &sink) const
{
    const std::uint64_t blockRows = m_block[0], blockCols = m_block[1];
    // Two tables per block column, the second set after the first (as countRows: a repeated
    // code does not wait for the previous increment's store; heavy-tailed weights repeat codes).
    std::uint32_t *tables = scratch.counts.data();
    std::uint32_t *seconds = tables + 256 * ((m_cols + blockCols - 1) / blockCols);
    float *values = scratch.values.data();
    const auto *codes = reinterpret_cast<const std::uint8_t *>(m_codes.data);
    std::uint64_t blockRow = UINT64_MAX, lo = UINT64_MAX, hi = 0; // block columns touched: [lo, hi)
    const auto flush = [&] {
        for (std::uint64_t b = lo; b < hi; ++b) {
            const float s = scaleAt(blockRow * m_scaleCols + b);
            for (unsigned c = 0; c < 256; ++c) {
                values[256 * b + c] = m_table[c] * s;
                tables[256 * b + c] += seconds[256 * b + c];
                seconds[256 * b + c] = 0;
            }
        }
        sink.take(values + 256 * lo, tables + 256 * lo, 256 * (hi - lo));
        lo = UINT64_MAX;
        hi = 0;
    };
    const std::uint64_t end = first + n;
    for (std::uint64_t p = first; p < end;) {
        const std::uint64_t row = p / m_cols, c0 = p % m_cols, c1 = std::min(m_cols, c0 + (end - p));
        if (row / blockRows != blockRow) {
            if (hi > lo)
                flush();
            blockRow = row / blockRows;
        }
        const std::uint8_t *r = codes + row * m_cols;
        for (std::uint64_t c = c0; c < c1;) {
            const std::uint64_t b = c / blockCols, stop = std::min(c1, (b + 1) * blockCols);
            std::uint32_t *t0 = tables + 256 * b, *t1 = seconds + 256 * b;
            for (; c + 2 <= stop; c += 2) {
                ++t0[r[c]];
                ++t1[r[c + 1]];
            }
            if (c < stop)
                ++t0[r[c++]];
        }
        lo = std::min(lo, c0 / blockCols);
        hi = std::max(hi, (c1 - 1) / blockCols + 1);
        p += c1 - c0;
    }
    if (hi > lo)
        flush();
}

// MXFP4 and bitsandbytes 4-bit, in logical order (storage order's multiset). With 8-bit scale
// codes (MXFP4's E8M0, bitsandbytes' nested absmax) a table per scale code, flushed at the end
// (MXFP4) or when the nested block changes; otherwise a table per block, flushed every
// kBlocksPerRun blocks.
void Dequantizer::countFlat(std::uint64_t first, std::uint64_t n, DequantScratch &scratch, CodeCountSink &sink) const
{
    const bool lowFirst = m_scheme == QuantScheme::Mxfp4;
    const bool joint = lowFirst || m_nestedAbsmax.data;
    const std::uint64_t block = lowFirst ? 32 : m_groupSize;
    const auto *codes = reinterpret_cast<const std::uint8_t *>(m_codes.data);
    const auto *scaleCodes = reinterpret_cast<const std::uint8_t *>(m_scale.data);
    // Joint counting keeps 4 table sets (kJointSets): a run of one code (weights are mostly near
    // zero) incremented one counter after another, each increment waiting for the last one's
    // store; spread over 4 sets, 4 run at once (bench_quant BENCH_HEAVY=1, MXFP4 at 64 bins:
    // 0.37–0.40 → 0.60 of BF16). They are added together when flushed.
    std::uint32_t *tables = scratch.counts.data(), *packed = tables + kJointSets * kJointTable;
    float *values = scratch.values.data();
    std::uint64_t nested = UINT64_MAX; // double quantization: the nested block counted
    std::uint64_t firstBlock = UINT64_MAX, lastBlock = 0; // one table per block: blocks counted
    const auto flushJoint = [&] {
        // The scale codes used, packed together for one call.
        std::size_t used = 0;
        for (unsigned sc = 0; sc < 256; ++sc) {
            std::uint32_t *t = tables + 16 * sc;
            for (unsigned set = 1; set < kJointSets; ++set) {
                std::uint32_t *other = t + set * kJointTable;
                for (unsigned c = 0; c < 16; ++c) {
                    t[c] += other[c];
                    other[c] = 0;
                }
            }
            if (!anyCounted(t, 16))
                continue;
            const float s = lowFirst ? m_table[sc] : nestedScale(sc, nested);
            for (unsigned c = 0; c < 16; ++c) {
                values[used + c] = m_fourBit[c] * s;
                packed[used + c] = t[c];
                t[c] = 0;
            }
            used += 16;
        }
        sink.take(values, packed, used);
    };
    const auto flushBlocks = [&] {
        const std::uint64_t blocks = lastBlock - firstBlock + 1;
        scratch.scales.resize(blocks);
        if (m_scale.dtype == DType::F32) // bitsandbytes' absmax
            std::memcpy(scratch.scales.data(), m_scale.data + 4 * firstBlock, 4 * blocks);
        else
            for (std::uint64_t b = 0; b < blocks; ++b)
                scratch.scales[b] = blockScale(firstBlock + b);
        quant::scaledTablesRun(m_fourBit.data(), scratch.scales.data(), blocks, values);
        report(scratch, sink, values, tables, 16 * blocks);
        firstBlock = UINT64_MAX;
    };
    const std::uint64_t end = first + n;
    if (!joint && scratch.tape.replay && n) { // the blocks' tables from the tape, kBlocksPerRun at a time
        for (std::uint64_t b = first / block, last = (end - 1) / block; b <= last; b = lastBlock + 1) {
            firstBlock = b;
            lastBlock = std::min(last, b + kBlocksPerRun - 1);
            flushBlocks();
        }
        return;
    }
    // Element p is in byte p/2: MXFP4 puts even elements in the low nibble, bitsandbytes odd ones.
    const auto one = [&](std::uint64_t p, std::uint32_t *t) {
        const std::uint8_t byte = codes[p / 2];
        ++t[((p & 1) == 0) == lowFirst ? (byte & 15) : (byte >> 4)];
    };
    for (std::uint64_t p = first; p < end;) {
        const std::uint64_t b = p / block, stop = std::min(end, (b + 1) * block);
        std::uint32_t *t;
        if (joint) {
            if (!lowFirst && b / m_nestedBlock != nested) {
                if (nested != UINT64_MAX)
                    flushJoint();
                nested = b / m_nestedBlock;
            }
            t = tables + 16 * scaleCodes[b];
        } else {
            if (firstBlock != UINT64_MAX && b - firstBlock >= kBlocksPerRun)
                flushBlocks();
            if (firstBlock == UINT64_MAX)
                firstBlock = b;
            if (p % block == 0 && block % 64 == 0) { // whole blocks: the vector loop
                const std::uint64_t whole = std::min((end - p) / block, kBlocksPerRun - (b - firstBlock));
                if (whole) {
                    quant::blockNibbleCounts(codes + p / 2, block / 2, whole, tables + 16 * (b - firstBlock));
                    lastBlock = b + whole - 1;
                    p += whole * block;
                    continue;
                }
            }
            lastBlock = b;
            t = tables + 16 * (b - firstBlock);
        }
        if (p & 1)
            one(p++, t);
        if (joint) { // two bytes at a time into the 4 sets (the order of a multiset does not matter)
            std::uint32_t *t1 = t + kJointTable, *t2 = t1 + kJointTable, *t3 = t2 + kJointTable;
            for (; p + 4 <= stop; p += 4) {
                const std::uint8_t b0 = codes[p / 2], b1 = codes[p / 2 + 1];
                ++t[b0 & 15];
                ++t1[b0 >> 4];
                ++t2[b1 & 15];
                ++t3[b1 >> 4];
            }
        }
        for (; p + 2 <= stop; p += 2) {
            const std::uint8_t byte = codes[p / 2];
            ++t[byte & 15];
            ++t[byte >> 4];
        }
        if (p < stop)
            one(p++, t);
    }
    if (joint)
        flushJoint();
    else if (firstBlock != UINT64_MAX)
        flushBlocks();
}

void Dequantizer::countStorage(
    std::uint64_t first, std::uint64_t n, DequantScratch &scratch, CodeCountSink &sink, CountTape tape) const
{
    scratch.tape = tapesCounts() ? tape : CountTape {};
    if (scratch.owner != this) {
        scratch.owner = this;
        scratch.group = UINT64_MAX;
    }
    std::uint64_t entries = 0;
    switch (m_scheme) {
    case QuantScheme::Fp8Tensor:
    case QuantScheme::Fp8Channel:
    case QuantScheme::BnbInt8:
        entries = 512;
        break;
    case QuantScheme::Fp8Block:
        entries = 2 * 256 * ((m_cols + m_block[1] - 1) / m_block[1]); // two sets (countFp8Blocks)
        break;
    case QuantScheme::Mxfp4:
    case QuantScheme::BnbNf4:
    case QuantScheme::BnbFp4:
        // The joint tables' sets and their packed copy, or kBlocksPerRun blocks' tables.
        entries = std::max<std::uint64_t>((kJointSets + 1) * kJointTable, 16 * kBlocksPerRun);
        break;
    case QuantScheme::Gptq:
    case QuantScheme::Awq:
        entries = m_rows << m_bits;
        break;
    case QuantScheme::PackQuantized:
        entries = m_groups << m_bits;
        break;
    }
    if (scratch.counts.size() < entries)
        scratch.counts.assign(entries, 0);
    if (scratch.values.size() < entries)
        scratch.values.resize(entries);
    switch (m_scheme) {
    case QuantScheme::Fp8Tensor:
    case QuantScheme::Fp8Channel:
    case QuantScheme::BnbInt8:
        return countRows(first, n, scratch, sink);
    case QuantScheme::Fp8Block:
        return countFp8Blocks(first, n, scratch, sink);
    case QuantScheme::Mxfp4:
    case QuantScheme::BnbNf4:
    case QuantScheme::BnbFp4:
        return countFlat(first, n, scratch, sink);
    case QuantScheme::Gptq:
    case QuantScheme::Awq:
        return countGrouped(first, n, scratch, sink);
    case QuantScheme::PackQuantized:
        return countPacked(first, n, scratch, sink);
    }
}

} // namespace stb
