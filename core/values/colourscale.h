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

// The scale a summary is drawn with: the range of its cells' means (0 … 1 when nothing is finite).
ColourScale scaleFor(const HeatmapSummary &summary, bool symmetric);

} // namespace stb
