#pragma once

#include "core/compare/comparison.h"
#include "core/report/report.h"

#include <string>

namespace stb {

// `diff --json`: {"a","b","tensors":[...every pair...],"metadata":{"added","removed","changed"},
// "summary":{status: count}, "equivalent"}; metrics a status does not define are null.
Json comparisonJson(const Checkpoint &a, const Checkpoint &b, const Comparison &comparison);
// The same as Markdown (the differing tensors only), for pasting into a review.
std::string comparisonMarkdown(const Checkpoint &a, const Checkpoint &b, const Comparison &comparison);
// One side of a pair for a table: "BF16 [4096, 4096]", "gptq [4096, 4096]", "-" when absent.
std::string pairSideText(const Comparison &comparison, const TensorPair &pair, bool sideA);
// "3 changed, 1 only in b, 291 identical"
std::string comparisonSummaryText(const Comparison &comparison);

} // namespace stb
