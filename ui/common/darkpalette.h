#pragma once

#include <QPalette>

namespace stb {

// A dark palette for the Fusion style (which, unlike the platform styles, draws everything from
// the palette): what a dark desktop theme hands a Qt program, so every pane can be checked with
// it. Disabled text and placeholders are dimmed, links and the highlight stay readable.
QPalette darkPalette();

// Fusion and darkPalette() for the whole application, before any window opens. The browser does
// this when STB_DARK_PALETTE is set (a hidden switch for screenshots and for trying a dark theme
// on a desktop without one).
void useDarkAppearance();

} // namespace stb
