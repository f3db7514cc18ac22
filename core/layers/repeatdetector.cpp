#include "core/layers/repeatdetector.h"

#include "core/io/checkpoint.h"
#include "core/layers/repeatbuilder.h"
#include "core/text/naturalorder.h"

#include <algorithm>
#include <bit>
#include <map>
#include <optional>

namespace stb {

namespace {

// Segments past this depth stay one segment: no real model nests deeper, and a hostile name of
// a million dots must not become a million nodes.
constexpr std::size_t kMaxDepth = 24;

struct Node {
    std::string_view segment;
    std::size_t end = 0; // where the segment ends in the names below it
    std::size_t anyTensor = 0; // one tensor below it (its name spells the node's path)
    std::size_t tensor = kNoTensor; // the tensor named exactly so
    int firstChild = -1, lastChild = -1, nextSibling = -1;
    std::uint64_t number = 0;
    bool numeric = false;
    bool repeat = false;
};

// A block number: digits only, no leading zero, at most 18 digits (fits 64 bits).
std::optional<std::uint64_t> segmentNumber(std::string_view segment)
{
    if (segment.empty() || segment.size() > 18 || (segment[0] == '0' && segment.size() > 1))
        return std::nullopt;
    std::uint64_t value = 0;
    for (char c : segment) {
        if (c < '0' || c > '9')
            return std::nullopt;
        value = value * 10 + static_cast<std::uint64_t>(c - '0');
    }
    return value;
}

void splitName(std::string_view name, std::vector<std::string_view> &segments)
{
    segments.clear();
    std::size_t start = 0;
    while (segments.size() + 1 < kMaxDepth) {
        const std::size_t dot = name.find('.', start);
        if (dot == std::string_view::npos)
            break;
        segments.push_back(name.substr(start, dot - start));
        start = dot + 1;
    }
    segments.push_back(name.substr(start));
}

class NameTrie {
public:
    // Consecutive names mostly share their leading segments (headers list a block's tensors
    // together), so only the segments past the previous name's path are looked up, in an
    // open-addressing table of (parent, segment) -> child.
    explicit NameTrie(std::span<const TensorInfo *const> tensors)
        : m_tensors(tensors)
    {
        m_nodes.reserve(tensors.size() * 2 + 1);
        m_nodes.emplace_back();
        m_slots.assign(std::bit_ceil(tensors.size() * 4 + 16), -1);
        std::vector<std::string_view> previous, segments;
        std::vector<int> path; // the nodes of `previous`
        for (std::size_t tensor = 0; tensor < tensors.size(); ++tensor) {
            const std::string_view name = tensors[tensor]->name;
            splitName(name, segments);
            std::size_t common = 0;
            while (
                common < segments.size() && common < previous.size() && segments[common] == previous[common])
                ++common;
            path.resize(common);
            for (std::size_t k = common; k < segments.size(); ++k) {
                const int parent = k ? path[k - 1] : 0;
                const std::size_t end
                    = static_cast<std::size_t>(segments[k].data() - name.data()) + segments[k].size();
                path.push_back(child(parent, segments[k], end, tensor));
            }
            Node &leaf = (*this)[path.back()];
            if (leaf.tensor == kNoTensor)
                leaf.tensor = tensor;
            std::swap(previous, segments);
        }
    }

    Node &operator[](int id) { return m_nodes[static_cast<std::size_t>(id)]; }
    int size() const { return static_cast<int>(m_nodes.size()); }
    bool isBlock(int id) { return (*this)[id].numeric && (*this)[id].firstChild >= 0; }

    std::vector<int> blocksOf(int id)
    {
        std::vector<int> blocks;
        for (int c = (*this)[id].firstChild; c >= 0; c = (*this)[c].nextSibling) {
            if (isBlock(c))
                blocks.push_back(c);
        }
        return blocks;
    }

    // The dotted path of a node below a block, as a view into a tensor name ("mlp.experts").
    std::string_view pathBelow(int block, int id)
    {
        const Node &node = (*this)[id];
        const std::size_t start = (*this)[block].end + 1;
        return std::string_view(m_tensors[node.anyTensor]->name).substr(start, node.end - start);
    }
    std::string pathOf(int id)
    {
        return id
            ? std::string(std::string_view(m_tensors[(*this)[id].anyTensor]->name).substr(0, (*this)[id].end))
            : std::string();
    }

    // The tensors below a block by relative name. With `nested`, a repeat met on the way is not
    // entered but listed there.
    void collect(
        int block, std::vector<std::pair<std::string_view, std::size_t>> &names, std::vector<int> *nested)
    {
        const std::size_t start = (*this)[block].end + 1;
        std::vector<int> stack;
        for (int c = (*this)[block].firstChild; c >= 0; c = (*this)[c].nextSibling)
            stack.push_back(c);
        while (!stack.empty()) {
            const Node &node = (*this)[stack.back()];
            if (nested && node.repeat) {
                nested->push_back(stack.back());
                stack.pop_back();
                continue;
            }
            stack.pop_back();
            if (node.tensor != kNoTensor)
                names.emplace_back(std::string_view(m_tensors[node.tensor]->name).substr(start), node.tensor);
            for (int c = node.firstChild; c >= 0; c = (*this)[c].nextSibling)
                stack.push_back(c);
        }
    }

    // Children before parents (ids grow downwards), so a node is judged with the repeats inside
    // its blocks already known and standing for one name each.
    void markRepeats()
    {
        std::vector<std::pair<std::string_view, std::size_t>> tensors;
        std::vector<int> nested;
        for (int id = size() - 1; id > 0; --id) {
            if ((*this)[id].firstChild == (*this)[id].lastChild)
                continue;
            const auto blocks = blocksOf(id);
            if (blocks.size() < 2)
                continue;
            std::vector<std::vector<std::string_view>> names(blocks.size());
            for (std::size_t b = 0; b < blocks.size(); ++b) {
                tensors.clear();
                nested.clear();
                collect(blocks[b], tensors, &nested);
                for (const auto &[name, tensor] : tensors)
                    names[b].push_back(name);
                for (int inner : nested)
                    names[b].push_back(pathBelow(blocks[b], inner));
            }
            (*this)[id].repeat = looksRepeated(names);
        }
    }

private:
    int child(int parent, std::string_view segment, std::size_t end, std::size_t tensor)
    {
        const std::size_t mask = m_slots.size() - 1;
        std::size_t slot
            = (std::hash<std::string_view>()(segment) * 31 + static_cast<std::size_t>(parent)) & mask;
        for (; m_slots[slot] >= 0; slot = (slot + 1) & mask) {
            const Node &node = (*this)[m_slots[slot]];
            if (node.segment == segment && m_parents[static_cast<std::size_t>(m_slots[slot])] == parent)
                return m_slots[slot];
        }
        const int id = size();
        Node node;
        node.segment = segment;
        node.end = end;
        node.anyTensor = tensor;
        if (const auto number = segmentNumber(segment)) {
            node.numeric = true;
            node.number = *number;
        }
        m_nodes.push_back(node);
        if (m_parents.size() < m_nodes.size())
            m_parents.resize(m_nodes.size(), 0);
        m_parents[static_cast<std::size_t>(id)] = parent;
        Node &p = (*this)[parent];
        (p.lastChild >= 0 ? (*this)[p.lastChild].nextSibling : p.firstChild) = id;
        (*this)[parent].lastChild = id;
        m_slots[slot] = id;
        if (2 * m_nodes.size() > m_slots.size())
            rehash();
        return id;
    }

    void rehash()
    {
        m_slots.assign(m_slots.size() * 2, -1);
        const std::size_t mask = m_slots.size() - 1;
        for (int id = 1; id < size(); ++id) {
            std::size_t slot = (std::hash<std::string_view>()((*this)[id].segment) * 31
                                   + static_cast<std::size_t>(m_parents[static_cast<std::size_t>(id)]))
                & mask;
            while (m_slots[slot] >= 0)
                slot = (slot + 1) & mask;
            m_slots[slot] = id;
        }
    }

    std::span<const TensorInfo *const> m_tensors;
    std::vector<Node> m_nodes;
    std::vector<int> m_parents;
    std::vector<int> m_slots;
};

Repeat repeatAt(NameTrie &trie, int id, std::span<const TensorInfo *const> tensors)
{
    const std::string prefix = trie.pathOf(id);
    std::vector<BlockNames> blocks;
    std::map<std::string_view, std::vector<std::pair<std::uint64_t, int>>> inner; // path -> (outer, node)
    std::vector<int> nested;
    for (int block : trie.blocksOf(id)) {
        BlockNames names;
        names.index = trie[block].number;
        nested.clear();
        trie.collect(block, names.tensors, &nested);
        for (int node : nested)
            inner[trie.pathBelow(block, node)].emplace_back(names.index, node);
        blocks.push_back(std::move(names));
    }
    Repeat repeat = buildRepeat(prefix, {}, blocks, tensors);

    for (auto &[path, places] : inner) {
        std::sort(places.begin(), places.end());
        std::vector<std::uint64_t> outer;
        std::vector<BlockNames> innerBlocks;
        for (const auto &[outerIndex, node] : places) {
            for (int block : trie.blocksOf(node)) {
                BlockNames names;
                names.row = outer.size();
                names.index = trie[block].number;
                trie.collect(block, names.tensors, nullptr);
                innerBlocks.push_back(std::move(names));
            }
            outer.push_back(outerIndex);
        }
        Repeat nestedRepeat
            = buildRepeat(prefix + ".{N}." + std::string(path), std::move(outer), innerBlocks, tensors);
        nestedRepeat.outerPrefix = prefix;
        nestedRepeat.innerPath = std::string(path);
        repeat.repeats.push_back(std::move(nestedRepeat));
    }
    std::sort(repeat.repeats.begin(), repeat.repeats.end(),
        [](const Repeat &a, const Repeat &b) { return naturalLess(a.prefix, b.prefix); });
    return repeat;
}

} // namespace

std::vector<Repeat> detectRepeats(std::span<const TensorInfo *const> tensors)
{
    NameTrie trie(tensors);
    trie.markRepeats();

    // Top-level repeats: the outermost marked nodes. Their blocks are theirs; the rest of the
    // tree is searched on.
    std::vector<Repeat> repeats;
    std::vector<int> stack { 0 };
    while (!stack.empty()) {
        const int id = stack.back();
        stack.pop_back();
        const bool repeat = trie[id].repeat;
        if (repeat)
            repeats.push_back(repeatAt(trie, id, tensors));
        for (int c = trie[id].firstChild; c >= 0; c = trie[c].nextSibling) {
            if (!repeat || !trie.isBlock(c))
                stack.push_back(c);
        }
    }
    std::sort(repeats.begin(), repeats.end(),
        [](const Repeat &a, const Repeat &b) { return naturalLess(a.prefix, b.prefix); });
    return repeats;
}

std::vector<Repeat> detectRepeats(const Checkpoint &checkpoint)
{
    std::vector<const TensorInfo *> infos;
    infos.reserve(checkpoint.tensors().size());
    for (const auto &tensor : checkpoint.tensors())
        infos.push_back(tensor.info);
    return detectRepeats(infos);
}

} // namespace stb
