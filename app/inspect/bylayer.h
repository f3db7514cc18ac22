#pragma once

#include "core/compare/comparison.h"
#include "core/layers/layerdiff.h"

#include <string>
#include <string_view>

namespace stb::inspect {

// `diff --by-layer`: the comparison's rel-L2 and cosine per role over depth. Text: one row per
// block (nested repeats: only blocks that changed) with the role that changed most and the
// lowest cosine, capped and escaped; JSON: layerDiffJson.
void printByLayer(const Comparison &comparison, bool json);

// Text of the layers commands: a name escaped and cut to a bound (its length said when cut), and
// a value in 6 significant digits ("-" when not finite).
std::string shownName(std::string_view name);
std::string shownValue(double value);
// Prints each line of `text` after `indent`.
void printIndented(const std::string &text, const std::string &indent);

} // namespace stb::inspect
