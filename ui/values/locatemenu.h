#pragma once

#include <QString>

#include <functional>

class QMenu;

namespace stb {

// What Locate finds in a tensor (core's locateValues computes them all in one scan).
enum class LocateTarget { FirstNaN, FirstInf, Min, Max, AbsMax };

// Adds one action per target to `menu` ("First NaN", "First Inf", "Minimum", "Maximum",
// "Largest |x|"), each calling `triggered` with its target: the Values pane's Locate button, the
// Histogram pane's and the audit table's context menu offer the same entries this way.
void addLocateActions(QMenu *menu, const std::function<void(LocateTarget)> &triggered);

// "NaN", "infinity", "finite value": what a target looks for, for "the tensor has no …".
QString locateTargetNoun(LocateTarget target);

} // namespace stb
