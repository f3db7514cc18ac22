#include "ui/charts/tickaxis.h"

#include "ui/charts/axisticks.h"

#include <QCategoryAxis>

#include <algorithm>
#include <cmath>

namespace stb {

namespace {

QCategoryAxis *newAxis(double lo, double hi, double before)
{
    auto *axis = new QCategoryAxis;
    axis->setLabelsPosition(QCategoryAxis::AxisLabelsPositionOnValue);
    axis->setStartValue(before); // below every tick: the start has no label of its own
    axis->setRange(lo, hi);
    return axis;
}

} // namespace

QCategoryAxis *makeTickAxis(double lo, double hi, int maxTicks, double minStep)
{
    const AxisTicks ticks = niceTicks(lo, hi, maxTicks, minStep);
    const QStringList labels = tickLabels(ticks);
    auto *axis = newAxis(lo, hi, (ticks.count ? std::min(lo, ticks.first) : lo) - std::max(1.0, std::fabs(lo)));
    for (int i = 0; i < ticks.count; ++i)
        axis->append(labels[i], ticks.value(i));
    return axis;
}

QCategoryAxis *makeLogCountAxis(double floor, double top)
{
    const double lo = std::log10(floor), hi = std::log10(top);
    auto *axis = newAxis(lo, hi, lo - 1);
    const int first = static_cast<int>(std::ceil(lo)), last = static_cast<int>(std::floor(hi));
    for (int k = std::max(first, 0); k <= last; ++k) {
        for (const double m : { 1.0, 2.0, 5.0 }) {
            if (m > 1 && last - first >= 2)
                break; // several decades: their powers are enough
            const double count = m * std::pow(10.0, k);
            if (std::log10(count) <= hi)
                axis->append(tickLabels({ count, 0, 1 }).value(0), std::log10(count));
        }
    }
    return axis;
}

int ticksThatFit(double pixels, double labelPixels)
{
    return std::max(2, static_cast<int>(pixels / std::max(1.0, labelPixels)));
}

} // namespace stb
