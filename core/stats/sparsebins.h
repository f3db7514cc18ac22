#pragma once

#include "core/stats/tensorstats.h"

#include <cstddef>
#include <vector>

namespace stb {

// Bins that hold values far from the bulk of a histogram, too few to see on a linear count
// axis: the chart marks them, so an outlier is not lost in a flat line. The bulk is the bins
// from the 0.5th to the 99.5th percentile of the values; a bin is far when it lies more than half
// the bulk's width outside it, and sparse when it holds under 2% of the fullest bin. A normal
// distribution's own tails are not far; one value at twenty standard deviations is.
std::vector<std::size_t> sparseFarBins(const Histogram &histogram);

} // namespace stb
