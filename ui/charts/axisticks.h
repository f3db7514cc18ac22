#pragma once

#include <QLocale>
#include <QString>
#include <QStringList>

namespace stb {

// Round tick values for an axis: first, first + step, … (count of them), all inside [lo, hi],
// the step 1, 2 or 5 times a power of ten. Pure arithmetic, so every chart (histogram, overlay,
// depth) ticks alike and a test pins it down without drawing.
struct AxisTicks {
    double first = 0;
    double step = 0;
    int count = 0;
    double value(int i) const { return first + step * i; }
};

// At most `maxTicks` (>= 2) round ticks inside [lo, hi], the step no finer than `minStep` (1 for
// an axis of whole numbers such as block indices). A range of zero width or not finite gets one
// tick at lo (none if lo is not finite).
AxisTicks niceTicks(double lo, double hi, int maxTicks = 6, double minStep = 0);

// The labels of an axis' ticks, formatted together so they agree: the user's locale (its digit
// grouping and minus sign), just enough decimals to tell the ticks apart (trailing zeros
// dropped: "2.5k, 5k"), SI suffixes (k, M, G, T)
// when the largest tick reaches 10,000 ("64,546" is never shown: "60k"), and an exponent when
// every tick is below 0.001 ("2e-05"). A tick at zero is always "0".
QStringList tickLabels(const AxisTicks &ticks, const QLocale &locale = QLocale());

} // namespace stb
