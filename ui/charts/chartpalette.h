#pragma once

class QChart;
class QPalette;

namespace stb {

// Colours a chart from its widget's palette, which Qt Charts' themes ignore: no card behind the
// plot, the plot area in the base colour, labels, titles and legend in the text colour, axis
// lines and grid in the mid tones. So a dark desktop theme gets a dark chart with readable
// labels. Call it after the axes are attached (it colours the ones present).
void applyPalette(QChart *chart, const QPalette &palette);

} // namespace stb
