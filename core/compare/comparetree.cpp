#include "core/compare/comparetree.h"

namespace stb {

CompareTree CompareTree::build(const Comparison &comparison, bool tolerances)
{
    std::vector<std::string_view> names;
    names.reserve(comparison.pairs.size());
    for (const TensorPair &pair : comparison.pairs)
        names.emplace_back(pair.name);
    CompareTree tree;
    tree.names = NameTree::build(names);
    tree.counts = tree.names.sum<Counts>(
        [&](std::size_t p) {
            const TensorPair &pair = comparison.pairs[p];
            Counts one {};
            ++one[withinTolerance(pair, tolerances) ? kWithinTolerance : static_cast<std::size_t>(pair.status)];
            return one;
        },
        [](Counts &into, const Counts &from) {
            for (std::size_t s = 0; s < into.size(); ++s)
                into[s] += from[s];
        });
    return tree;
}

std::size_t CompareTree::differing(const Counts &counts)
{
    std::size_t n = 0;
    for (std::size_t s = 0; s < kPairStatusCount; ++s)
        n += s == static_cast<std::size_t>(PairStatus::Identical) ? 0 : counts[s];
    // kWithinTolerance is left out: such a change is not one that matters.
    return n;
}

} // namespace stb
