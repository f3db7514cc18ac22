#pragma once

#include <QString>

class QCategoryAxis;
class QFont;

namespace stb {

// A value axis over [lo, hi] whose ticks are niceTicks and whose labels are tickLabels (grouped
// digits, SI suffixes): a QCategoryAxis with its labels on the values, since QValueAxis labels
// only take a printf format. Internal to ui/charts/.
QCategoryAxis *makeTickAxis(double lo, double hi, int maxTicks, double minStep = 0);

// A count axis drawn over log10 of the counts, from log10(floor) to log10(top): ticks at the powers
// of ten ("1", "10", "100", "1,000", "10k", "1M"), or at 1, 2, 5 … within a single decade.
QCategoryAxis *makeLogCountAxis(double floor, double top);

// Ticks that fit an axis `pixels` long with labels about `labelPixels` wide (at least two).
int ticksThatFit(double pixels, double labelPixels);

} // namespace stb
