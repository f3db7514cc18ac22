#include "core/text/nametree.h"

#include "core/text/naturalorder.h"

#include <algorithm>
#include <functional>
#include <unordered_map>

namespace stb {

namespace {

// Groups are found by (parent node, segment): one hash for all levels keeps the build O(n).
struct GroupKey {
    int parent;
    std::string_view segment;
    bool operator==(const GroupKey &) const = default;
};
struct GroupKeyHash {
    std::size_t operator()(const GroupKey &key) const
    {
        return std::hash<std::string_view>()(key.segment) * 31u + static_cast<std::size_t>(key.parent);
    }
};

// Display order of siblings: natural, then a leaf before a group of the same segment.
bool siblingLess(const NameTree::Node &x, const NameTree::Node &y)
{
    if (const int c = naturalCompare(x.name, y.name))
        return c < 0;
    return !x.isGroup() && y.isGroup();
}

} // namespace

NameTree::NameTree()
{
    m_nodes.emplace_back();
}

NameTree NameTree::build(std::span<const std::string_view> names, Layout layout)
{
    NameTree tree;
    tree.m_layout = layout;
    auto &nodes = tree.m_nodes;
    // At most one node per segment plus the root: reserved exactly, so that no reallocation
    // moves a hundred thousand nodes (untouched capacity costs no memory).
    std::size_t segments = names.size();
    if (layout == Layout::Tree) {
        for (const std::string_view name : names)
            segments += static_cast<std::size_t>(std::count(name.begin(), name.end(), '.'));
    }
    nodes.reserve(segments + 1);
    tree.m_nodeOfLeaf.resize(names.size());
    tree.m_leafNames.assign(names.begin(), names.end());
    std::unordered_map<GroupKey, int, GroupKeyHash> groups;
    if (layout == Layout::Tree)
        groups.reserve(names.size());
    auto add = [&nodes](int parent, std::string_view name, int leaf) {
        const int id = static_cast<int>(nodes.size());
        Node &node = nodes.emplace_back();
        node.name = name;
        node.parent = parent;
        node.leaf = leaf;
        nodes[static_cast<std::size_t>(parent)].children.push_back(id);
        return id;
    };
    for (std::size_t i = 0; i < names.size(); ++i) {
        const std::string_view name = names[i];
        int parent = kRoot;
        std::size_t start = 0;
        if (layout == Layout::Tree) {
            for (std::size_t dot = name.find('.'); dot != std::string_view::npos;
                 dot = name.find('.', start)) {
                const std::string_view segment = name.substr(start, dot - start);
                const auto [it, inserted] = groups.try_emplace(GroupKey { parent, segment }, 0);
                if (inserted)
                    it->second = add(parent, segment, -1);
                parent = it->second;
                start = dot + 1;
            }
        }
        tree.m_nodeOfLeaf[i] = add(parent, name.substr(start), static_cast<int>(i));
    }
    for (auto &node : nodes) {
        std::stable_sort(node.children.begin(), node.children.end(), [&nodes](int a, int b) {
            return siblingLess(nodes[static_cast<std::size_t>(a)], nodes[static_cast<std::size_t>(b)]);
        });
        for (std::size_t row = 0; row < node.children.size(); ++row)
            nodes[static_cast<std::size_t>(node.children[row])].row = static_cast<int>(row);
    }
    return tree;
}

void NameTree::adopt(std::span<const std::pair<std::size_t, std::size_t>> childToParent)
{
    std::vector<char> moved(m_nodes.size(), 0), adopter(m_nodes.size(), 0);
    std::vector<int> adopters;
    for (const auto &[childLeaf, parentLeaf] : childToParent) {
        if (childLeaf >= m_nodeOfLeaf.size() || parentLeaf >= m_nodeOfLeaf.size() || childLeaf == parentLeaf)
            continue;
        const int c = m_nodeOfLeaf[childLeaf], p = m_nodeOfLeaf[parentLeaf];
        const auto ci = static_cast<std::size_t>(c), pi = static_cast<std::size_t>(p);
        if (moved[ci] || adopter[ci] || moved[pi])
            continue;
        // The child's name must lie inside the parent's group: "l.q." for "l.q.qweight".
        const std::string_view parentName = m_leafNames[parentLeaf], childName = m_leafNames[childLeaf];
        const std::size_t prefix = parentName.size() - m_nodes[pi].name.size();
        if (childName.size() <= prefix || childName.substr(0, prefix) != parentName.substr(0, prefix))
            continue;
        moved[ci] = 1;
        if (!adopter[pi])
            adopters.push_back(p);
        adopter[pi] = 1;
        m_nodes[ci].parent = p;
        m_nodes[ci].name = childName.substr(prefix);
        m_nodes[pi].children.push_back(c);
        m_adopted.emplace(childName, c);
    }
    if (adopters.empty())
        return;
    // Drop the moved nodes from their old groups, then the groups left empty (a child's id exceeds
    // its parent's, so one backward pass empties nested groups too).
    std::vector<char> removed(m_nodes.size(), 0);
    for (std::size_t id = m_nodes.size(); id-- > 0;) {
        Node &n = m_nodes[id];
        if (adopter[id])
            continue;
        std::erase_if(n.children, [&](int c) {
            const auto ci = static_cast<std::size_t>(c);
            return (moved[ci] && m_nodes[ci].parent != static_cast<int>(id)) || removed[ci];
        });
        if (id != kRoot && n.isGroup() && n.children.empty())
            removed[id] = 1;
    }
    for (int p : adopters) {
        auto &children = m_nodes[static_cast<std::size_t>(p)].children;
        std::stable_sort(children.begin(), children.end(), [this](int a, int b) {
            return siblingLess(m_nodes[static_cast<std::size_t>(a)], m_nodes[static_cast<std::size_t>(b)]);
        });
    }
    renumber();
}

void NameTree::renumber()
{
    // Preorder from the root over the children lists: every reachable node once, a parent first.
    std::vector<int> order, newId(m_nodes.size(), -1);
    order.reserve(m_nodes.size());
    std::vector<int> stack { kRoot };
    while (!stack.empty()) {
        const int id = stack.back();
        stack.pop_back();
        newId[static_cast<std::size_t>(id)] = static_cast<int>(order.size());
        order.push_back(id);
        const auto &children = m_nodes[static_cast<std::size_t>(id)].children;
        stack.insert(stack.end(), children.rbegin(), children.rend());
    }
    std::vector<Node> nodes;
    nodes.reserve(order.size());
    for (int old : order) {
        Node n = std::move(m_nodes[static_cast<std::size_t>(old)]);
        n.parent = n.parent < 0 ? -1 : newId[static_cast<std::size_t>(n.parent)];
        for (std::size_t row = 0; row < n.children.size(); ++row)
            n.children[row] = newId[static_cast<std::size_t>(n.children[row])];
        nodes.push_back(std::move(n));
    }
    for (auto &node : nodes) {
        for (std::size_t row = 0; row < node.children.size(); ++row)
            nodes[static_cast<std::size_t>(node.children[row])].row = static_cast<int>(row);
    }
    m_nodes = std::move(nodes);
    for (auto &id : m_nodeOfLeaf)
        id = newId[static_cast<std::size_t>(id)];
    for (auto &[name, id] : m_adopted)
        id = newId[static_cast<std::size_t>(id)];
}

std::string NameTree::path(int id) const
{
    if (id <= kRoot)
        return {};
    if (const int leaf = node(id).leaf; leaf >= 0)
        return std::string(m_leafNames[static_cast<std::size_t>(leaf)]);
    std::size_t length = 0;
    for (int n = id; n > kRoot; n = node(n).parent)
        length += node(n).name.size() + 1;
    std::string out(length - 1, '.');
    std::size_t end = out.size();
    for (int n = id; n > kRoot; n = node(n).parent) {
        const std::string_view name = node(n).name;
        end -= name.size();
        std::copy(name.begin(), name.end(), out.begin() + static_cast<std::ptrdiff_t>(end));
        if (end > 0)
            --end; // the dot, already in place
    }
    return out;
}

int NameTree::child(int parent, std::string_view segment, bool group) const
{
    // Children are sorted by natural order, which may tie distinct spellings ("7" and "007"):
    // search the tied range for the exact segment.
    const auto &children = node(parent).children;
    auto it = std::lower_bound(children.begin(), children.end(), segment,
        [this](int c, std::string_view s) { return naturalCompare(node(c).name, s) < 0; });
    for (; it != children.end() && naturalCompare(node(*it).name, segment) == 0; ++it) {
        if (node(*it).name == segment && node(*it).isGroup() == group)
            return *it;
    }
    return -1;
}

int NameTree::find(std::string_view dottedName) const
{
    if (const auto it = m_adopted.find(dottedName); it != m_adopted.end())
        return it->second; // under its new parent, no longer where its dots lead
    if (m_layout == Layout::Flat)
        return child(kRoot, dottedName, false);
    int parent = kRoot;
    std::size_t start = 0;
    for (std::size_t dot = dottedName.find('.'); dot != std::string_view::npos;
         dot = dottedName.find('.', start)) {
        parent = child(parent, dottedName.substr(start, dot - start), true);
        if (parent < 0)
            return -1;
        start = dot + 1;
    }
    const std::string_view last = dottedName.substr(start);
    const int leaf = child(parent, last, false);
    return leaf >= 0 ? leaf : child(parent, last, true);
}

} // namespace stb
