#include "core/text/nametree.h"

#include "core/format/prefault.h"
#include "core/text/naturalorder.h"

#include <algorithm>
#include <cstdint>
#include <functional>
#include <unordered_map>

namespace stb {

namespace {

// Display order of siblings: natural, then a leaf before a group of the same segment.
bool siblingLess(const NameTree::Node &x, const NameTree::Node &y)
{
    if (const int c = naturalCompare(x.name, y.name))
        return c < 0;
    return !x.isGroup() && y.isGroup();
}

// The groups of the tree layout, found before any node is made, so that the nodes are allocated
// once at their exact size and written in one go. Group 0 is the root.
struct Grouping {
    struct Group {
        std::string_view segment;
        int parent; // group number
        std::uint32_t firstName; // the name that made it
    };
    std::vector<Group> groups { Group { {}, -1, 0 } };
    std::vector<int> parentOf; // per name, the group of its last segment
};

// (parent group, segment) -> group number, open addressing over one array of group numbers: no
// allocation per group (a node-based map made one per group, as many as the names in
// "layers.N.blockM.weight").
class GroupIndex {
public:
    // Room for `expected` groups without growing, faulted in at once.
    explicit GroupIndex(std::size_t expected)
    {
        std::size_t size = 1024;
        while (size < 2 * expected)
            size *= 2;
        m_slots.reserve(size);
        prefaultForWriting(m_slots.data(), size * sizeof(int));
        m_slots.resize(size, 0);
        m_mask = size - 1;
    }

    int findOrAdd(
        std::vector<Grouping::Group> &groups, int parent, std::string_view segment, std::size_t name)
    {
        if (2 * groups.size() >= m_slots.size())
            grow(groups);
        for (std::size_t slot = hash(parent, segment) & m_mask;; slot = (slot + 1) & m_mask) {
            const int g = m_slots[slot];
            if (g == 0) {
                m_slots[slot] = static_cast<int>(groups.size());
                groups.push_back({ segment, parent, static_cast<std::uint32_t>(name) });
                return m_slots[slot];
            }
            const auto &group = groups[static_cast<std::size_t>(g)];
            if (group.parent == parent && group.segment == segment)
                return g;
        }
    }

private:
    static std::size_t hash(int parent, std::string_view segment)
    {
        return std::hash<std::string_view>()(segment)
            ^ (static_cast<std::size_t>(parent) * 0x9E3779B97F4A7C15ull);
    }
    void grow(const std::vector<Grouping::Group> &groups)
    {
        m_slots.assign(std::max<std::size_t>(1024, 2 * m_slots.size()), 0);
        m_mask = m_slots.size() - 1;
        for (std::size_t g = 1; g < groups.size(); ++g) {
            std::size_t slot = hash(groups[g].parent, groups[g].segment) & m_mask;
            while (m_slots[slot] != 0)
                slot = (slot + 1) & m_mask;
            m_slots[slot] = static_cast<int>(g);
        }
    }

    std::vector<int> m_slots; // 0: empty (group 0, the root, is never looked up)
    std::size_t m_mask = 0;
};

// Checkpoint names come grouped ("l.0.a", "l.0.b", "l.1.a"): the groups a name shares with the
// one before it are taken from it, and only the rest are looked up.
Grouping groupNames(std::span<const std::string_view> names)
{
    Grouping out;
    out.parentOf.resize(names.size());
    // Room for a group per dot, the most there can be: never a copy as it grows (a copy of 100,000
    // groups to a new block was 585 page faults when layers.N.blockM.weight, 1.01 groups a name,
    // outgrew room for one a name). Address space only: the pages the groups reach are faulted
    // on huge pages where the kernel allows. The index is sized for a group a name, and grows.
    std::size_t dots = 0;
    for (const std::string_view name : names)
        dots += static_cast<std::size_t>(std::count(name.begin(), name.end(), '.'));
    out.groups.reserve(dots + 1);
    adviseHugePages(out.groups.data(), (dots + 1) * sizeof(Grouping::Group));
    GroupIndex index(std::min(dots, names.size()) + 1);
    struct Step {
        std::string_view segment;
        int group;
    };
    std::vector<Step> path; // the previous name's groups, outermost first
    for (std::size_t i = 0; i < names.size(); ++i) {
        const std::string_view name = names[i];
        int parent = 0;
        std::size_t start = 0, depth = 0;
        bool shared = true;
        for (std::size_t dot = name.find('.'); dot != std::string_view::npos;
             dot = name.find('.', start), ++depth) {
            const std::string_view segment = name.substr(start, dot - start);
            shared = shared && depth < path.size() && path[depth].segment == segment;
            if (shared) {
                parent = path[depth].group;
            } else {
                parent = index.findOrAdd(out.groups, parent, segment, i);
                path.resize(depth);
                path.push_back({ segment, parent });
            }
            start = dot + 1;
        }
        path.resize(depth);
        out.parentOf[i] = parent;
    }
    return out;
}

} // namespace

NameTree::NameTree()
{
    m_nodes.emplace_back();
}

NameTree::NameTree(const NameTree &other)
    : m_nodes(other.m_nodes)
    , m_childIds(other.m_childIds)
    , m_nodeOfLeaf(other.m_nodeOfLeaf)
    , m_leafNames(other.m_leafNames)
    , m_adopted(other.m_adopted)
    , m_layout(other.m_layout)
{
    for (Node &node : m_nodes) {
        if (!node.children.empty())
            node.children = { m_childIds.data() + (node.children.data() - other.m_childIds.data()),
                node.children.size() };
    }
}

NameTree &NameTree::operator=(const NameTree &other)
{
    if (this != &other)
        *this = NameTree(other);
    return *this;
}

void NameTree::setChildren(const std::vector<std::vector<int>> &lists)
{
    std::size_t total = 0;
    for (const auto &list : lists)
        total += list.size();
    m_childIds.clear();
    m_childIds.reserve(total);
    for (const auto &list : lists)
        m_childIds.insert(m_childIds.end(), list.begin(), list.end());
    std::size_t at = 0;
    for (std::size_t id = 0; id < m_nodes.size(); ++id) {
        m_nodes[id].children = { m_childIds.data() + at, lists[id].size() };
        at += lists[id].size();
    }
}

std::vector<std::vector<int>> NameTree::childLists() const
{
    std::vector<std::vector<int>> lists(m_nodes.size());
    for (std::size_t id = 0; id < m_nodes.size(); ++id)
        lists[id].assign(m_nodes[id].children.begin(), m_nodes[id].children.end());
    return lists;
}

NameTree NameTree::build(std::span<const std::string_view> names, Layout layout)
{
    NameTree tree;
    tree.m_layout = layout;
    Grouping grouping;
    if (layout == Layout::Tree)
        grouping = groupNames(names);
    else
        grouping.parentOf.assign(names.size(), 0);
    // Ids as if nodes were made name by name: a name's new groups (outermost first), then its
    // leaf; so a child's id exceeds its parent's.
    const auto &groups = grouping.groups;
    std::vector<int> nodeOfGroup(groups.size(), kRoot);
    tree.m_nodeOfLeaf.resize(names.size());
    int next = 1;
    for (std::size_t i = 0, g = 1; i < names.size(); ++i) {
        for (; g < groups.size() && groups[g].firstName == i; ++g)
            nodeOfGroup[g] = next++;
        tree.m_nodeOfLeaf[i] = next++;
    }
    // Allocated once and faulted in at once (huge pages where the kernel allows): a hundred
    // thousand names make twice as many nodes, megabytes a page fault at a time otherwise.
    auto &nodes = tree.m_nodes;
    const auto count = static_cast<std::size_t>(next);
    nodes.reserve(count);
    prefaultForWriting(nodes.data(), count * sizeof(Node));
    nodes.resize(count);
    for (std::size_t g = 1; g < groups.size(); ++g) {
        Node &node = nodes[static_cast<std::size_t>(nodeOfGroup[g])];
        node.name = groups[g].segment;
        node.parent = nodeOfGroup[static_cast<std::size_t>(groups[g].parent)];
    }
    for (std::size_t i = 0; i < names.size(); ++i) {
        Node &node = nodes[static_cast<std::size_t>(tree.m_nodeOfLeaf[i])];
        const std::string_view name = names[i];
        const int parent = grouping.parentOf[i];
        // The leaf's segment: what follows its group's path (the whole name in flat layout).
        node.name = layout == Layout::Flat ? name : name.substr(name.rfind('.') + 1);
        node.parent = nodeOfGroup[static_cast<std::size_t>(parent)];
        node.leaf = static_cast<int>(i);
    }
    tree.m_leafNames.reserve(names.size());
    prefaultForWriting(tree.m_leafNames.data(), names.size() * sizeof(std::string_view));
    tree.m_leafNames.assign(names.begin(), names.end());
    // Children in id order (the order the names made them), all in one array: a node's part
    // starts where its predecessors' parts end (a counting sort by parent).
    std::vector<int> start(count + 1, 0);
    for (std::size_t id = 1; id < count; ++id)
        ++start[static_cast<std::size_t>(nodes[id].parent) + 1];
    for (std::size_t id = 0; id < count; ++id)
        start[id + 1] += start[id];
    auto &childIds = tree.m_childIds;
    childIds.reserve(count - 1);
    prefaultForWriting(childIds.data(), (count - 1) * sizeof(int));
    childIds.resize(count - 1);
    {
        std::vector<int> next(start.begin(), start.end() - 1);
        for (std::size_t id = 1; id < count; ++id)
            childIds[static_cast<std::size_t>(next[static_cast<std::size_t>(nodes[id].parent)]++)] = static_cast<int>(id);
    }
    for (std::size_t id = 0; id < count; ++id) {
        const auto first = childIds.begin() + start[id], last = childIds.begin() + start[id + 1];
        if (last - first > 1)
            std::stable_sort(first, last, [&nodes](int a, int b) {
                return siblingLess(nodes[static_cast<std::size_t>(a)], nodes[static_cast<std::size_t>(b)]);
            });
        for (auto it = first; it != last; ++it)
            nodes[static_cast<std::size_t>(*it)].row = static_cast<int>(it - first);
        nodes[id].children = { childIds.data() + start[id], static_cast<std::size_t>(last - first) };
    }
    return tree;
}

void NameTree::adopt(std::span<const std::pair<std::size_t, std::size_t>> childToParent)
{
    std::vector<char> moved(m_nodes.size(), 0), adopter(m_nodes.size(), 0);
    std::vector<int> adopters;
    std::vector<std::vector<int>> lists; // the children, made editable at the first adoption
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
        if (lists.empty())
            lists = childLists();
        moved[ci] = 1;
        if (!adopter[pi])
            adopters.push_back(p);
        adopter[pi] = 1;
        m_nodes[ci].parent = p;
        m_nodes[ci].name = childName.substr(prefix);
        lists[pi].push_back(c);
        m_adopted.emplace(childName, c);
    }
    if (adopters.empty())
        return;
    // Drop the moved nodes from their old groups, then the groups left empty (a child's id exceeds
    // its parent's, so one backward pass empties nested groups too).
    std::vector<char> removed(m_nodes.size(), 0);
    for (std::size_t id = m_nodes.size(); id-- > 0;) {
        if (adopter[id])
            continue;
        std::erase_if(lists[id], [&](int c) {
            const auto ci = static_cast<std::size_t>(c);
            return (moved[ci] && m_nodes[ci].parent != static_cast<int>(id)) || removed[ci];
        });
        if (id != kRoot && m_nodes[id].isGroup() && lists[id].empty())
            removed[id] = 1;
    }
    for (int p : adopters) {
        auto &children = lists[static_cast<std::size_t>(p)];
        std::stable_sort(children.begin(), children.end(), [this](int a, int b) {
            return siblingLess(m_nodes[static_cast<std::size_t>(a)], m_nodes[static_cast<std::size_t>(b)]);
        });
    }
    setChildren(lists);
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
    std::vector<std::vector<int>> lists;
    lists.reserve(order.size());
    for (int old : order) {
        Node n = m_nodes[static_cast<std::size_t>(old)];
        n.parent = n.parent < 0 ? -1 : newId[static_cast<std::size_t>(n.parent)];
        auto &list = lists.emplace_back();
        for (const int child : n.children)
            list.push_back(newId[static_cast<std::size_t>(child)]);
        nodes.push_back(n);
    }
    for (const auto &list : lists) {
        for (std::size_t row = 0; row < list.size(); ++row)
            nodes[static_cast<std::size_t>(list[row])].row = static_cast<int>(row);
    }
    m_nodes = std::move(nodes);
    setChildren(lists);
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
