#include "core/values/colourscale.h"

#include <algorithm>
#include <array>
#include <cmath>
#include <optional>
#include <vector>

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

// Calls f(cell index, cell size) for every cell in row-major order, the sizes from each row's
// height and the column widths found once: HeatmapSummary::cellSize costs four 128-bit divisions
// a call, a quarter of the time of a PNG of 8192×8192 cells when asked per cell.
template<class F> void forEachCell(const HeatmapSummary &summary, F &&f)
{
    std::vector<std::uint64_t> widths(summary.cellCols);
    for (std::uint32_t j = 0; j < summary.cellCols; ++j)
        widths[j] = summary.colBegin(j + 1) - summary.colBegin(j);
    for (std::uint32_t i = 0; i < summary.cellRows; ++i) {
        const std::uint64_t height = summary.rowBegin(i + 1) - summary.rowBegin(i);
        const std::size_t row = summary.cellIndex(i, 0);
        for (std::uint32_t j = 0; j < summary.cellCols; ++j)
            f(row + j, height * widths[j]);
    }
}

// A cell's count of finite values from its size.
std::uint64_t finiteIn(const HeatmapSummary &summary, std::size_t c, std::uint64_t size)
{
    return size - summary.nanCount(c) - summary.posInfCount(c) - summary.negInfCount(c);
}

// cellColour of cell c of `size` values.
Rgb colourOf(const HeatmapSummary &summary, std::size_t c, std::uint64_t size, const ColourScale &scale)
{
    if (summary.nanCount(c) > 0 || size == 0)
        return kNaNColour;
    if (summary.posInfCount(c) > 0)
        return kPosInfColour;
    if (summary.negInfCount(c) > 0)
        return kNegInfColour;
    return scale.colour(summary.mean[c]);
}

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
    return colourOf(summary, summary.cellIndex(i, j), summary.cellSize(i, j), scale);
}

std::vector<Rgb> cellColours(const HeatmapSummary &summary, const ColourScale &scale)
{
    std::vector<Rgb> pixels;
    pixels.reserve(std::size_t(summary.cellRows) * summary.cellCols);
    forEachCell(summary,
        [&](std::size_t c, std::uint64_t size) { pixels.push_back(colourOf(summary, c, size, scale)); });
    return pixels;
}

namespace {

// The finite cells' means.
std::vector<double> finiteMeans(const HeatmapSummary &summary)
{
    std::vector<double> means;
    means.reserve(summary.mean.size());
    forEachCell(summary, [&](std::size_t c, std::uint64_t size) {
        if (finiteIn(summary, c, size) > 0)
            means.push_back(summary.mean[c]);
    });
    return means;
}

// The value of nearest rank p/100 · (n − 1), rounded towards the nearer end, so that at most
// the given share of values lies beyond it (reorders `values`; n > 0).
double percentileOf(std::vector<double> &values, double p)
{
    const double exact = std::clamp(p, 0.0, 100.0) / 100.0 * double(values.size() - 1);
    const double rank = p >= 50 ? std::ceil(exact) : std::floor(exact);
    const auto k = std::min(values.size() - 1, static_cast<std::size_t>(rank));
    std::nth_element(values.begin(), values.begin() + std::ptrdiff_t(k), values.end());
    return values[k];
}

struct Ranges {
    double min, max; // of the means
    double clipLo, clipHi; // the percentile range (symmetric around 0 for signed data)
};

std::optional<Ranges> rangesOf(const HeatmapSummary &summary, double percentile)
{
    std::vector<double> means = finiteMeans(summary);
    if (means.empty())
        return std::nullopt;
    const auto [lo, hi] = std::minmax_element(means.begin(), means.end());
    Ranges r { *lo, *hi, 0, 0 };
    if (r.min < 0) {
        for (double &m : means)
            m = std::fabs(m);
        r.clipHi = percentileOf(means, percentile);
        r.clipLo = -r.clipHi;
    } else {
        r.clipHi = percentileOf(means, percentile);
        r.clipLo = percentileOf(means, 100.0 - percentile);
    }
    return r;
}

// The scale for `range` from the means' ranges (scaleFor).
ColourScale scaleFrom(const std::optional<Ranges> &r, ColourRange range)
{
    if (!r)
        return {};
    if (range == ColourRange::Clipped && r->clipHi > r->clipLo) {
        ColourScale scale;
        scale.diverging = r->min < 0;
        scale.lo = r->clipLo;
        scale.hi = r->clipHi;
        scale.clipped = r->min < scale.lo || r->max > scale.hi;
        return scale;
    }
    return ColourScale::forRange(r->min, r->max, range != ColourRange::MinMax);
}

// The range to draw with from the means' ranges at kClipPercentile (defaultColourRange).
ColourRange rangeFrom(const std::optional<Ranges> &r)
{
    if (!r || !(r->clipHi > r->clipLo))
        return ColourRange::Symmetric;
    const double full = r->min < 0 ? 2 * std::max(std::fabs(r->min), std::fabs(r->max)) : r->max - r->min;
    return full > kWashOutRatio * (r->clipHi - r->clipLo) ? ColourRange::Clipped : ColourRange::Symmetric;
}

} // namespace

ColourScale scaleFor(const HeatmapSummary &summary, ColourRange range, double percentile)
{
    // The range of what is drawn, the cells' means: the extremes of single elements would wash
    // a downsampled picture out to the middle of the bar.
    return scaleFrom(rangesOf(summary, percentile), range);
}

ColourScale scaleFor(const HeatmapSummary &summary, bool symmetric)
{
    return scaleFor(summary, symmetric ? ColourRange::Symmetric : ColourRange::MinMax);
}

ColourRange defaultColourRange(const HeatmapSummary &summary)
{
    return rangeFrom(rangesOf(summary, kClipPercentile));
}

ColourScale defaultScale(const HeatmapSummary &summary)
{
    const auto r = rangesOf(summary, kClipPercentile);
    return scaleFrom(r, rangeFrom(r));
}

} // namespace stb
