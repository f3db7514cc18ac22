#pragma once

#include "core/compare/comparison.h"
#include "core/layers/depthprofile.h"
#include "core/layers/repeat.h"

#include <array>
#include <string_view>
#include <vector>

namespace stb {

// What changed between two checkpoints, per role over depth.
enum class DiffMetric : std::uint8_t { RelL2, Cosine };
inline constexpr std::size_t kDiffMetricCount = 2;
// "rel_l2", "cosine" (also the JSON keys)
std::string_view diffMetricName(DiffMetric metric);

// One repeat's series, shaped like the repeat (nested repeats in `repeats`).
struct RepeatDiff {
    std::vector<std::array<DepthSeries, kDiffMetricCount>> roles; // indexed like Repeat::roles
    std::vector<RepeatDiff> repeats;
};

struct LayerDiff {
    // Detected over the names of both sides; tensor numbers index Comparison::pairs.
    std::vector<Repeat> repeats;
    std::vector<RepeatDiff> diffs; // indexed like repeats
};

// A pair's value of a metric: identical tensors 0 and 1; changed ones (dtype too, with equal
// shapes) the comparison's relative L2 and cosine; NaN where a side is missing, the shapes
// differ, a side is unreadable, or the metric is undefined (an all-zero side's cosine).
double diffMetricValue(DiffMetric metric, const TensorPair &pair);

// The comparison's metrics laid out over depth per role. Reads no tensor byte: the comparison
// has measured every pair. The comparison must outlive the result only while it is being built.
LayerDiff diffByLayer(const Comparison &comparison);

} // namespace stb
