#pragma once

#include "core/concurrency/parallel.h"
#include "core/format/dtype.h"
#include "core/stats/statsaccumulator.h"
#include "core/stats/tensorstats.h"

#include <cstddef>
#include <cstdint>
#include <vector>

namespace stb::kernels {

// The inner loops of the statistics, one chunk at a time. Pure functions over bytes; they own
// nothing, so a chunk interrupted by a vanished page (busguard) leaks nothing.

using stb::kChunkElements; // chunks of the statistics (core/concurrency/parallel.h)

// Dtypes of at most 16 bits are counted per code point in one pass; everything is then derived
// exactly from the counts. Except BF16 and F16 with the AVX-512 kernels and few bins: two
// vector passes (moments, then threshold counts) are several times faster than the scattered
// increments of counting; and BF16 without a histogram (bins 0) in every family, F16 without
// one where the portable family has AVX2 and F16C (twice as fast as counting), whose second
// pass reads only the blocks that may hold outliers.
bool countsCodes(DType dtype, unsigned bins);
// Counts code points of elements [first, first+n) of `data` (the tensor's bytes) into 32-bit
// tables reused across chunks (allocated once per worker and tensor, so no chunk allocates);
// flushInto adds them to 64-bit totals (2^bits entries) and clears them.
// A tensor touches few of the 65,536 codes of a 16-bit dtype: flushInto can list the blocks of
// kCodeBlock codes it added to, so that the totals are read and cleared there only.
inline constexpr std::size_t kCodeBlock = 16;
class CodeCounter {
public:
    explicit CodeCounter(DType dtype);
    // The tables come from and go back to a small pool of cleared tables: allocating and
    // clearing 512 KiB per tensor cost more than counting a typical BF16 tensor.
    ~CodeCounter();
    CodeCounter(CodeCounter &&other) noexcept;
    CodeCounter &operator=(CodeCounter &&) = delete;
    void add(const std::byte *data, std::uint64_t first, std::uint64_t n);
    // `touched` (may be null) receives the first code of each block it added to, ascending.
    void flushInto(std::vector<std::uint64_t> &totals, std::vector<std::uint32_t> *touched = nullptr);
    // The 32-bit tables must be flushed before they could overflow.
    bool nearlyFull() const { return m_pending > (std::uint64_t(1) << 31); }

private:
    DType m_dtype;
    unsigned m_bits;
    std::vector<std::uint32_t> m_tables; // two interleaved tables break store-to-load chains
    std::uint64_t m_pending = 0;
    bool m_dirty = false; // counts not flushed (a chunk abandoned midway leaves them so)
};

// Order keys (see kernels/avx512.h) bounding the values of one block of kRangeBlock elements,
// recorded by pass 1 so that pass 2 need not compare a block's values with a threshold that
// lies outside them. `lo > hi`: unknown (the block holds NaN or Inf, or was not recorded).
inline constexpr std::uint64_t kRangeBlock = 4096;
struct BlockRange {
    std::int32_t lo = 1, hi = 0;
};

// Whether the AVX-512 kernels run this dtype (F32, BF16, F16 on a CPU that has AVX-512 and
// with them not switched off).
bool hasAvx512Kernels(DType dtype);

// Pass 1 for the dtypes not counted by code (32/64-bit, C64, and BF16/F16 when countsCodes is
// false): counts and moments of elements [first, first+n) into `acc`. With the AVX-512 kernels,
// `ranges` (the tensor's, one per kRangeBlock elements; may be null) receives the ranges of the
// blocks they scanned.
void scanValues(DType dtype, const std::byte *data, std::uint64_t first, std::uint64_t n, StatsAccumulator &acc,
    BlockRange *ranges = nullptr);

// Pass 2: histogram bins (edges precomputed) and outliers, for elements [first, first+n).
struct BinPlan {
    double lo = 0, hi = 0, scale = 0;
    double unit = 1; // values are binned as value * unit (a power of two: see makeBinPlan)
    std::vector<double> edges; // bins + 1, in units of `unit`
    double mean = 0, outlierDistance = INFINITY;
    // For the AVX-512 kernels (see prepareThresholds). Pass 2 counts values at or above
    // thresholds (order keys), in this order: [lowest finite], the bins' lower edges 1..bins-1
    // (Avx512::Thresholds only), [far above], [first not far below], [above the largest finite].
    // With many bins (Avx512::Index, F32 only) the bins come from their float index instead.
    // No: pass 2 runs on the portable or scalar kernels.
    enum class Avx512 { No, Thresholds, Index } avx512 = Avx512::No;
    std::vector<std::int32_t> keys;
    bool sentinels = false; // the first and last keys are there: some values are not finite
    bool farAbove = false, farBelow = false;
    // F32 values may be binned by index, bin = (x - lo) * scale in float (kernels/portable.h),
    // exact but for values within 1/256 of a bin from an edge (up to kMaxIndexBins bins).
    bool indexed = false;
    float indexLo = 0, indexHi = 0, indexScale = 0;
    bool outliersPossible = false; // the range reaches farther than outlierDistance from the mean
    // The outlier test in floats: a finite float x is an outlier exactly when x >= outlierAbove
    // or x <= outlierBelow (the smallest float above the mean and the largest below it that are
    // farther than outlierDistance; +Inf and -Inf when none is).
    float outlierAbove = INFINITY, outlierBelow = -INFINITY;
    // False: no histogram is wanted, only outliers (the portable kernels then skip every block
    // whose range reaches none; the others count bins nobody reads).
    bool countBins = true;
};
inline constexpr unsigned kMaxIndexBins = 4096;
// numpy's bins over [lo, hi] (edges by linspace) and the outlier distance, kOutlierSigmas * std
// from the mean.
BinPlan makeBinPlan(double lo, double hi, unsigned bins, double mean, double std);
// Sets plan.avx512 (and the keys it needs) when the AVX-512 kernels can run pass 2 for this dtype
// and plan. `stats` is pass 1's result (the tensor's finite range, whether any value is not
// finite).
void prepareThresholds(BinPlan &plan, DType dtype, const TensorStats &stats);
// The bin of a value as numpy puts it (the edges decide); -1 outside [lo, hi]. Inline: every
// scalar kernel calls it per value.
inline int binIndex(const BinPlan &plan, double value)
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
// Pass 2 of elements [first, first+n): bins[b] += values in bin b, outliers += values farther
// than plan.outlierDistance from plan.mean; `ranges` as pass 1 recorded them (may be null).
void binValues(DType dtype, const std::byte *data, std::uint64_t first, std::uint64_t n, const BinPlan &plan,
    std::uint64_t *bins, std::uint64_t &outliers, const BlockRange *ranges = nullptr);

// The value statistics use for an element (C64: its magnitude).
double statValue(DType dtype, const std::byte *data, std::uint64_t index);

} // namespace stb::kernels
