#pragma once

#include "core/compare/comparison.h"
#include "core/compare/comparetree.h"

#include <memory>

namespace stb {

// One finished comparison and everything it points into: the Comparison's tensor pointers live in
// the checkpoints, and the tree's names in the Comparison, so they travel together. Immutable,
// shared between the window, its models and the background jobs that read tensor bytes.
struct CompareResult {
    std::shared_ptr<const Checkpoint> a, b;
    CompareOptions options;
    Comparison comparison;
    CompareTree tree;

    // Changed, with tolerances given and every element within them: not a difference that matters.
    bool withinTolerance(const TensorPair &pair) const { return stb::withinTolerance(pair, options.tolerances); }
};

} // namespace stb
