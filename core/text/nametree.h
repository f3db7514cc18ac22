#pragma once

#include "core/format/prefault.h"

#include <cstddef>
#include <span>
#include <string>
#include <string_view>
#include <unordered_map>
#include <utility>
#include <vector>

namespace stb {

// Dotted names ("model.layers.3.mlp.up_proj.weight") as a tree of their segments: every segment
// but the last is a group, the last is a leaf standing for the name itself. Children are in natural
// order (2 before 10), a leaf before a group of the same segment ("a.b" and "a.b.c" make two
// siblings "b"), and each node knows its row among its siblings. In flat layout every name is a
// leaf of the root. Plain data: the tensor tree, the compare tree and anything else that groups
// names by their dots build on it, and keep what they sum per node in vectors indexed by node id
// (see sum()). Node names are views into the names given to build(), which must outlive the tree.
class NameTree {
public:
    enum class Layout { Tree, Flat };
    struct Node {
        std::string_view name; // one segment; the whole name in flat layout; empty for the root
        int parent = -1; // -1 for the root
        int row = 0; // index among the parent's children
        int leaf = -1; // index into build()'s names, -1 for a group
        // Node ids, in display order (a leaf has some only after adopt()): a view into one array
        // the tree holds for all nodes (a vector per node was a heap block each: 100,000 groups
        // of one child each made 100,000 of them, 640 page faults).
        std::span<const int> children;
        bool isGroup() const { return leaf < 0; }
    };
    static constexpr int kRoot = 0;

    NameTree(); // only the root
    // Copies point their nodes' children at their own array; moves keep the array.
    NameTree(const NameTree &other);
    NameTree &operator=(const NameTree &other);
    NameTree(NameTree &&) noexcept = default;
    NameTree &operator=(NameTree &&) noexcept = default;

    // O(n) plus sorting each group's children; `names[i]` becomes leaf i. Duplicate names make
    // two leaves of the same segment, in input order.
    static NameTree build(std::span<const std::string_view> names, Layout layout = Layout::Tree);

    // Moves each pair's first leaf under its second leaf (a quantized weight's scales and zeros
    // under its codes), so that a leaf may have children. The moved node is named by its whole
    // name less its new parent's group path ("scales" under "qweight" for "l.q.scales";
    // "weight.absmax" under "weight" for "l.n.weight.absmax"). Pairs naming the same leaf, a leaf
    // already moved or already a new parent, an index out of range, or a name outside the
    // parent's group are skipped. Groups left empty are removed; nodes are renumbered so that a
    // child's id still exceeds its parent's, and rows renumbered. O(nodes + pairs · log).
    void adopt(std::span<const std::pair<std::size_t, std::size_t>> childToParent);

    // Every node, the root first; a child's id always exceeds its parent's.
    const std::vector<Node> &nodes() const { return m_nodes; }
    const Node &node(int id) const { return m_nodes[static_cast<std::size_t>(id)]; }
    std::size_t size() const { return m_nodes.size(); }
    int nodeOfLeaf(std::size_t leaf) const { return m_nodeOfLeaf[leaf]; }
    std::size_t leafCount() const { return m_nodeOfLeaf.size(); }
    Layout layout() const { return m_layout; }

    // The dotted name of a node: a leaf's whole name, or a group's path ("model.layers.3").
    std::string path(int id) const;
    // The node of a dotted name: the leaf of that name if there is one, else the group of that path;
    // -1 when neither exists (the root is never returned). O(depth · log children).
    int find(std::string_view dottedName) const;
    // The child of `parent` with that segment and kind, -1 when there is none.
    int child(int parent, std::string_view segment, bool group) const;

    // One value per node: each leaf's is `leafValue(leafIndex)`, each group's the sum of its
    // children's, added by `add(T &into, const T &from)` (so saturating or per-kind sums work).
    template<class T, class LeafValue, class Add> std::vector<T> sum(LeafValue &&leafValue, Add &&add) const
    {
        std::vector<T> values;
        values.reserve(m_nodes.size()); // megabytes for a large model: faulted in at once
        prefaultForWriting(values.data(), m_nodes.size() * sizeof(T));
        values.resize(m_nodes.size());
        for (std::size_t id = 1; id < m_nodes.size(); ++id) {
            if (m_nodes[id].leaf >= 0)
                values[id] = leafValue(static_cast<std::size_t>(m_nodes[id].leaf));
        }
        // Children have larger ids than their parents: one backward pass reaches every group.
        for (std::size_t id = m_nodes.size() - 1; id > 0; --id)
            add(values[static_cast<std::size_t>(m_nodes[id].parent)], values[id]);
        return values;
    }

    // Calls `visit(leafIndex)` for every leaf at or below `id`, in no particular order.
    template<class Visit> void forEachLeaf(int id, Visit &&visit) const
    {
        std::vector<int> stack { id };
        while (!stack.empty()) {
            const Node &n = node(stack.back());
            stack.pop_back();
            if (n.leaf >= 0)
                visit(static_cast<std::size_t>(n.leaf));
            stack.insert(stack.end(), n.children.begin(), n.children.end());
        }
    }

private:
    void renumber(); // preorder ids and rows after adopt()
    // Packs these lists (one per node) into m_childIds and points each node's children at its part.
    void setChildren(const std::vector<std::vector<int>> &lists);
    // Each node's children as a list of its own: for adopt(), which edits them.
    std::vector<std::vector<int>> childLists() const;

    std::vector<Node> m_nodes;
    std::vector<int> m_childIds; // every node's children, node after node
    std::vector<int> m_nodeOfLeaf;
    std::vector<std::string_view> m_leafNames; // build()'s names: a leaf's path
    std::unordered_map<std::string_view, int> m_adopted; // whole name -> node, for find()
    Layout m_layout = Layout::Tree;
};

} // namespace stb
