#pragma once

#include "core/compare/comparison.h"

#include <array>
#include <cstddef>
#include <string>
#include <string_view>
#include <vector>

namespace stb {

// The names of a Comparison (every name of either side) as one tree of dotted segments, children
// in natural order, each group holding the counts per status of everything below it. Both sides
// of a compare window show this one tree, so their rows line up by construction. Plain data,
// built off the GUI thread; the names point into the Comparison, which must outlive it.
struct CompareTree {
    // Per PairStatus, plus one slot for changed tensors within the tolerances (counted there
    // instead of as changed), so a group's counts agree with its rows' colours.
    static constexpr std::size_t kWithinTolerance = kPairStatusCount;
    using Counts = std::array<std::size_t, kPairStatusCount + 1>;
    struct Node {
        std::string_view name; // one segment ("up_proj"), empty for the root
        int parent = -1;
        int row = 0;
        int pair = -1; // index into Comparison::pairs, -1 for a group
        std::vector<int> children;
        Counts counts {}; // a tensor counts itself once
    };

    std::vector<Node> nodes; // nodes[0] is the invisible root; a child's id exceeds its parent's
    std::vector<int> nodeOfPair; // indexed like Comparison::pairs

    // `tolerances`: the comparison judged values (CompareOptions::tolerances).
    static CompareTree build(const Comparison &comparison, bool tolerances = false);
    // The dotted name of a node ("model.layers.3" or a tensor's full name).
    std::string path(int node) const;
    // The node of that dotted name (a tensor first, else a group); -1 when there is none.
    int find(const Comparison &comparison, std::string_view name) const;
    // Tensors below a node that differ (every status but identical, and changes within tolerance).
    static std::size_t differing(const Counts &counts);
};

} // namespace stb
