// Passes 1 and 2 of F32, BF16 and F16 on the AVX-512 kernels (avx512.h), 64 values at a time; a
// block holding NaN or Inf and the ragged end of a chunk go to the scalar code (scalar.h), so
// results are what it defines.
#include "core/stats/kernels/avx512passes.h"

#include "core/stats/kernels/avx512.h"
#include "core/stats/kernels/portable.h"
#include "core/stats/kernels/scalar.h"

namespace stb::kernels {

namespace {

avx512::Format avx512Format(DType dtype)
{
    return dtype == DType::F32 ? avx512::Format::F32 : dtype == DType::BF16 ? avx512::Format::BF16 : avx512::Format::F16;
}

// Values per pass-1 block: long enough that the reductions at its end cost little, short enough
// that a block with a NaN costs little to redo; its range is recorded for pass 2.
constexpr std::uint64_t kAvx512Block = kRangeBlock;
static_assert(kChunkElements % kAvx512Block == 0, "blocks never straddle chunks");

template<typename Loader>
void scanBlocks(DType dtype, const std::byte *data, std::uint64_t first, std::uint64_t n, StatsAccumulator &acc,
    BlockRange *ranges)
{
    const std::byte *p = data + first * Loader::size;
    const double shift = firstFinite<Loader>(p, n);
    double sum = 0, squares = 0, mn = INFINITY, mx = -INFINITY;
    std::uint64_t finite = 0, zeros = 0;
    const std::uint64_t vectorEnd = n - n % avx512::kStep;
    std::uint64_t i = 0;
    while (i < vectorEnd) {
        const std::uint64_t length = std::min(kAvx512Block, vectorEnd - i);
        avx512::Moments m;
        if (avx512::moments(avx512Format(dtype), p + i * Loader::size, length, shift, m)) {
            sum += m.sum;
            squares += m.squares;
            mn = std::min(mn, m.min);
            mx = std::max(mx, m.max);
            finite += length;
            zeros += m.zeros;
            if (ranges)
                ranges[(first + i) / kAvx512Block] = { m.minKey, m.maxKey };
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
        return avx512::countAtOrAbove(avx512Format(dtype), data + first * size, n, keys.data(), count, c);
    for (std::uint64_t i = 0; i < n; i += kRangeBlock) {
        const std::uint64_t length = std::min(kRangeBlock, n - i);
        const BlockRange r = ranges[(first + i) / kRangeBlock];
        if (r.lo > r.hi) {
            avx512::countAtOrAbove(avx512Format(dtype), data + (first + i) * size, length, keys.data(), count, c);
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
        avx512::countAtOrAbove(avx512Format(dtype), data + (first + i) * size, length, inside, m, partial);
        for (unsigned k = 0; k < m; ++k)
            c[which[k]] += partial[k];
    }
}

// Pass 2 from the counts at or above plan.keys (see BinPlan): bin b holds the values at or above
// its lower edge and not at or above the next one. Or, with many bins, from binsByIndex.
template<typename Loader>
void binBlocks(DType dtype, const std::byte *data, std::uint64_t first, std::uint64_t n, const BinPlan &plan,
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
    if (plan.avx512 == BinPlan::Avx512::Index) {
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

} // namespace

void scanAvx512(DType dtype, const std::byte *data, std::uint64_t first, std::uint64_t n, StatsAccumulator &acc,
    BlockRange *ranges)
{
    if (dtype == DType::F32)
        return scanBlocks<LoadF32>(dtype, data, first, n, acc, ranges);
    if (dtype == DType::BF16)
        return scanBlocks<LoadBF16>(dtype, data, first, n, acc, ranges);
    return scanBlocks<LoadF16>(dtype, data, first, n, acc, ranges);
}

void binAvx512(DType dtype, const std::byte *data, std::uint64_t first, std::uint64_t n, const BinPlan &plan,
    std::uint64_t *bins, std::uint64_t &outliers, const BlockRange *ranges)
{
    if (dtype == DType::F32)
        return binBlocks<LoadF32>(dtype, data, first, n, plan, bins, outliers, ranges);
    if (dtype == DType::BF16)
        return binBlocks<LoadBF16>(dtype, data, first, n, plan, bins, outliers, ranges);
    return binBlocks<LoadF16>(dtype, data, first, n, plan, bins, outliers, ranges);
}

} // namespace stb::kernels
