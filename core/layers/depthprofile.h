#pragma once

#include "core/layers/repeat.h"
#include "core/stats/tensoranalyzer.h"
#include "core/stats/tensorstats.h"

#include <array>
#include <functional>
#include <optional>
#include <span>
#include <stop_token>
#include <string_view>
#include <utility>
#include <vector>

namespace stb {

class Checkpoint;

// The statistics a depth profile follows: the audit's, one number per tensor.
enum class DepthStat : std::uint8_t { Mean, Std, Rms, AbsMax, Nonfinite, ZeroFraction };
inline constexpr std::size_t kDepthStatCount = 6;
// "mean", "std", "rms", "abs_max", "nonfinite", "zero_fraction" (also the JSON keys)
std::string_view depthStatName(DepthStat stat);
// One tensor's value: rms = sqrt(mean² + std²) over the finite values, nonfinite = NaN + Inf
// count, zero_fraction = zeros / count. NaN where undefined (no finite value, no element).
double depthStatValue(DepthStat stat, const TensorStats &stats);

// Values over a repeat's blocks, Repeat::rows() × Repeat::indices row-major; NaN where the block
// lacks the role or the value is undefined.
using DepthSeries = std::vector<double>;

// A block whose value is far from the others' in its row (the experts of one layer, or the layers);
// or, in a nested repeat, a whole row far from the other rows (column kWholeRow, value the row's
// median): a layer all of whose experts moved together, which no comparison inside the row sees.
inline constexpr std::size_t kWholeRow = static_cast<std::size_t>(-1);
struct DepthOutlier {
    std::size_t row = 0, column = 0, role = 0; // into the repeat; column kWholeRow: the whole row
    DepthStat stat = DepthStat::Mean;
    double value = 0;
    double z = 0;
};

// One repeat's depth profiles, shaped like the repeat (nested repeats in `repeats`).
struct RepeatProfile {
    std::vector<std::array<DepthSeries, kDepthStatCount>> roles; // indexed like Repeat::roles
    std::vector<DepthOutlier> outliers; // by role, statistic, row, column
    // This repeat's tensors (not those of the repeats inside it) that have no values because
    // their bytes are not all in their file: positions in Repeat::table, ascending. Their
    // series entries are NaN, like a missing block's; this says why.
    std::vector<std::size_t> unreadable;
    std::vector<RepeatProfile> repeats;
};

inline constexpr double kDepthOutlierZ = 6.0;

// Robust z-scores over a series, NaN entries skipped: z = (x - median) / (1.4826 MAD), the
// MAD scaled to a normal standard deviation. When more than half the values are equal (MAD 0,
// e.g. a NaN count that is 0 in all but one block), the mean absolute deviation from the median
// times 1.2533 stands in; when that is 0 too, nothing is an outlier. Fewer than 3 finite values:
// none. Returns (position in the series, z) for each |z| > threshold.
std::vector<std::pair<std::size_t, double>> robustOutliers(
    std::span<const double> series, double threshold = kDepthOutlierZ);

// Statistics by tensor number (what the repeat's table holds); nullptr where unknown.
using StatsLookup = std::function<const TensorStats *(std::size_t tensor)>;

// A repeat's profiles from known statistics, outliers per row and role. Pure.
RepeatProfile profileRepeat(const Repeat &repeat, const StatsLookup &stats);

// Profiles of repeats of a checkpoint (tensor numbers index Checkpoint::tensors()): statistics
// from `cached` where it knows them, the rest scanned once with the audit's machinery
// (analyzeTensors: all threads, progress in bytes of the scanned tensors), so a profile costs
// at most one audit. A tensor not wholly in its file has no values (RepeatProfile::unreadable
// lists it). nullopt when stopped or when
// a file vanished under the scan. Thread-safe; runs on the calling thread and the pool.
std::optional<std::vector<RepeatProfile>> profileRepeats(const Checkpoint &checkpoint,
    std::span<const Repeat> repeats, const AnalysisOptions &options, std::stop_token stop = {},
    const ProgressFn &progress = {}, const StatsLookup &cached = {});

} // namespace stb
