// Planning the passes: which kernels run a dtype, the bins' edges, and the thresholds the
// AVX-512 kernels count at or above.
#include "core/stats/statskernels.h"

#include "core/stats/kernels/avx512.h"
#include "core/stats/kernels/valuescan.h"

#include <cfloat>
#include <cmath>

namespace stb::kernels {

namespace {

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

bool avx512Float(DType dtype)
{
    return dtype == DType::F32 || dtype == DType::BF16 || dtype == DType::F16;
}

// Whether pass 2 can count `bins` by thresholds: bins - 1 edges, two for outliers, two sentinels.
bool thresholdsFit(unsigned bins)
{
    return bins + 3 <= avx512::kMaxKeys;
}

} // namespace

bool hasAvx512Kernels(DType dtype)
{
    return avx512Float(dtype) && avx512::enabled();
}

bool countsCodes(DType dtype, unsigned bins)
{
    if (dtype == DType::C64 || dtypeBits(dtype) > 16)
        return false;
    // Without a histogram BF16 is scanned in vectors by every family (portable.h): counting
    // codes pays for exact bins in one pass, and costs 4x the vector pass where none is wanted.
    // F16 too where the portable family converts it in registers (AVX2 with F16C).
    if (bins == 0 && (dtype == DType::BF16 || (dtype == DType::F16 && avx2::enabled())))
        return false;
    return !(hasAvx512Kernels(dtype) && thresholdsFit(bins));
}

void prepareThresholds(BinPlan &plan, DType dtype, const TensorStats &stats)
{
    plan.avx512 = BinPlan::Avx512::No;
    plan.keys.clear();
    plan.sentinels = plan.farAbove = plan.farBelow = false;
    if (!hasAvx512Kernels(dtype) || !(stats.finite && stats.min < stats.max))
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
    plan.avx512 = thresholds ? BinPlan::Avx512::Thresholds : BinPlan::Avx512::Index;
    if (!thresholds && !plan.farAbove && !plan.farBelow) { // nothing to count at or above
        plan.keys.clear();
        plan.sentinels = false;
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
    plan.outlierAbove = outlierThreshold(mean, plan.outlierDistance, false);
    plan.outlierBelow = outlierThreshold(mean, plan.outlierDistance, true);
    const auto indexScale = static_cast<float>(bins / (hi - lo));
    plan.indexed = plan.unit == 1 && bins <= kMaxIndexBins && std::isfinite(indexScale);
    plan.indexLo = static_cast<float>(lo);
    plan.indexHi = static_cast<float>(hi);
    plan.indexScale = indexScale;
    return plan;
}

} // namespace stb::kernels
