#pragma once

#include "core/values/heatmap.h"

#include <cstdint>
#include <optional>
#include <vector>

namespace stb {

struct Rgb {
    std::uint8_t r = 0, g = 0, b = 0;
    bool operator==(const Rgb &) const = default;
};

// Colours of their own for cells holding values that have no place on a scale.
inline constexpr Rgb kNaNColour { 255, 0, 255 }; // magenta
inline constexpr Rgb kPosInfColour { 0, 255, 0 }; // lime
inline constexpr Rgb kNegInfColour { 0, 0, 0 }; // black

// Value → colour for the heatmap (GUI and CLI draw the same picture). Signed data (a negative
// minimum) gets a diverging blue–grey–red map centred on 0; other data a sequential one
// (viridis) from min to max. `symmetric` makes a diverging range ±max(|min|, |max|); otherwise
// each side of 0 spans its own extreme.
struct ColourScale {
    bool diverging = false;
    double lo = 0, hi = 1;
    // Some drawn values lie beyond lo … hi (a clipped range): they take the end colours, and the
    // colour bar says so.
    bool clipped = false;

    static ColourScale forRange(double min, double max, bool symmetric);
    // Position of a finite value on the bar, 0 (lo) … 1 (hi), clamped; 0.5 is 0 when diverging.
    double position(double value) const;
    Rgb colour(double value) const;
    Rgb colourAt(double position) const; // for drawing the colour bar
};

// The colour the heatmap gives a cell: NaN's if it holds a NaN (or nothing), then +Inf's, then
// −Inf's, else its mean's on the scale. One NaN in a large cell stays visible that way.
Rgb cellColour(const HeatmapSummary &summary, std::uint32_t i, std::uint32_t j, const ColourScale &scale);

// Every cell's colour, row-major: an RGB888 image of cellCols × cellRows pixels.
std::vector<Rgb> cellColours(const HeatmapSummary &summary, const ColourScale &scale);
static_assert(sizeof(Rgb) == 3, "cellColours is used as a packed RGB888 image");

// How the range of the colour bar is chosen from the cells' means: symmetric (±max |mean| for
// signed data), min … max, or clipped at a percentile, so a few outlying cells do not wash the
// rest of the picture out to the middle of the bar.
enum class ColourRange { Symmetric, MinMax, Clipped };
inline constexpr double kClipPercentile = 99.9;

// The scale a summary is drawn with, from its cells' means (0 … 1 when nothing is finite).
// Clipped: signed data gets ±the `percentile`-th percentile of |mean|, other data the
// (100 − percentile)-th … percentile-th percentiles of the means (nearest rank, rounded so that
// at most 100 − percentile percent of cells fall beyond), `clipped` set when any does; when that
// range is empty it falls back to Symmetric. A percentile costs one nth_element over the cells,
// no pass over the data.
ColourScale scaleFor(const HeatmapSummary &summary, ColourRange range, double percentile = kClipPercentile);
ColourScale scaleFor(const HeatmapSummary &summary, bool symmetric);

// The range to draw with unless the user picks one: Clipped when outliers would wash the picture
// out (the means' full span is more than kWashOutRatio times the clipped one, so most cells would
// share a quarter of the bar), else Symmetric. The GUI and the CLI's PNG both start from it.
inline constexpr double kWashOutRatio = 4;
ColourRange defaultColourRange(const HeatmapSummary &summary);
// scaleFor(summary, defaultColourRange(summary)) with one copy and sort of the cells' means
// instead of two (0.5 GB and a third of a second at 8192×8192 cells): the CLI's PNG.
ColourScale defaultScale(const HeatmapSummary &summary);

} // namespace stb
