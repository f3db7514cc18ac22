#include "core/stats/statskernels.h"

#include "core/stats/avx512kernels.h"
#include "core/concurrency/parallel.h"

#include <algorithm>
#include <cfloat>
#include <cmath>
#include <cstring>
#include <mutex>
#include <thread>

namespace stb::kernels {

namespace {

template<typename T> T load(const std::byte *p)
{
    T v;
    std::memcpy(&v, p, sizeof v);
    return v;
}

// Element loaders: each returns the value statistics see.
struct LoadF32 {
    static constexpr std::size_t size = 4;
    static double get(const std::byte *p) { return load<float>(p); }
};
struct LoadF64 {
    static constexpr std::size_t size = 8;
    static double get(const std::byte *p) { return load<double>(p); }
};
struct LoadI32 {
    static constexpr std::size_t size = 4;
    static double get(const std::byte *p) { return load<std::int32_t>(p); }
};
struct LoadU32 {
    static constexpr std::size_t size = 4;
    static double get(const std::byte *p) { return load<std::uint32_t>(p); }
};
struct LoadI64 {
    static constexpr std::size_t size = 8;
    static double get(const std::byte *p) { return static_cast<double>(load<std::int64_t>(p)); }
};
struct LoadU64 {
    static constexpr std::size_t size = 8;
    static double get(const std::byte *p) { return static_cast<double>(load<std::uint64_t>(p)); }
};
template<DType dtype> struct LoadHalf {
    static constexpr std::size_t size = 2;
    static double get(const std::byte *p) { return decodeCode(dtype, load<std::uint16_t>(p)); }
};
using LoadBF16 = LoadHalf<DType::BF16>;
using LoadF16 = LoadHalf<DType::F16>;
struct LoadC64 {
    static constexpr std::size_t size = 8;
    static double get(const std::byte *p)
    {
        const double re = load<float>(p), im = load<float>(p + 4);
        if (std::isnan(re) || std::isnan(im))
            return NAN;
        return std::hypot(re, im);
    }
};

// Eight independent lanes keep the loop free of a serial dependency chain, so the compiler can
// keep them in vector registers.
constexpr int kLanes = 8;

template<typename Loader>
void scan(const std::byte *data, std::uint64_t first, std::uint64_t n, StatsAccumulator &acc)
{
    const std::byte *p = data + first * Loader::size;
    // Shift: the chunk's first finite value (sums of x-K carry no cancellation).
    double shift = 0;
    std::uint64_t i = 0;
    for (; i < n; ++i) {
        const double v = Loader::get(p + i * Loader::size);
        if (std::isfinite(v)) {
            shift = v;
            break;
        }
    }
    double sum[kLanes] = {}, squares[kLanes] = {}, lo[kLanes], hi[kLanes], abs[kLanes] = {};
    std::uint64_t finite[kLanes] = {}, zeros[kLanes] = {};
    for (int k = 0; k < kLanes; ++k)
        lo[k] = INFINITY, hi[k] = -INFINITY;
    std::uint64_t nan = 0, posInf = 0, negInf = 0;
    for (std::uint64_t j = 0; j < n; j += kLanes) {
        const std::uint64_t lanes = std::min<std::uint64_t>(kLanes, n - j);
        for (std::uint64_t k = 0; k < lanes; ++k) {
            const double v = Loader::get(p + (j + k) * Loader::size);
            if (!std::isfinite(v)) [[unlikely]] {
                if (std::isnan(v))
                    ++nan;
                else if (v > 0)
                    ++posInf;
                else
                    ++negInf;
                continue;
            }
            const double d = v - shift;
            sum[k] += d;
            squares[k] += d * d;
            lo[k] = std::min(lo[k], v);
            hi[k] = std::max(hi[k], v);
            abs[k] = std::max(abs[k], std::fabs(v));
            finite[k] += 1;
            zeros[k] += v == 0;
        }
    }
    StatsAccumulator chunk;
    double s = 0, q = 0, mn = INFINITY, mx = -INFINITY, am = 0;
    std::uint64_t f = 0, z = 0;
    for (int k = 0; k < kLanes; ++k) {
        s += sum[k];
        q += squares[k];
        mn = std::min(mn, lo[k]);
        mx = std::max(mx, hi[k]);
        am = std::max(am, abs[k]);
        f += finite[k];
        z += zeros[k];
    }
    chunk.addFiniteBlock(f, shift, s, q);
    if (f)
        chunk.addExtremes(mn, mx, am);
    chunk.addZeros(z);
    chunk.addNan(nan);
    chunk.addInf(false, posInf);
    chunk.addInf(true, negInf);
    acc.merge(chunk);
}

template<typename Loader>
void bin(const std::byte *data, std::uint64_t first, std::uint64_t n, const BinPlan &plan,
    std::uint64_t *bins, std::uint64_t &outliers)
{
    const std::byte *p = data + first * Loader::size;
    std::uint64_t far = 0;
    for (std::uint64_t i = 0; i < n; ++i) {
        const double v = Loader::get(p + i * Loader::size);
        const int b = binIndex(plan, v);
        if (b >= 0)
            ++bins[b];
        far += std::fabs(v - plan.mean) > plan.outlierDistance && std::isfinite(v);
    }
    outliers += far;
}

// ---- F32, vectorized -------------------------------------------------------------------------
// F32 is most of a checkpoint's bytes and the scalar loops above spend ~3 and ~5 ns a value on
// it. These kernels do the same work on 8 floats at a time (GCC vector extensions, compiled for
// AVX2, AVX and the baseline; the loader picks one). They assume a block of finite values and
// report when that was wrong; such blocks (NaN, Inf) are redone by the scalar code, so the
// results are exactly what the scalar code defines.

typedef float F8 __attribute__((vector_size(32)));
typedef double D4 __attribute__((vector_size(32)));
typedef std::int32_t I8 __attribute__((vector_size(32)));

#if defined(__x86_64__) && defined(__GNUC__)
#define STB_VECTOR_CLONES __attribute__((target_clones("avx2", "avx", "default")))
#else
#define STB_VECTOR_CLONES
#endif

// Values per block: small enough that float lane counters stay exact (2^24) and that a block
// with a NaN costs little to redo.
constexpr std::size_t kBlock = 512;

struct BlockMoments {
    double sum, squares; // of x - shift
    float min, max, absMax, zeros;
};

// One block of kBlock floats; false when it holds a NaN or an infinity (the sums say so).
STB_VECTOR_CLONES
bool momentsBlock(const std::byte *p, double shift, BlockMoments &out)
{
    const D4 k = { shift, shift, shift, shift };
    D4 s0 = {}, s1 = {}, q0 = {}, q1 = {};
    F8 mn = { INFINITY, INFINITY, INFINITY, INFINITY, INFINITY, INFINITY, INFINITY, INFINITY };
    F8 mx = -mn, am = {}, zeros = {};
    const I8 absMask
        = { 0x7FFFFFFF, 0x7FFFFFFF, 0x7FFFFFFF, 0x7FFFFFFF, 0x7FFFFFFF, 0x7FFFFFFF, 0x7FFFFFFF, 0x7FFFFFFF };
    const F8 one = { 1, 1, 1, 1, 1, 1, 1, 1 };
    for (std::size_t i = 0; i < kBlock; i += 8) {
        F8 x;
        std::memcpy(&x, p + 4 * i, sizeof x);
        mn = x < mn ? x : mn;
        mx = x > mx ? x : mx;
        const F8 a = reinterpret_cast<F8>(reinterpret_cast<I8>(x) & absMask);
        am = a > am ? a : am;
        zeros += reinterpret_cast<F8>((x == 0) & reinterpret_cast<I8>(one));
        const D4 lo = __builtin_convertvector(__builtin_shufflevector(x, x, 0, 1, 2, 3), D4) - k;
        const D4 hi = __builtin_convertvector(__builtin_shufflevector(x, x, 4, 5, 6, 7), D4) - k;
        s0 += lo;
        s1 += hi;
        q0 += lo * lo;
        q1 += hi * hi;
    }
    const D4 s = s0 + s1, q = q0 + q1;
    out.sum = (s[0] + s[1]) + (s[2] + s[3]);
    out.squares = (q[0] + q[1]) + (q[2] + q[3]);
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

void scanF32(const std::byte *data, std::uint64_t first, std::uint64_t n, StatsAccumulator &acc)
{
    const std::byte *p = data + first * 4;
    double shift = 0;
    for (std::uint64_t i = 0; i < n; ++i) {
        const double v = load<float>(p + 4 * i);
        if (std::isfinite(v)) {
            shift = v;
            break;
        }
    }
    double sum = 0, squares = 0;
    float mn = INFINITY, mx = -INFINITY, am = 0;
    std::uint64_t finite = 0, zeros = 0;
    std::uint64_t i = 0;
    for (; i + kBlock <= n; i += kBlock) {
        BlockMoments b;
        if (momentsBlock(p + 4 * i, shift, b)) {
            sum += b.sum;
            squares += b.squares;
            mn = std::min(mn, b.min);
            mx = std::max(mx, b.max);
            am = std::max(am, b.absMax);
            finite += kBlock;
            zeros += static_cast<std::uint64_t>(b.zeros);
        } else {
            scan<LoadF32>(data, first + i, kBlock, acc);
        }
    }
    if (i < n)
        scan<LoadF32>(data, first + i, n - i, acc);
    StatsAccumulator chunk;
    chunk.addFiniteBlock(finite, shift, sum, squares);
    if (finite)
        chunk.addExtremes(mn, mx, am);
    chunk.addZeros(zeros);
    acc.merge(chunk);
}

// Pass 2 as counts of values at or above thresholds: a float x is >= a double edge e exactly
// when x >= the smallest float >= e, so comparing floats decides as the scalar code does.
constexpr unsigned kMaxVectorBins = 16;

float floatAtOrAbove(double e)
{
    float f = static_cast<float>(e);
    if (static_cast<double>(f) < e)
        f = std::nextafter(f, INFINITY);
    return f;
}

// The smallest float above `mean` farther than `distance` from it (the scalar test
// |x - mean| > distance, monotonic on each side of the mean), or +Inf when none is; `down`
// mirrors it: the largest such float below the mean, or -Inf.
float outlierThreshold(double mean, double distance, bool down)
{
    if (!std::isfinite(distance) || !std::isfinite(mean))
        return down ? -INFINITY : INFINITY;
    const float toward = down ? -INFINITY : INFINITY;
    auto far = [&](float x) { return std::fabs(static_cast<double>(x) - mean) > distance; };
    auto beyond = [&](float x) { return down ? x < mean : x > mean; };
    float x = static_cast<float>(down ? mean - distance : mean + distance);
    if (std::isinf(x))
        x = down ? -FLT_MAX : FLT_MAX;
    while (!beyond(x))
        x = std::nextafter(x, toward);
    for (float back = std::nextafter(x, -toward); beyond(back) && far(back);
         back = std::nextafter(x, -toward))
        x = back;
    while (!far(x) && std::isfinite(x))
        x = std::nextafter(x, toward);
    return std::isfinite(x) && far(x) ? x : toward;
}

struct BinThresholds {
    unsigned count; // bins + 1: edges[0..bins-1], then "above hi"
    float at[kMaxVectorBins + 1]; // x >= at[t]
    float outlierAbove, outlierBelow; // x >= above or x <= below
};

// One block of kBlock floats: counts[t] += #(x >= at[t]); false when it holds a NaN or Inf.
STB_VECTOR_CLONES
bool thresholdBlock(
    const std::byte *p, const BinThresholds &th, std::uint32_t *counts, std::uint32_t &outliers)
{
    F8 c[kMaxVectorBins + 1] = {};
    F8 far = {}, check = {};
    const F8 one = { 1, 1, 1, 1, 1, 1, 1, 1 };
    const I8 oneBits = reinterpret_cast<I8>(one);
    for (std::size_t i = 0; i < kBlock; i += 8) {
        F8 x;
        std::memcpy(&x, p + 4 * i, sizeof x);
        check += x - x; // NaN for NaN and Inf
        for (unsigned t = 0; t < th.count; ++t)
            c[t] += reinterpret_cast<F8>((x >= th.at[t]) & oneBits);
        far += reinterpret_cast<F8>(((x >= th.outlierAbove) | (x <= th.outlierBelow)) & oneBits);
    }
    float checked = 0;
    for (int l = 0; l < 8; ++l)
        checked += check[l];
    if (checked != 0)
        return false;
    for (unsigned t = 0; t < th.count; ++t) {
        float total = 0;
        for (int l = 0; l < 8; ++l)
            total += c[t][l];
        counts[t] += static_cast<std::uint32_t>(total);
    }
    float total = 0;
    for (int l = 0; l < 8; ++l)
        total += far[l];
    outliers += static_cast<std::uint32_t>(total);
    return true;
}

// false when the plan needs the scalar code (many bins, extreme ranges).
bool binF32(const std::byte *data, std::uint64_t first, std::uint64_t n, const BinPlan &plan,
    std::uint64_t *bins, std::uint64_t &outliers)
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
    th.outlierAbove = outlierThreshold(plan.mean, plan.outlierDistance, false);
    th.outlierBelow = outlierThreshold(plan.mean, plan.outlierDistance, true);

    const std::byte *p = data + first * 4;
    std::uint32_t counts[kMaxVectorBins + 1] = {};
    std::uint32_t far = 0;
    std::uint64_t i = 0;
    for (; i + kBlock <= n; i += kBlock) {
        std::uint32_t blockCounts[kMaxVectorBins + 1] = {}, blockFar = 0;
        if (thresholdBlock(p + 4 * i, th, blockCounts, blockFar)) {
            for (unsigned t = 0; t < th.count; ++t)
                counts[t] += blockCounts[t];
            far += blockFar;
        } else {
            bin<LoadF32>(data, first + i, kBlock, plan, bins, outliers);
        }
    }
    if (i < n)
        bin<LoadF32>(data, first + i, n - i, plan, bins, outliers);
    for (unsigned b = 0; b < binCount; ++b)
        bins[b] += counts[b] - counts[b + 1];
    outliers += far;
    return true;
}


// ---- F32 with many bins ----------------------------------------------------------------------
// More bins than thresholds pay for (the browser's 64): bin = floor((x - lo) * scale) in float,
// which is off by less than 1/256 of a bin for up to kMaxIndexBins bins. So it is exact except
// for values within 1/256 of a bin's width from an edge; those, and the values outside [lo, hi]
// (NaN, infinities), go through binIndex. The bin numbers go to memory and are counted in a
// second loop: counting straight from a vector just stored stalls on store-to-load forwarding
// (2/3 of the time, by perf).

constexpr unsigned kMaxIndexBins = 4096;
constexpr std::size_t kIndexBlock = 4096; // values per block: its numbers fit on the stack
constexpr unsigned kIndexTables = 4;      // counters interleaved: runs of one bin do not wait on one

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


// ---- F32, BF16 and F16 on AVX-512 ------------------------------------------------------------
// The kernels in avx512kernels.cpp do 64 values at a time; a block holding NaN or Inf and the
// ragged end of a chunk go to the scalar code above, so results are what it defines.

avx512::Format wideFormat(DType dtype)
{
    return dtype == DType::F32 ? avx512::Format::F32 : dtype == DType::BF16 ? avx512::Format::BF16 : avx512::Format::F16;
}

// Values per pass-1 block: long enough that the reductions at its end cost little, short enough
// that a block with a NaN costs little to redo; its range is recorded for pass 2.
constexpr std::uint64_t kWideBlock = kRangeBlock;
static_assert(kChunkElements % kWideBlock == 0, "blocks never straddle chunks");

template<typename Loader>
void scanWide(DType dtype, const std::byte *data, std::uint64_t first, std::uint64_t n, StatsAccumulator &acc,
    BlockRange *ranges)
{
    const std::byte *p = data + first * Loader::size;
    double shift = 0;
    for (std::uint64_t i = 0; i < n; ++i) {
        const double v = Loader::get(p + i * Loader::size);
        if (std::isfinite(v)) {
            shift = v;
            break;
        }
    }
    double sum = 0, squares = 0, mn = INFINITY, mx = -INFINITY;
    std::uint64_t finite = 0, zeros = 0;
    const std::uint64_t vectorEnd = n - n % avx512::kStep;
    std::uint64_t i = 0;
    while (i < vectorEnd) {
        const std::uint64_t length = std::min(kWideBlock, vectorEnd - i);
        avx512::Moments m;
        if (avx512::moments(wideFormat(dtype), p + i * Loader::size, length, shift, m)) {
            sum += m.sum;
            squares += m.squares;
            mn = std::min(mn, m.min);
            mx = std::max(mx, m.max);
            finite += length;
            zeros += m.zeros;
            if (ranges)
                ranges[(first + i) / kWideBlock] = { m.minKey, m.maxKey };
        } else {
            scan<Loader>(data, first + i, length, acc);
        }
        i += length;
    }
    if (i < n)
        scan<Loader>(data, first + i, n - i, acc);
    StatsAccumulator chunk;
    chunk.addFiniteBlock(finite, shift, sum, squares);
    if (finite)
        chunk.addExtremes(mn, mx, std::max(std::fabs(mn), std::fabs(mx)));
    chunk.addZeros(zeros);
    acc.merge(chunk);
}

// c[t] += values of elements [first, first + n) at or above keys[t]. A block whose recorded range
// lies wholly at or above a threshold counts whole, one wholly below it counts nothing: only the
// thresholds inside a block's range are compared (a fifth fewer on normally distributed weights).
void countAtOrAbove(DType dtype, std::size_t size, const std::byte *data, std::uint64_t first, std::uint64_t n,
    const std::vector<std::int32_t> &keys, const BlockRange *ranges, std::uint64_t *c)
{
    const auto count = static_cast<unsigned>(keys.size());
    if (!count)
        return;
    if (!ranges)
        return avx512::countAtOrAbove(wideFormat(dtype), data + first * size, n, keys.data(), count, c);
    for (std::uint64_t i = 0; i < n; i += kRangeBlock) {
        const std::uint64_t length = std::min(kRangeBlock, n - i);
        const BlockRange r = ranges[(first + i) / kRangeBlock];
        if (r.lo > r.hi) {
            avx512::countAtOrAbove(wideFormat(dtype), data + (first + i) * size, length, keys.data(), count, c);
            continue;
        }
        std::int32_t inside[avx512::kMaxKeys];
        unsigned which[avx512::kMaxKeys], m = 0;
        for (unsigned t = 0; t < count; ++t) {
            if (keys[t] <= r.lo)
                c[t] += length;
            else if (keys[t] <= r.hi)
                which[m] = t, inside[m++] = keys[t];
        }
        std::uint64_t partial[avx512::kMaxKeys] = {};
        avx512::countAtOrAbove(wideFormat(dtype), data + (first + i) * size, length, inside, m, partial);
        for (unsigned k = 0; k < m; ++k)
            c[which[k]] += partial[k];
    }
}

// Pass 2 from the counts at or above plan.keys (see BinPlan): bin b holds the values at or above
// its lower edge and not at or above the next one. Or, with many bins, from binsByIndex.
template<typename Loader>
void binWide(DType dtype, const std::byte *data, std::uint64_t first, std::uint64_t n, const BinPlan &plan,
    std::uint64_t *bins, std::uint64_t &outliers, const BlockRange *ranges)
{
    const std::uint64_t vectorN = n - n % avx512::kStep;
    const auto count = static_cast<unsigned>(plan.keys.size());
    std::uint64_t c[avx512::kMaxKeys] = {};
    countAtOrAbove(dtype, Loader::size, data, first, vectorN, plan.keys, ranges, c);
    // Among finite values only: the sentinels count what is not finite above the range.
    const std::uint64_t notFinite = plan.sentinels ? c[count - 1] : 0;
    const std::uint64_t finite = plan.sentinels ? c[0] - notFinite : vectorN;
    unsigned t = plan.sentinels ? 1 : 0;
    auto next = [&] { return c[t++] - notFinite; };
    const auto binCount = static_cast<unsigned>(plan.edges.size()) - 1;
    if (plan.wide == BinPlan::Wide::Index) {
        binsByIndex(data + first * Loader::size, vectorN, plan, bins);
    } else {
        std::uint64_t atOrAbove = finite; // values at or above bin b's lower edge
        for (unsigned b = 0; b < binCount; ++b) {
            const std::uint64_t aboveNext = b + 1 < binCount ? next() : 0;
            bins[b] += atOrAbove - aboveNext;
            atOrAbove = aboveNext;
        }
    }
    if (plan.farAbove)
        outliers += next();
    if (plan.farBelow)
        outliers += finite - next();
    if (vectorN < n)
        bin<Loader>(data, first + vectorN, n - vectorN, plan, bins, outliers);
}

// Order keys of one of the three formats, and the values they stand for.
struct KeySpace {
    bool f32;
    DType dtype;
    std::int64_t lowestFinite, highestFinite;

    explicit KeySpace(DType d)
        : f32(d == DType::F32)
        , dtype(d)
        , lowestFinite(f32 ? avx512::orderKey32(0xFF7FFFFFu) : avx512::orderKey16(d == DType::BF16 ? 0xFF7F : 0xFBFF))
        , highestFinite(f32 ? avx512::orderKey32(0x7F7FFFFFu) : avx512::orderKey16(d == DType::BF16 ? 0x7F7F : 0x7BFF))
    { }
    double value(std::int64_t key) const
    {
        const auto k = static_cast<std::int32_t>(key);
        return f32 ? decodeCode(DType::F32, avx512::bitsOfKey32(k)) : decodeCode(dtype, avx512::bitsOfKey16(k));
    }
    // The smallest key in [lo, hi) whose value satisfies `pred` (false, then true), or hi.
    template<typename Pred> std::int64_t first(std::int64_t lo, std::int64_t hi, Pred pred) const
    {
        while (lo < hi) {
            const std::int64_t mid = lo + (hi - lo) / 2;
            if (pred(value(mid)))
                hi = mid;
            else
                lo = mid + 1;
        }
        return lo;
    }
};

bool wideFloat(DType dtype)
{
    return dtype == DType::F32 || dtype == DType::BF16 || dtype == DType::F16;
}

// Whether pass 2 can count `bins` by thresholds: bins - 1 edges, two for outliers, two sentinels.
bool thresholdsFit(unsigned bins)
{
    return bins + 3 <= avx512::kMaxKeys;
}

} // namespace

bool hasWideKernels(DType dtype)
{
    return wideFloat(dtype) && avx512::enabled();
}

bool countsCodes(DType dtype, unsigned bins)
{
    if (dtype == DType::C64 || dtypeBits(dtype) > 16)
        return false;
    return !(hasWideKernels(dtype) && thresholdsFit(bins));
}

void prepareThresholds(BinPlan &plan, DType dtype, const TensorStats &stats)
{
    plan.wide = BinPlan::Wide::No;
    plan.keys.clear();
    plan.sentinels = plan.farAbove = plan.farBelow = false;
    if (!hasWideKernels(dtype) || !(stats.finite && stats.min < stats.max))
        return;
    const auto binCount = static_cast<unsigned>(plan.edges.size()) - 1;
    const bool thresholds = thresholdsFit(binCount);
    if (!thresholds && (dtype != DType::F32 || !plan.indexed))
        return; // the scalar code
    const KeySpace space(dtype);
    const std::int64_t minKey
        = space.first(space.lowestFinite, space.highestFinite + 1, [&](double v) { return v >= stats.min; });
    const std::int64_t maxKey
        = space.first(minKey, space.highestFinite + 1, [&](double v) { return v > stats.max; }) - 1;
    std::vector<std::int32_t> keys;
    const bool sentinels = stats.nan || stats.posInf || stats.negInf;
    if (sentinels)
        keys.push_back(static_cast<std::int32_t>(space.lowestFinite));
    for (unsigned b = 1; thresholds && b < binCount; ++b) {
        keys.push_back(static_cast<std::int32_t>(space.first(
            minKey, maxKey + 1, [&](double v) { return binIndex(plan, v) >= static_cast<int>(b); })));
    }
    // Outliers: the scalar test |x - mean| > distance is monotonic on each side of the mean.
    const double mean = plan.mean, distance = plan.outlierDistance;
    if (std::isfinite(distance)) {
        const std::int64_t up = space.first(
            minKey, maxKey + 1, [&](double v) { return v > mean && std::fabs(v - mean) > distance; });
        if (up <= maxKey) {
            plan.farAbove = true;
            keys.push_back(static_cast<std::int32_t>(up));
        }
        const std::int64_t down = space.first(
            minKey, maxKey + 1, [&](double v) { return !(v < mean && std::fabs(v - mean) > distance); });
        if (down > minKey) {
            plan.farBelow = true;
            keys.push_back(static_cast<std::int32_t>(down));
        }
    }
    if (sentinels)
        keys.push_back(static_cast<std::int32_t>(space.highestFinite + 1));
    if (keys.size() > avx512::kMaxKeys) {
        plan.farAbove = plan.farBelow = false;
        return;
    }
    plan.keys = std::move(keys);
    plan.sentinels = sentinels;
    plan.wide = thresholds ? BinPlan::Wide::Thresholds : BinPlan::Wide::Index;
    if (!thresholds && !plan.farAbove && !plan.farBelow) { // nothing to count at or above
        plan.keys.clear();
        plan.sentinels = false;
    }
}

namespace {

std::mutex g_tablePoolMutex;
std::vector<std::vector<std::uint32_t>> g_tablePool; // cleared tables

std::vector<std::uint32_t> takeTables(std::size_t size)
{
    {
        std::lock_guard lock(g_tablePoolMutex);
        for (auto it = g_tablePool.begin(); it != g_tablePool.end(); ++it) {
            if (it->size() == size) {
                std::vector<std::uint32_t> tables = std::move(*it);
                g_tablePool.erase(it);
                return tables;
            }
        }
    }
    return std::vector<std::uint32_t>(size, 0);
}

void returnTables(std::vector<std::uint32_t> &&tables)
{
    // Enough for every worker of a scan or two; more would only hold memory.
    const std::size_t keep = 2 * threadCount() + 2;
    std::lock_guard lock(g_tablePoolMutex);
    if (g_tablePool.size() < keep)
        g_tablePool.push_back(std::move(tables));
}

} // namespace

CodeCounter::CodeCounter(DType dtype)
    : m_dtype(dtype)
    , m_bits(dtypeBits(dtype))
    , m_tables(takeTables(std::size_t(2) << m_bits))
{ }

CodeCounter::CodeCounter(CodeCounter &&other) noexcept
    : m_dtype(other.m_dtype)
    , m_bits(other.m_bits)
    , m_tables(std::move(other.m_tables))
    , m_pending(other.m_pending)
    , m_dirty(other.m_dirty)
{
    other.m_tables.clear();
}

CodeCounter::~CodeCounter()
{
    if (m_tables.empty())
        return;
    if (m_dirty)
        std::fill(m_tables.begin(), m_tables.end(), 0);
    returnTables(std::move(m_tables));
}

void CodeCounter::add(const std::byte *data, std::uint64_t first, std::uint64_t n)
{
    m_dirty = true;
    std::uint32_t *t0 = m_tables.data(), *t1 = m_tables.data() + (std::size_t(1) << m_bits);
    std::uint64_t i = 0;
    if (m_bits == 8) {
        const auto *p = reinterpret_cast<const unsigned char *>(data) + first;
        for (; i + 2 <= n; i += 2) {
            ++t0[p[i]];
            ++t1[p[i + 1]];
        }
        for (; i < n; ++i)
            ++t0[p[i]];
    } else if (m_bits == 16) {
        const std::byte *p = data + first * 2;
        for (; i + 2 <= n; i += 2) {
            ++t0[load<std::uint16_t>(p + 2 * i)];
            ++t1[load<std::uint16_t>(p + 2 * i + 2)];
        }
        for (; i < n; ++i)
            ++t0[load<std::uint16_t>(p + 2 * i)];
    } else {
        // 4- and 6-bit codes: rare and small, the generic bit-stream reader is fast enough.
        const std::span<const std::byte> bytes(
            data, static_cast<std::size_t>(((first + n) * m_bits + 7) / 8));
        for (i = first; i < first + n; ++i)
            ++t0[elementCode(m_dtype, bytes, i)];
    }
    m_pending += n;
}

void CodeCounter::flushInto(std::vector<std::uint64_t> &totals)
{
    const std::size_t codes = std::size_t(1) << m_bits;
    totals.resize(codes, 0);
    // A tensor touches few of the 65,536 codes: skip untouched blocks (a vectorizable OR) so
    // the per-tensor cost of small BF16 tensors stays small.
    constexpr std::size_t kBlockCodes = 16;
    for (std::size_t base = 0; base < codes; base += kBlockCodes) {
        const std::size_t end = std::min(codes, base + kBlockCodes);
        std::uint32_t touched = 0;
        for (std::size_t c = base; c < end; ++c)
            touched |= m_tables[c] | m_tables[codes + c];
        if (!touched)
            continue;
        for (std::size_t c = base; c < end; ++c) {
            totals[c] += std::uint64_t(m_tables[c]) + m_tables[codes + c];
            m_tables[c] = m_tables[codes + c] = 0;
        }
    }
    m_pending = 0;
    m_dirty = false;
}

void scanValues(DType dtype, const std::byte *data, std::uint64_t first, std::uint64_t n, StatsAccumulator &acc,
    BlockRange *ranges)
{
    switch (dtype) {
    case DType::F32:
        if (avx512::enabled())
            return scanWide<LoadF32>(dtype, data, first, n, acc, ranges);
        return scanF32(data, first, n, acc);
    case DType::BF16:
        if (avx512::enabled())
            return scanWide<LoadBF16>(dtype, data, first, n, acc, ranges);
        return scan<LoadBF16>(data, first, n, acc);
    case DType::F16:
        if (avx512::enabled())
            return scanWide<LoadF16>(dtype, data, first, n, acc, ranges);
        return scan<LoadF16>(data, first, n, acc);
    case DType::F64:
        return scan<LoadF64>(data, first, n, acc);
    case DType::I32:
        return scan<LoadI32>(data, first, n, acc);
    case DType::U32:
        return scan<LoadU32>(data, first, n, acc);
    case DType::I64:
        return scan<LoadI64>(data, first, n, acc);
    case DType::U64:
        return scan<LoadU64>(data, first, n, acc);
    case DType::C64:
        return scan<LoadC64>(data, first, n, acc);
    default:
        return;
    }
}

BinPlan makeBinPlan(double lo, double hi, unsigned bins, double mean, double std)
{
    BinPlan plan;
    plan.lo = lo;
    plan.hi = hi;
    // Values are binned as x * unit, a power of two (exact) that keeps the arithmetic finite
    // and the edges distinct: a range of subnormals makes bins / range infinite (and 0 * inf a
    // NaN index), a range wider than DBL_MAX makes hi - lo infinite.
    const double range = hi - lo;
    if (!std::isfinite(range))
        plan.unit = 0.5;
    else if (!std::isfinite(bins / range))
        plan.unit = std::ldexp(1.0, 600);
    const double base = lo * plan.unit, top = hi * plan.unit;
    plan.scale = bins / (top - base);
    // numpy's edges (linspace: lo + i * step, the last one exactly hi), so that values on an
    // edge land where numpy puts them.
    const double step = (top - base) / bins;
    plan.edges.resize(bins + 1);
    for (unsigned i = 0; i < bins; ++i)
        plan.edges[i] = base + i * step;
    plan.edges[bins] = top;
    plan.mean = mean;
    plan.outlierDistance = std > 0 ? kOutlierSigmas * std : INFINITY;
    plan.outliersPossible = std::fabs(lo - mean) > plan.outlierDistance || std::fabs(hi - mean) > plan.outlierDistance;
    const auto indexScale = static_cast<float>(bins / (hi - lo));
    plan.indexed = plan.unit == 1 && bins <= kMaxIndexBins && std::isfinite(indexScale);
    plan.indexLo = static_cast<float>(lo);
    plan.indexHi = static_cast<float>(hi);
    plan.indexScale = indexScale;
    return plan;
}

int binIndex(const BinPlan &plan, double value)
{
    if (!(value >= plan.lo && value <= plan.hi))
        return -1;
    const int bins = static_cast<int>(plan.edges.size()) - 1;
    const double x = value * plan.unit;
    const double t = (x - plan.lo * plan.unit) * plan.scale;
    int b = t < bins ? static_cast<int>(t) : bins - 1; // t >= 0 since value >= lo
    // As numpy does: the estimate can be off near an edge; the edges decide.
    while (b > 0 && x < plan.edges[b])
        --b;
    while (b + 1 < bins && x >= plan.edges[b + 1])
        ++b;
    return b;
}

void binValues(DType dtype, const std::byte *data, std::uint64_t first, std::uint64_t n, const BinPlan &plan,
    std::uint64_t *bins, std::uint64_t &outliers, const BlockRange *ranges)
{
    switch (dtype) {
    case DType::F32:
        if (plan.wide != BinPlan::Wide::No)
            return binWide<LoadF32>(dtype, data, first, n, plan, bins, outliers, ranges);
        if (binF32(data, first, n, plan, bins, outliers))
            return;
        if (plan.indexed)
            return binF32ByIndex(data, first, n, plan, bins, outliers);
        return bin<LoadF32>(data, first, n, plan, bins, outliers);
    case DType::BF16:
        if (plan.wide != BinPlan::Wide::No)
            return binWide<LoadBF16>(dtype, data, first, n, plan, bins, outliers, ranges);
        return bin<LoadBF16>(data, first, n, plan, bins, outliers);
    case DType::F16:
        if (plan.wide != BinPlan::Wide::No)
            return binWide<LoadF16>(dtype, data, first, n, plan, bins, outliers, ranges);
        return bin<LoadF16>(data, first, n, plan, bins, outliers);
    case DType::F64:
        return bin<LoadF64>(data, first, n, plan, bins, outliers);
    case DType::I32:
        return bin<LoadI32>(data, first, n, plan, bins, outliers);
    case DType::U32:
        return bin<LoadU32>(data, first, n, plan, bins, outliers);
    case DType::I64:
        return bin<LoadI64>(data, first, n, plan, bins, outliers);
    case DType::U64:
        return bin<LoadU64>(data, first, n, plan, bins, outliers);
    case DType::C64:
        return bin<LoadC64>(data, first, n, plan, bins, outliers);
    default:
        return;
    }
}

double statValue(DType dtype, const std::byte *data, std::uint64_t index)
{
    if (dtype == DType::C64)
        return LoadC64::get(data + index * 8);
    const unsigned bits = dtypeBits(dtype);
    const std::span<const std::byte> bytes(data, static_cast<std::size_t>(((index + 1) * bits + 7) / 8));
    return decodeElement(dtype, bytes, index);
}

} // namespace stb::kernels
