// The portable F32 kernels: 8 floats at a time in GCC vector extensions. See portable.h.
#include "core/stats/kernels/portable.h"

#include "core/stats/kernels/avx512.h"
#include "core/stats/kernels/portableblocks.h"
#include "core/stats/kernels/prefetch.h"
#include "core/stats/kernels/scalar.h"
#include "core/stats/kernels/valuescan.h"

#include <bit>
#include <cstring>
#include <type_traits>
#include <vector>

namespace stb::kernels {

namespace {

typedef float F8 __attribute__((vector_size(32)));
typedef double D4 __attribute__((vector_size(32)));
typedef std::int32_t I8 __attribute__((vector_size(32)));

#if defined(__x86_64__) && defined(__GNUC__)
#define STB_VECTOR_CLONES __attribute__((target_clones("avx2", "avx", "default")))
#else
#define STB_VECTOR_CLONES
#endif

using portable::BinThresholds;
using portable::BlockMoments;
using portable::kBlock;
using portable::kMaxVectorBins;

// One block of kBlock floats; false when it holds a NaN or an infinity (the sums say so). Sixteen
// values a step: values 0-3 and 8-11 are added together, then to the lanes of s0 (their squares
// to q0), values 4-7 and 12-15 to s1 and q1. Each sum takes one add a step: two in a row into
// the same sum waited on each other (the AVX2 BF16 kernel, which adds as this does, was bound
// by that latency), and more sums than two did not fit AVX2's registers.
STB_VECTOR_CLONES
bool momentsBlock(const std::byte *p, double shift, BlockMoments &out)
{
    const D4 k = { shift, shift, shift, shift };
    D4 s0 = {}, s1 = {}, q0 = {}, q1 = {};
    F8 mn = { INFINITY, INFINITY, INFINITY, INFINITY, INFINITY, INFINITY, INFINITY, INFINITY };
    F8 mx = -mn, am = {};
    I8 zeros = {};
    const I8 absMask
        = { 0x7FFFFFFF, 0x7FFFFFFF, 0x7FFFFFFF, 0x7FFFFFFF, 0x7FFFFFFF, 0x7FFFFFFF, 0x7FFFFFFF, 0x7FFFFFFF };
    static_assert(kBlock % 16 == 0);
    for (std::size_t i = 0; i < kBlock; i += 16) {
        D4 lo[2], hi[2];
        for (std::size_t h = 0; h < 2; ++h) {
            F8 x;
            std::memcpy(&x, p + 4 * (i + 8 * h), sizeof x);
            mn = x < mn ? x : mn;
            mx = x > mx ? x : mx;
            const F8 a = reinterpret_cast<F8>(reinterpret_cast<I8>(x) & absMask);
            am = a > am ? a : am;
            zeros -= x == 0; // -1 where true
            lo[h] = __builtin_convertvector(__builtin_shufflevector(x, x, 0, 1, 2, 3), D4) - k;
            hi[h] = __builtin_convertvector(__builtin_shufflevector(x, x, 4, 5, 6, 7), D4) - k;
        }
        s0 += lo[0] + lo[1];
        s1 += hi[0] + hi[1];
        q0 += lo[0] * lo[0] + lo[1] * lo[1];
        q1 += hi[0] * hi[0] + hi[1] * hi[1];
    }
    const D4 sum = s0 + s1, squares = q0 + q1;
    out.sum = (sum[0] + sum[1]) + (sum[2] + sum[3]);
    out.squares = (squares[0] + squares[1]) + (squares[2] + squares[3]);
    if (!std::isfinite(out.sum)) // an Inf or NaN (finite floats cannot overflow these sums)
        return false;
    out.min = mn[0];
    out.max = mx[0];
    out.absMax = out.zeros = 0;
    for (int l = 0; l < 8; ++l) {
        out.min = std::min(out.min, mn[l]);
        out.max = std::max(out.max, mx[l]);
        out.absMax = std::max(out.absMax, am[l]);
        out.zeros += zeros[l];
    }
    return true;
}

} // namespace

namespace {

// BF16 widened to float, exactly (its bits are a float's upper half): 8 values at a time.
STB_VECTOR_CLONES
void widenBF16(const std::byte *p, float *out)
{
    typedef std::uint16_t H8 __attribute__((vector_size(16)));
    typedef std::uint32_t W8 __attribute__((vector_size(32)));
    for (std::size_t i = 0; i < kBlock; i += 8) {
        H8 h;
        std::memcpy(&h, p + 2 * i, sizeof h);
        const W8 w = __builtin_convertvector(h, W8) << 16;
        std::memcpy(out + i, &w, sizeof w);
    }
}

// F16 widened to float, exactly, one value at a time: only where the CPU lacks F16C, whose F16
// tensors are counted by code instead (countsCodes), so only when a test switches AVX2 off.
void widenF16Scalar(const std::byte *p, float *out)
{
    for (std::size_t i = 0; i < kBlock; ++i)
        out[i] = static_cast<float>(LoadF16::get(p + 2 * i));
}

// Block k of kBlock values at p as kBlock floats: F32 in place, BF16 and F16 widened into
// `buffer` (in L1, so the F32 block kernels read it at no cost that matters next to the widening).
template<typename Load> const std::byte *floatBlock(const std::byte *p, float *buffer, bool useAvx2)
{
    if constexpr (std::is_same_v<Load, LoadF32>) {
        return p;
    } else {
        if constexpr (std::is_same_v<Load, LoadBF16>)
            widenBF16(p, buffer);
        else if (useAvx2)
            avx2::widenF16(p, buffer);
        else
            widenF16Scalar(p, buffer);
        return reinterpret_cast<const std::byte *>(buffer);
    }
}

// Pass 1's block kernel: AVX2 reads BF16 and F16 codes directly, the generic vectors a widened
// copy.
template<typename Load>
bool momentsOf(const std::byte *p, double shift, bool useAvx2, float *buffer, BlockMoments &out)
{
    if constexpr (std::is_same_v<Load, LoadBF16>) {
        if (useAvx2)
            return avx2::momentsBlockBF16(p, shift, out);
    }
    if constexpr (std::is_same_v<Load, LoadF16>) {
        if (useAvx2)
            return avx2::momentsBlockF16(p, shift, out);
    }
    const std::byte *block = floatBlock<Load>(p, buffer, useAvx2);
    return useAvx2 ? avx2::momentsBlock(block, shift, out) : momentsBlock(block, shift, out);
}

// How far from the shift the mean of values summed around it may lie, as mean² against their
// variance: sums of squares around a shift carry (1 + mean²/variance) times their rounding into
// the variance. A shift at most one standard deviation from the mean makes that at most 2, as
// good as around a value of the data (the scalar code's shift, scalar.h), which lies about that
// far from the mean.
constexpr double kMaxOffset = 1;

// Whether n values whose sum and sum of squares around a shift are `sum` and `squares` lie too
// far from it (see kMaxOffset). Constant values other than the shift do (their variance is 0).
bool offCentre(double n, double sum, double squares)
{
    const double m2 = squares - sum * sum / n;
    return !(sum * sum <= kMaxOffset * n * m2);
}

template<typename Load>
void scanFloats(
    const std::byte *data, std::uint64_t first, std::uint64_t n, StatsAccumulator &acc, BlockRange *ranges)
{
    static_assert(kRangeBlock % kBlock == 0 && kChunkElements % kRangeBlock == 0);
    constexpr std::size_t size = Load::size;
    float rangeLo = INFINITY, rangeHi = -INFINITY;
    bool rangeFinite = true; // every block of the current range block so far
    const std::byte *p = data + first * size;
    // Sums around 0, unless the first block's values lie far from it (layer norms' weights near
    // 1): then around that block's mean. Around 0 the kernels take no difference per value and
    // square exactly (a quarter of the AVX2 BF16 kernel's time), and trained weights are centred
    // near 0. Where the first block is centred and the rest of the chunk is not, the chunk's
    // mean² / variance stays below 2 kChunkElements / kBlock (the first block's share of the
    // values bounds it), so its std carries at most ~1,000 times the rounding of its sums
    // (~1e-13 relative): the chunk's first value, the scalar and AVX-512 kernels' shift, can be
    // farther off.
    double shift = 0;
    bool shiftChosen = false;
    double sum = 0, squares = 0;
    float mn = INFINITY, mx = -INFINITY, am = 0;
    std::uint64_t finite = 0, zeros = 0;
    const bool useAvx2 = avx2::enabled();
    alignas(32) float buffer[kBlock];
    std::uint64_t i = 0;
    for (; i + kBlock <= n; i += kBlock) {
        prefetchAhead(p + size * i, size * kBlock);
        BlockMoments b;
        if (momentsOf<Load>(p + size * i, shift, useAvx2, buffer, b)) {
            if (!shiftChosen) {
                shiftChosen = true;
                if (offCentre(kBlock, b.sum, b.squares)) {
                    shift = b.sum / kBlock;
                    momentsOf<Load>(p + size * i, shift, useAvx2, buffer, b);
                }
            }
            sum += b.sum;
            squares += b.squares;
            mn = std::min(mn, b.min);
            mx = std::max(mx, b.max);
            am = std::max(am, b.absMax);
            finite += kBlock;
            zeros += static_cast<std::uint64_t>(b.zeros);
            rangeLo = std::min(rangeLo, b.min);
            rangeHi = std::max(rangeHi, b.max);
        } else {
            scan<Load>(data, first + i, kBlock, acc);
            rangeFinite = false;
        }
        if ((first + i + kBlock) % kRangeBlock == 0) { // a range block done
            if (ranges && rangeFinite) {
                ranges[(first + i) / kRangeBlock] = { avx512::orderKey32(std::bit_cast<std::uint32_t>(rangeLo)),
                    avx512::orderKey32(std::bit_cast<std::uint32_t>(rangeHi)) };
            }
            rangeLo = INFINITY, rangeHi = -INFINITY;
            rangeFinite = true;
        }
    }
    if (i < n)
        scan<Load>(data, first + i, n - i, acc);
    StatsAccumulator chunk;
    chunk.addFiniteBlock(finite, shift, sum, squares);
    if (finite)
        chunk.addExtremes(mn, mx, am);
    chunk.addZeros(zeros);
    acc.merge(chunk);
}

} // namespace

void scanF32(
    const std::byte *data, std::uint64_t first, std::uint64_t n, StatsAccumulator &acc, BlockRange *ranges)
{
    scanFloats<LoadF32>(data, first, n, acc, ranges);
}

void scanBF16(
    const std::byte *data, std::uint64_t first, std::uint64_t n, StatsAccumulator &acc, BlockRange *ranges)
{
    scanFloats<LoadBF16>(data, first, n, acc, ranges);
}

void scanF16(
    const std::byte *data, std::uint64_t first, std::uint64_t n, StatsAccumulator &acc, BlockRange *ranges)
{
    scanFloats<LoadF16>(data, first, n, acc, ranges);
}
namespace {

// Pass 2 as counts of values at or above thresholds: a float x is >= a double edge e exactly
// when x >= the smallest float >= e, so comparing floats decides as the scalar code does.

float floatAtOrAbove(double e)
{
    float f = static_cast<float>(e);
    if (static_cast<double>(f) < e)
        f = std::nextafter(f, INFINITY);
    return f;
}

// One block of kBlock floats: counts[t] += #(x >= at[t]) for t in [from, to), outliers when
// `far`; false when it holds a NaN or Inf (`knownFinite`: pass 1 found none).
STB_VECTOR_CLONES
bool thresholdBlock(const std::byte *p, const BinThresholds &th, unsigned from, unsigned to, bool farOnes,
    bool knownFinite, std::uint32_t *counts, std::uint32_t &outliers)
{
    // One threshold at a time over the block (2 KiB, in L1 after the first loop), so each
    // counter lives in a register: with all of them in one loop over the values, a number of
    // them known only at run time, GCC kept them in memory and perf found the loop waiting on
    // their stores. Integer lanes: a compare gives -1 where true, subtracted in one operation.
    if (!knownFinite) {
        F8 check = {};
        for (std::size_t i = 0; i < kBlock; i += 8) {
            F8 x;
            std::memcpy(&x, p + 4 * i, sizeof x);
            check += x - x; // NaN for NaN and Inf
        }
        float checked = 0;
        for (int l = 0; l < 8; ++l)
            checked += check[l];
        if (checked != 0)
            return false;
    }
    auto laneTotal = [](const I8 &c) { // by reference: a 32-byte vector argument changes the ABI without AVX (clang refuses it)
        std::uint32_t total = 0;
        for (int l = 0; l < 8; ++l)
            total += static_cast<std::uint32_t>(c[l]);
        return total;
    };
    for (unsigned t = from; t < to; ++t) {
        const F8 at = F8 {} + th.at[t];
        I8 c = {};
        for (std::size_t i = 0; i < kBlock; i += 8) {
            F8 x;
            std::memcpy(&x, p + 4 * i, sizeof x);
            c -= x >= at;
        }
        counts[t] += laneTotal(c);
    }
    if (farOnes) {
        const F8 above = F8 {} + th.outlierAbove, below = F8 {} + th.outlierBelow;
        I8 far = {};
        for (std::size_t i = 0; i < kBlock; i += 8) {
            F8 x;
            std::memcpy(&x, p + 4 * i, sizeof x);
            far -= (x >= above) | (x <= below);
        }
        outliers += laneTotal(far);
    }
    return true;
}

} // namespace

namespace {

// false when the plan needs the scalar code (many bins, extreme ranges).
template<typename Load>
bool binFloats(const std::byte *data, std::uint64_t first, std::uint64_t n, const BinPlan &plan,
    std::uint64_t *bins, std::uint64_t &outliers, const BlockRange *ranges)
{
    const unsigned binCount = static_cast<unsigned>(plan.edges.size()) - 1;
    if (binCount > kMaxVectorBins || plan.unit != 1)
        return false;
    BinThresholds th;
    th.count = binCount + 1;
    for (unsigned b = 0; b < binCount; ++b)
        th.at[b] = floatAtOrAbove(plan.edges[b]);
    th.at[binCount] = floatAtOrAbove(plan.hi);
    if (static_cast<double>(th.at[binCount]) == plan.hi)
        th.at[binCount] = std::nextafter(th.at[binCount], INFINITY); // strictly above hi
    th.outlierAbove = plan.outlierAbove;
    th.outlierBelow = plan.outlierBelow;

    constexpr std::size_t size = Load::size;
    const std::byte *p = data + first * size;
    std::uint32_t counts[kMaxVectorBins + 1] = {};
    std::uint32_t far = 0;
    const bool useAvx2 = avx2::enabled();
    alignas(32) float buffer[kBlock];
    std::uint64_t i = 0;
    for (; i + kBlock <= n; i += kBlock) {
        std::uint32_t blockCounts[kMaxVectorBins + 1] = {}, blockFar = 0;
        // Within the block's range (pass 1's, when known): thresholds at or below its lowest
        // value count every value, those above its highest none; outliers only if the range
        // reaches them. (The thresholds ascend.) Without a histogram (plan.countBins false)
        // only outliers count, and a block whose range reaches none is not read at all.
        unsigned from = 0, to = plan.countBins ? th.count : 0;
        bool farOnes = true;
        const BlockRange *range = ranges ? &ranges[(first + i) / kRangeBlock] : nullptr;
        const bool known = range && range->lo <= range->hi; // a range recorded: its values are finite
        if (known) {
            const float lo = std::bit_cast<float>(avx512::bitsOfKey32(range->lo));
            const float hi = std::bit_cast<float>(avx512::bitsOfKey32(range->hi));
            while (from < to && th.at[from] <= lo)
                blockCounts[from++] = kBlock;
            while (to > from && th.at[to - 1] > hi)
                --to;
            farOnes = hi >= th.outlierAbove || lo <= th.outlierBelow;
        }
        if (known && from == to && !farOnes) {
            for (unsigned t = 0; t < from; ++t)
                counts[t] += kBlock;
            continue;
        }
        prefetchAhead(p + size * i, size * kBlock);
        const std::byte *block = floatBlock<Load>(p + size * i, buffer, useAvx2);
        if (useAvx2 ? avx2::thresholdBlock(block, th, from, to, farOnes, known, blockCounts, blockFar)
                    : thresholdBlock(block, th, from, to, farOnes, known, blockCounts, blockFar)) {
            for (unsigned t = 0; t < th.count; ++t)
                counts[t] += blockCounts[t];
            far += blockFar;
        } else {
            bin<Load>(data, first + i, kBlock, plan, bins, outliers);
        }
    }
    if (i < n)
        bin<Load>(data, first + i, n - i, plan, bins, outliers);
    for (unsigned b = 0; b < binCount; ++b)
        bins[b] += counts[b] - counts[b + 1];
    outliers += far;
    return true;
}

} // namespace

bool binF32(const std::byte *data, std::uint64_t first, std::uint64_t n, const BinPlan &plan,
    std::uint64_t *bins, std::uint64_t &outliers, const BlockRange *ranges)
{
    return binFloats<LoadF32>(data, first, n, plan, bins, outliers, ranges);
}

bool binBF16(const std::byte *data, std::uint64_t first, std::uint64_t n, const BinPlan &plan,
    std::uint64_t *bins, std::uint64_t &outliers, const BlockRange *ranges)
{
    return binFloats<LoadBF16>(data, first, n, plan, bins, outliers, ranges);
}

bool binF16(const std::byte *data, std::uint64_t first, std::uint64_t n, const BinPlan &plan,
    std::uint64_t *bins, std::uint64_t &outliers, const BlockRange *ranges)
{
    return binFloats<LoadF16>(data, first, n, plan, bins, outliers, ranges);
}
namespace {


// ---- F32 with many bins ----------------------------------------------------------------------
// More bins than thresholds pay for (the browser's 64): bin = floor((x - lo) * scale) in float,
// which is off by less than 1/256 of a bin for up to kMaxIndexBins bins. So it is exact except
// for values within 1/256 of a bin's width from an edge; those, and the values outside [lo, hi]
// (NaN, infinities), go through binIndex. The bin numbers go to memory and are counted in a
// second loop: counting straight from a vector just stored stalls on store-to-load forwarding
// (2/3 of the time, by perf).

constexpr std::size_t kIndexBlock = 4096; // values per block: its numbers fit on the stack
constexpr unsigned kIndexTables = 8;      // counters interleaved: runs of one bin do not wait on one

// Bin numbers of n values (a multiple of 8) into `index`, `bins` (a trash counter) for the values
// left to binIndex, whose positions go to `slow`; returns how many those are. (avx512::binIndices
// does the same 16 at a time.)
STB_VECTOR_CLONES
std::size_t indexBlock(const std::byte *p, std::size_t n, const BinPlan &plan, unsigned bins, std::uint32_t *index,
    std::uint32_t *slow)
{
    const F8 lo = F8 {} + plan.indexLo, hi = F8 {} + plan.indexHi, scale = F8 {} + plan.indexScale;
    const F8 top = F8 {} + static_cast<float>(bins), zero = {};
    const I8 trash = I8 {} + static_cast<std::int32_t>(bins);
    std::size_t slowCount = 0;
    for (std::size_t i = 0; i < n; i += 8) {
        F8 x;
        std::memcpy(&x, p + 4 * i, sizeof x);
        const F8 t = (x - lo) * scale;
        // In range (NaN fails) and t below bins (an overflow fails): t is then in [0, bins).
        const I8 inRange = (x >= lo) & (x <= hi) & (t < top);
        const F8 safe = inRange ? t : zero;
        const I8 e = __builtin_convertvector(safe, I8);
        const F8 fraction = safe - __builtin_convertvector(e, F8);
        const I8 ok = inRange & (fraction >= 1.0f / 256) & (fraction <= 1.0f - 1.0f / 256);
        const I8 bin = ok ? e : trash;
        std::memcpy(index + i, &bin, sizeof bin);
        for (int l = 0; l < 8; ++l) {
            if (!ok[l])
                slow[slowCount++] = static_cast<std::uint32_t>(i + static_cast<std::size_t>(l));
        }
    }
    return slowCount;
}

} // namespace

// Bins of n F32 values (a multiple of 16) at p, by index.
void binsByIndex(const std::byte *p, std::uint64_t n, const BinPlan &plan, std::uint64_t *bins)
{
    const auto binCount = static_cast<unsigned>(plan.edges.size()) - 1;
    const std::size_t stride = binCount + 1; // the last counter of each table is the trash
    thread_local std::vector<std::uint32_t> tables; // cleared per chunk: fewer than 2^32 values
    tables.assign(kIndexTables * stride, 0);
    alignas(32) std::uint32_t index[kIndexBlock], slow[kIndexBlock];
    for (std::uint64_t i = 0; i < n; i += kIndexBlock) {
        const std::size_t length = static_cast<std::size_t>(std::min<std::uint64_t>(kIndexBlock, n - i));
        const std::size_t slowCount = avx512::enabled() // mask registers make it a fifth faster
            ? avx512::binIndices(p + 4 * i, length, plan.indexLo, plan.indexHi, plan.indexScale, binCount, index, slow)
            : avx2::enabled()
            ? avx2::indexBlock(p + 4 * i, length, plan.indexLo, plan.indexHi, plan.indexScale, binCount, index, slow)
            : indexBlock(p + 4 * i, length, plan, binCount, index, slow);
        std::size_t k = 0;
        for (; k + kIndexTables <= length; k += kIndexTables) {
            for (unsigned j = 0; j < kIndexTables; ++j)
                ++tables[j * stride + index[k + j]];
        }
        for (; k < length; ++k)
            ++tables[index[k]];
        for (std::size_t s = 0; s < slowCount; ++s) {
            const int b = binIndex(plan, LoadF32::get(p + 4 * (i + slow[s])));
            if (b >= 0)
                ++bins[b];
        }
    }
    for (unsigned b = 0; b < binCount; ++b) {
        for (unsigned j = 0; j < kIndexTables; ++j)
            bins[b] += tables[j * stride + b];
    }
}

// Pass 2 of F32 by index without AVX-512: outliers one value at a time, and only when the range
// reaches that far (rare).
void binF32ByIndex(const std::byte *data, std::uint64_t first, std::uint64_t n, const BinPlan &plan,
    std::uint64_t *bins, std::uint64_t &outliers)
{
    const std::byte *p = data + first * 4;
    const std::uint64_t vectorN = n - n % 16;
    binsByIndex(p, vectorN, plan, bins);
    if (plan.outliersPossible) {
        for (std::uint64_t i = 0; i < vectorN; ++i) {
            const double v = LoadF32::get(p + 4 * i);
            outliers += std::isfinite(v) && std::fabs(v - plan.mean) > plan.outlierDistance;
        }
    }
    if (vectorN < n)
        bin<LoadF32>(data, first + vectorN, n - vectorN, plan, bins, outliers);
}

} // namespace stb::kernels
