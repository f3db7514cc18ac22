#include "core/compare/comparetree.h"

#include "core/text/naturalorder.h"

#include <algorithm>
#include <map>

namespace stb {

CompareTree CompareTree::build(const Comparison &comparison, bool tolerances)
{
    CompareTree tree;
    tree.nodes.emplace_back();
    tree.nodes.reserve(comparison.pairs.size() * 2 + 1);
    tree.nodeOfPair.reserve(comparison.pairs.size());
    // Groups by (parent, segment). An ordered map keeps this simple; the names are already sorted,
    // so most look-ups hit the group made just before.
    std::map<std::pair<int, std::string_view>, int> groups;
    auto add = [&tree](int parent, std::string_view name, int pair) {
        const int id = static_cast<int>(tree.nodes.size());
        Node &node = tree.nodes.emplace_back();
        node.name = name;
        node.parent = parent;
        node.pair = pair;
        tree.nodes[static_cast<std::size_t>(parent)].children.push_back(id);
        return id;
    };
    for (std::size_t p = 0; p < comparison.pairs.size(); ++p) {
        const std::string_view name = comparison.pairs[p].name;
        int parent = 0;
        std::size_t start = 0;
        for (std::size_t dot = name.find('.'); dot != std::string_view::npos; dot = name.find('.', start)) {
            const auto key = std::make_pair(parent, name.substr(start, dot - start));
            auto it = groups.find(key);
            if (it == groups.end())
                it = groups.emplace(key, add(parent, key.second, -1)).first;
            parent = it->second;
            start = dot + 1;
        }
        const int id = add(parent, name.substr(start), static_cast<int>(p));
        tree.nodeOfPair.push_back(id);
        const TensorPair &pair = comparison.pairs[p];
        const bool tolerable = withinTolerance(pair, tolerances);
        ++tree.nodes[static_cast<std::size_t>(id)]
              .counts[tolerable ? kWithinTolerance : static_cast<std::size_t>(pair.status)];
    }
    // The same order as TensorTreeModel: natural, a tensor before a group of the same name.
    for (auto &node : tree.nodes) {
        std::stable_sort(node.children.begin(), node.children.end(), [&tree](int a, int b) {
            const Node &x = tree.nodes[static_cast<std::size_t>(a)],
                       &y = tree.nodes[static_cast<std::size_t>(b)];
            if (const int c = naturalCompare(x.name, y.name))
                return c < 0;
            return (x.pair >= 0) > (y.pair >= 0);
        });
        for (std::size_t row = 0; row < node.children.size(); ++row)
            tree.nodes[static_cast<std::size_t>(node.children[row])].row = static_cast<int>(row);
    }
    for (std::size_t id = tree.nodes.size() - 1; id > 0; --id) {
        Counts &into = tree.nodes[static_cast<std::size_t>(tree.nodes[id].parent)].counts;
        for (std::size_t s = 0; s < into.size(); ++s)
            into[s] += tree.nodes[id].counts[s];
    }
    return tree;
}

std::string CompareTree::path(int node) const
{
    std::string out;
    for (int n = node; n > 0; n = nodes[static_cast<std::size_t>(n)].parent) {
        const std::string_view name = nodes[static_cast<std::size_t>(n)].name;
        out = n == node ? std::string(name) : std::string(name) + '.' + out;
    }
    return out;
}

int CompareTree::find(const Comparison &comparison, std::string_view name) const
{
    // Pairs are sorted by name (compareCheckpoints' contract): a tensor is a binary search away.
    const auto &pairs = comparison.pairs;
    const auto it = std::lower_bound(
        pairs.begin(), pairs.end(), name, [](const TensorPair &pair, std::string_view n) { return pair.name < n; });
    if (it != pairs.end() && it->name == name)
        return nodeOfPair[static_cast<std::size_t>(it - pairs.begin())];
    int node = 0;
    std::size_t start = 0;
    while (start <= name.size()) {
        const std::size_t dot = std::min(name.find('.', start), name.size());
        const std::string_view segment = name.substr(start, dot - start);
        const auto &children = nodes[static_cast<std::size_t>(node)].children;
        const auto it = std::find_if(children.begin(), children.end(), [&](int child) {
            const Node &c = nodes[static_cast<std::size_t>(child)];
            return c.pair < 0 && c.name == segment;
        });
        if (it == children.end())
            return -1;
        node = *it;
        start = dot + 1;
    }
    return node;
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
