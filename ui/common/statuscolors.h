#pragma once

#include <QColor>
#include <QPalette>
#include <QString>

namespace stb {

// What a colour means, rather than which colour it is. Every pane picks from these, so a
// meaning looks the same everywhere and follows the theme.
enum class Tone {
    Good, // valid, aligned, identical
    Bad, // invalid, NaN/Inf, unreadable, a wrong entry
    Warning, // deserves a look
    Information,
    Muted, // secondary text: labels, placeholders
    // Compare statuses (row tints in both trees, legend swatches):
    Changed,
    WithinTolerance,
    DTypeChanged,
    ShapeChanged,
    Removed, // only in A
    Added, // only in B
};

// The colours of each tone derived from the palette they are drawn on: text keeps its hue and is
// lightened on a dark palette; tints are soft on a light palette and deep on a dark one, so the
// palette's own text colour stays readable on them either way. The palette defaults to the
// application's.
bool isDarkPalette(const QPalette &palette = QPalette());
// Text of that tone on the palette's window or base colour.
QColor toneText(Tone tone, const QPalette &palette = QPalette());
// A background of that tone behind text in the palette's text colour (rows, bars, fields).
QColor toneTint(Tone tone, const QPalette &palette = QPalette());
// `text` (already HTML) in that tone, for rich-text labels: "<span style='color:#…'>…</span>".
QString toneHtml(Tone tone, const QString &text, const QPalette &palette = QPalette());
// The style sheet of a line edit holding something it cannot accept.
QString invalidFieldStyle(const QPalette &palette = QPalette());

} // namespace stb
