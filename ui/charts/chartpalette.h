#pragma once

#include <QColor>

class QChart;
class QPalette;

namespace stb {

// Colours a chart from its widget's palette, which Qt Charts' themes ignore: no card behind the
// plot, the plot area in the base colour, labels, titles and legend in the text colour, axis
// lines and grid in the mid tones. So a dark desktop theme gets a dark chart with readable
// labels. Call it after the axes are attached (it colours the ones present).
void applyPalette(QChart *chart, const QPalette &palette);

// The colours of the data drawn on a chart, from the palette they are drawn on: the n-th series
// (0: a histogram, the A side; 1: the B side), its fill (translucent when series overlap), and
// the marks that point things out (outliers). Lighter on a dark palette, so they stand out
// from a dark plot area as they do from a white one.
QColor seriesColor(int series, const QPalette &palette);
QColor seriesFill(int series, const QPalette &palette, bool overlapping = false);
QColor markColor(const QPalette &palette);

} // namespace stb
