#pragma once

#include "core/compare/comparison.h"
#include "core/text/nametree.h"

#include <array>
#include <cstddef>
#include <string>
#include <string_view>
#include <vector>

namespace stb {

// The names of a Comparison (every name of either side) as one NameTree, each node holding the
// counts per status of everything below it. Both sides of a compare window show this one tree, so
// their rows line up by construction. Plain data, built off the GUI thread; the names point into
// the Comparison, which must outlive it (CompareResult keeps them together).
struct CompareTree {
    // Per PairStatus, plus one slot for changed tensors within the tolerances (counted there
    // instead of as changed), so a group's counts agree with its rows' colours.
    static constexpr std::size_t kWithinTolerance = kPairStatusCount;
    using Counts = std::array<std::size_t, kPairStatusCount + 1>;

    NameTree names; // leaf i is Comparison::pairs[i]
    std::vector<Counts> counts; // per node; a tensor counts itself once

    // `tolerances`: the comparison judged values (CompareOptions::tolerances).
    static CompareTree build(const Comparison &comparison, bool tolerances = false);

    const NameTree::Node &node(int id) const { return names.node(id); }
    const Counts &countsOf(int id) const { return counts[static_cast<std::size_t>(id)]; }
    // The pair a node stands for, -1 for a group.
    int pairOf(int id) const { return names.node(id).leaf; }
    // The dotted name of a node ("model.layers.3" or a tensor's full name).
    std::string path(int id) const { return names.path(id); }
    // The node of that dotted name (a tensor first, else a group); -1 when there is none.
    int find(std::string_view name) const { return names.find(name); }
    // Tensors below a node that differ (every status but identical, and changes within tolerance).
    static std::size_t differing(const Counts &counts);
};

} // namespace stb
