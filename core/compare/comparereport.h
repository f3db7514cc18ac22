#pragma once

#include "core/compare/comparison.h"
#include "core/report/report.h"

#include <string>

namespace stb {

// `diff --json`: {"a","b","tolerances","tensors":[...every pair...],"metadata":{"added","removed",
// "changed"},"summary":{status: count, "within_tolerance"}, "equivalent"}; metrics a status does not
// define are null, and "argmax" when no element differs. An unreadable pair has "readable": false
// and "unreadable": {"a": why or null, "b": why or null}. `options` are the tolerances the
// comparison ran with: "tolerances" is {"atol","rtol"}, or null when bytes were compared; a
// changed pair within them has "within_tolerance": true.
Json comparisonJson(
    const Checkpoint &a, const Checkpoint &b, const Comparison &comparison, const CompareOptions &options = {});
// The same as Markdown (the differing tensors only), for pasting into a review, with the
// tolerances stated and changes within them said so.
std::string comparisonMarkdown(
    const Checkpoint &a, const Checkpoint &b, const Comparison &comparison, const CompareOptions &options = {});
// "identical", "changed", "dtype changed", "shape changed", "only in A", "only in B",
// "unreadable": a status as people read it (statusName is the identifier).
std::string_view statusText(PairStatus status);
// Which side of an unreadable pair could not be read, and why (sideUnreadableReason): "in B:
// bytes 78–86 lie past the end of the file (file is 78 bytes)", "in A: …; in B: …". Empty for
// a readable pair. `a` and `b` are the checkpoints compared.
std::string unreadableSidesText(const Checkpoint &a, const Checkpoint &b, const TensorPair &pair);
// "atol 0.001, rtol 0 (|a − b| ≤ atol + rtol·|b| counts as equal)", or "none: every byte compared"
std::string tolerancesText(const CompareOptions &options);
// One side of a pair for a table: "BF16 [4096, 4096]", "gptq [4096, 4096]", "-" when absent.
std::string pairSideText(const Comparison &comparison, const TensorPair &pair, bool sideA);
// "2 changed · 1 within tolerance · 1 only in B · 291 identical" (changed within tolerance counted
// apart when `tolerances`): the words of the GUI's status bar and details too.
std::string comparisonSummaryText(const Comparison &comparison, bool tolerances = false);

} // namespace stb
