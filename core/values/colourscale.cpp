#include "core/values/colourscale.h"

#include <algorithm>
#include <array>
#include <cmath>

namespace stb {

namespace {

// Evenly spaced stops, linearly interpolated.
template<std::size_t N> Rgb interpolate(const std::array<Rgb, N> &stops, double t)
{
    t = std::clamp(std::isnan(t) ? 0.0 : t, 0.0, 1.0) * (N - 1);
    const auto k = std::min(static_cast<std::size_t>(t), N - 2);
    const double f = t - static_cast<double>(k);
    const auto mix = [f](std::uint8_t a, std::uint8_t b) {
        return static_cast<std::uint8_t>(std::lround(a + (b - a) * f));
    };
    return { mix(stops[k].r, stops[k + 1].r), mix(stops[k].g, stops[k + 1].g),
        mix(stops[k].b, stops[k + 1].b) };
}

// Moreland's cool-warm diverging map (its ends and a light grey middle).
constexpr std::array<Rgb, 5> kDiverging { { { 59, 76, 192 }, { 141, 176, 254 }, { 221, 221, 221 },
    { 244, 154, 123 }, { 180, 4, 38 } } };
// Viridis at nine points.
constexpr std::array<Rgb, 9> kSequential { { { 68, 1, 84 }, { 71, 44, 122 }, { 59, 81, 139 },
    { 44, 113, 142 }, { 33, 144, 141 }, { 39, 173, 129 }, { 92, 200, 99 }, { 170, 220, 50 },
    { 253, 231, 37 } } };

} // namespace

ColourScale ColourScale::forRange(double min, double max, bool symmetric)
{
    ColourScale scale;
    scale.diverging = min < 0;
    if (scale.diverging && symmetric) {
        const double m = std::max(std::fabs(min), std::fabs(max));
        scale.lo = -m;
        scale.hi = m;
    } else {
        scale.lo = min;
        scale.hi = max;
    }
    return scale;
}

double ColourScale::position(double value) const
{
    if (diverging) {
        // Each side of 0 scaled by its own extreme, so 0 sits in the middle of the bar.
        if (value < 0)
            return lo < 0 ? 0.5 - 0.5 * std::min(value / lo, 1.0) : 0.5;
        return hi > 0 ? 0.5 + 0.5 * std::min(value / hi, 1.0) : 0.5;
    }
    if (!(hi > lo))
        return 0.5;
    return std::clamp((value - lo) / (hi - lo), 0.0, 1.0);
}

Rgb ColourScale::colourAt(double t) const
{
    return diverging ? interpolate(kDiverging, t) : interpolate(kSequential, t);
}

Rgb ColourScale::colour(double value) const
{
    if (std::isnan(value))
        return kNaNColour;
    if (std::isinf(value))
        return value > 0 ? kPosInfColour : kNegInfColour;
    return colourAt(position(value));
}

Rgb cellColour(const HeatmapSummary &summary, std::uint32_t i, std::uint32_t j, const ColourScale &scale)
{
    const std::size_t c = summary.cellIndex(i, j);
    if (summary.nan[c] > 0 || summary.cellSize(i, j) == 0)
        return kNaNColour;
    if (summary.posInf[c] > 0)
        return kPosInfColour;
    if (summary.negInf[c] > 0)
        return kNegInfColour;
    return scale.colour(summary.mean[c]);
}

std::vector<Rgb> cellColours(const HeatmapSummary &summary, const ColourScale &scale)
{
    std::vector<Rgb> pixels;
    pixels.reserve(std::size_t(summary.cellRows) * summary.cellCols);
    for (std::uint32_t i = 0; i < summary.cellRows; ++i) {
        for (std::uint32_t j = 0; j < summary.cellCols; ++j)
            pixels.push_back(cellColour(summary, i, j, scale));
    }
    return pixels;
}

ColourScale scaleFor(const HeatmapSummary &summary, bool symmetric)
{
    // The range of what is drawn, the cells' means: the extremes of single elements would wash
    // a downsampled picture out to the middle of the bar.
    std::optional<std::pair<double, double>> range;
    for (std::uint32_t i = 0; i < summary.cellRows; ++i) {
        for (std::uint32_t j = 0; j < summary.cellCols; ++j) {
            if (summary.finite(i, j) == 0)
                continue;
            const double mean = summary.mean[summary.cellIndex(i, j)];
            if (!range)
                range = std::pair { mean, mean };
            range->first = std::min(range->first, mean);
            range->second = std::max(range->second, mean);
        }
    }
    return range ? ColourScale::forRange(range->first, range->second, symmetric) : ColourScale {};
}

} // namespace stb
