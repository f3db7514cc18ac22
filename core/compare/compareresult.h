#pragma once

#include "core/compare/comparetree.h"
#include "core/compare/comparison.h"

#include <memory>

namespace stb {

// One finished comparison and everything it points into: the Comparison's tensor pointers live in
// the checkpoints, and the tree's names in the Comparison's pairs, so they travel together.
// Built whole by its constructor (the tree from this object's own pairs) and immutable after.
// Neither copyable nor movable: a copy's or a move's tree would still point into the original's
// strings (short names live inside the std::string itself). Share it as
// std::shared_ptr<const CompareResult> between the window, its models and background jobs.
struct CompareResult {
    CompareResult(std::shared_ptr<const Checkpoint> checkpointA,
        std::shared_ptr<const Checkpoint> checkpointB, const CompareOptions &compareOptions,
        Comparison compared)
        : a(std::move(checkpointA))
        , b(std::move(checkpointB))
        , options(compareOptions)
        , comparison(std::move(compared))
        , tree(CompareTree::build(comparison, options.tolerances))
    { }
    CompareResult(const CompareResult &) = delete;
    CompareResult &operator=(const CompareResult &) = delete;

    const std::shared_ptr<const Checkpoint> a, b;
    const CompareOptions options;
    const Comparison comparison;
    const CompareTree tree; // after `comparison`: built from it

    // Changed, with tolerances given and every element within them: not a difference that matters.
    bool withinTolerance(const TensorPair &pair) const { return stb::withinTolerance(pair, options.tolerances); }
};

} // namespace stb
