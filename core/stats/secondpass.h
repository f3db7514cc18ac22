#pragma once

#include "core/stats/binlayout.h"
#include "core/stats/statsaccumulator.h"
#include "core/stats/statskernels.h"
#include "core/stats/tensoranalyzer.h"

#include <algorithm>
#include <cmath>
#include <vector>

namespace stb {

// The part of a two-pass analysis that the plain and the dequantizing analyzers share: merge the
// workers' pass-1 moments, lay out the bins for `dtype` (the dtype the kernels read: F32 for
// dequantized values), run `binPass(plan)` (pass 2 over the data, filling each worker's
// `binCounts` and `outliers`), and sum the bins and outliers into `result`. Workers need `acc`,
// `binCounts` (at least `bins` long, and one) and `outliers`. False when pass 2 was cancelled or
// faulted. `bins` 0: no histogram, and no pass 2 when no value lies farther from the mean than
// an outlier does (the least and the largest are the farthest on each side).
template <typename Worker, typename BinPass>
bool finishTwoPass(DType dtype, unsigned bins, const std::vector<Worker> &workers, const BinPass &binPass,
                   TensorAnalysis &result)
{
    StatsAccumulator acc;
    for (const auto &w : workers)
        acc.merge(w.acc);
    result.stats = acc.stats();
    const TensorStats &s = result.stats;
    const bool wantHistogram = bins > 0 && s.finite && s.min < s.max;
    if (!wantHistogram && !(s.finite && s.std > 0))
        return true; // nothing to bin and no spread to have outliers
    // Without a histogram (pass 2 counts only outliers), any bins will do.
    const BinLayout layout
        = wantHistogram ? layoutBins(dtype, s.min, s.max, bins) : BinLayout { 0, 1, std::max(1u, bins) };
    auto plan = kernels::makeBinPlan(layout.lo, layout.hi, layout.bins, s.mean, s.std);
    if (!wantHistogram) {
        // The kernels' own outlier test, on the extremes.
        const auto far = [&](double v) { return std::fabs(v - plan.mean) > plan.outlierDistance; };
        if (!far(s.min) && !far(s.max))
            return true;
        plan.countBins = false;
    }
    kernels::prepareThresholds(plan, dtype, s);
    if (!binPass(plan))
        return false;
    if (wantHistogram) {
        result.histogram = { layout.lo, layout.hi, std::vector<std::uint64_t>(layout.bins, 0) };
        for (const auto &w : workers) {
            for (unsigned b = 0; b < layout.bins; ++b)
                result.histogram.counts[b] += w.binCounts[b];
        }
    }
    for (const auto &w : workers)
        result.outliers += w.outliers;
    return true;
}

} // namespace stb
