#include "core/stats/sparsebins.h"

#include <algorithm>
#include <cstdint>
#include <numeric>

namespace stb {

std::vector<std::size_t> sparseFarBins(const Histogram &histogram)
{
    const auto &counts = histogram.counts;
    const std::uint64_t total = std::accumulate(counts.begin(), counts.end(), std::uint64_t(0));
    if (total == 0)
        return {};
    const std::uint64_t peak = *std::max_element(counts.begin(), counts.end());
    // The bins holding the 0.5th and the 99.5th percentile (whole counts, so exact).
    const std::uint64_t below = total / 200, above = total - total / 200;
    std::size_t first = 0, last = counts.size() - 1;
    std::uint64_t running = 0;
    for (std::size_t i = 0; i < counts.size(); ++i) {
        if (running <= below && running + counts[i] > below)
            first = i;
        if (running < above && running + counts[i] >= above)
            last = i;
        running += counts[i];
    }
    const std::size_t reach = (last - first + 1) / 2; // bins beyond the bulk that still count as near
    std::vector<std::size_t> far;
    for (std::size_t i = 0; i < counts.size(); ++i) {
        const bool outside = i + reach < first || i > last + reach;
        if (outside && counts[i] > 0 && counts[i] * 50 < peak)
            far.push_back(i);
    }
    return far;
}

} // namespace stb
