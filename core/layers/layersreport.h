#pragma once

#include "core/layers/depthprofile.h"
#include "core/layers/layerdiff.h"
#include "core/layers/repeat.h"
#include "core/report/report.h"

#include <vector>

namespace stb {

// `layers --json`: {"repeats": [{"prefix", "indices", "missing", "roles", "deviations",
// ["profiles", "outliers", "unreadable",] ["repeats"]}]}; "unreadable" names the repeat's
// tensors whose bytes could not be read (their profile values are null). A nested repeat (prefix with "{N}")
// adds "outer_indices" after its prefix, "outer_index" to its deviations and outliers, and its profile series
// are one list per outer index. `profiles`, when given, are indexed like `repeats`. Values that are not
// finite (a block without the role) are null. "missing" lists at most kMaxMissingListed numbers;
// "missing_count" follows it only when it was cut.
Json layersJson(const std::vector<Repeat> &repeats, const std::vector<RepeatProfile> *profiles = nullptr);

// `diff --by-layer --json`: {"repeats": [{"prefix", "indices", "roles": {ROLE: {"rel_l2": [...],
// "cosine": [...]}}, ["repeats"]}]}, one value per index (per outer index and index when
// nested), null where the tensor is missing on a side or not comparable.
Json layerDiffJson(const LayerDiff &diff);

} // namespace stb
