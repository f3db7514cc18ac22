#include "core/layers/repeatbuilder.h"

#include "core/text/naturalorder.h"
#include "core/text/textformat.h"

#include <algorithm>
#include <map>
#include <unordered_map>

namespace stb {

namespace {

// The most frequent value among `counts` (ties: the smallest key) and whether more than half
// of `total` have it: only then is a differing block a deviation rather than a variety.
template<typename Key>
std::pair<Key, bool> majority(const std::map<Key, std::size_t> &counts, std::size_t total)
{
    auto best = counts.begin();
    for (auto it = counts.begin(); it != counts.end(); ++it) {
        if (it->second > best->second)
            best = it;
    }
    return { best->first, 2 * best->second > total };
}

std::string ofBlocks(std::size_t have, std::size_t total)
{
    return std::to_string(have) + " of " + std::to_string(total) + " blocks";
}

void listMissing(Repeat &repeat)
{
    for (std::size_t i = 1; i < repeat.indices.size(); ++i) {
        const std::uint64_t from = repeat.indices[i - 1] + 1, to = repeat.indices[i];
        repeat.missingCount += to - from;
        for (std::uint64_t k = from; k < to && repeat.missing.size() < kMaxMissingListed; ++k)
            repeat.missing.push_back(k);
    }
}

struct RoleMajority {
    DType dtype;
    bool dtypeMajority;
    std::vector<std::uint64_t> shape;
    bool shapeMajority;
    std::size_t dtypeCount, shapeCount;
};

} // namespace

bool looksRepeated(const std::vector<std::vector<std::string_view>> &blockNames)
{
    const std::size_t n = blockNames.size();
    if (n < 2)
        return false;
    std::unordered_map<std::string_view, std::size_t> counts;
    std::size_t all = 0;
    for (const auto &names : blockNames) {
        for (const auto &name : names)
            ++counts[name];
        all += names.size();
    }
    std::size_t roles = 0, filled = 0;
    for (const auto &[name, count] : counts) {
        if (2 * count >= n) {
            ++roles;
            filled += count;
        }
    }
    // Three quarters of the slots: two blocks of different kinds (T5's attention and feed-forward
    // sub-layers, a convolution and a batch norm) share too few names to be one structure.
    return roles > 0 && 4 * filled >= 3 * roles * n && 2 * filled > all;
}

Repeat buildRepeat(std::string prefix, std::vector<std::uint64_t> outerIndices,
    const std::vector<BlockNames> &blocks, std::span<const TensorInfo *const> tensors)
{
    Repeat repeat;
    repeat.prefix = std::move(prefix);
    repeat.outerIndices = std::move(outerIndices);
    for (const auto &block : blocks)
        repeat.indices.push_back(block.index);
    std::sort(repeat.indices.begin(), repeat.indices.end());
    repeat.indices.erase(std::unique(repeat.indices.begin(), repeat.indices.end()), repeat.indices.end());
    listMissing(repeat);

    // Roles: names that at least half of the blocks have.
    const std::size_t n = blocks.size();
    std::unordered_map<std::string_view, std::size_t> counts;
    for (const auto &block : blocks) {
        for (const auto &[name, tensor] : block.tensors)
            ++counts[name];
    }
    std::vector<std::string_view> roleNames;
    for (const auto &[name, count] : counts) {
        if (2 * count >= n)
            roleNames.push_back(name);
    }
    std::sort(roleNames.begin(), roleNames.end(), naturalLess);
    std::unordered_map<std::string_view, std::size_t> roleOf;
    for (std::size_t r = 0; r < roleNames.size(); ++r) {
        roleOf.emplace(roleNames[r], r);
        repeat.roles.push_back({ std::string(roleNames[r]), DType::F32, {}, counts[roleNames[r]] });
    }

    // Each role's majority dtype and shape.
    std::vector<std::map<DType, std::size_t>> dtypes(roleNames.size());
    std::vector<std::map<std::vector<std::uint64_t>, std::size_t>> shapes(roleNames.size());
    for (const auto &block : blocks) {
        for (const auto &[name, tensor] : block.tensors) {
            if (const auto it = roleOf.find(name); it != roleOf.end()) {
                ++dtypes[it->second][tensors[tensor]->dtype];
                ++shapes[it->second][tensors[tensor]->shape];
            }
        }
    }
    std::vector<RoleMajority> majorities;
    for (std::size_t r = 0; r < roleNames.size(); ++r) {
        auto &role = repeat.roles[r];
        const auto [dtype, dtypeMajority] = majority(dtypes[r], role.blocks);
        const auto [shape, shapeMajority] = majority(shapes[r], role.blocks);
        role.dtype = dtype;
        role.shape = shape;
        majorities.push_back(
            { dtype, dtypeMajority, shape, shapeMajority, dtypes[r][dtype], shapes[r][shape] });
    }

    // The table, and each block's deviations in (row, index) order.
    std::vector<const BlockNames *> ordered;
    for (const auto &block : blocks)
        ordered.push_back(&block);
    std::sort(ordered.begin(), ordered.end(), [](const BlockNames *a, const BlockNames *b) {
        return std::pair(a->row, a->index) < std::pair(b->row, b->index);
    });
    const std::size_t columns = repeat.indices.size(), roleCount = roleNames.size();
    repeat.table.assign(repeat.rows() * columns * roleCount, kNoTensor);
    for (const BlockNames *block : ordered) {
        const auto column = static_cast<std::size_t>(
            std::lower_bound(repeat.indices.begin(), repeat.indices.end(), block->index)
            - repeat.indices.begin());
        std::size_t *slots = &repeat.table[(block->row * columns + column) * roleCount];
        std::vector<std::pair<std::string_view, std::size_t>> extras;
        for (const auto &[name, tensor] : block->tensors) {
            if (const auto it = roleOf.find(name); it != roleOf.end())
                slots[it->second] = tensor;
            else
                extras.emplace_back(name, tensor);
        }
        RepeatDeviation deviation;
        deviation.index = block->index;
        if (repeat.nested())
            deviation.outerIndex = repeat.outerIndices[block->row];
        auto add = [&](std::string_view role, DeviationKind kind, std::string detail,
                       std::size_t tensor = kNoTensor) {
            deviation.role = std::string(role);
            deviation.tensor = tensor;
            deviation.kind = kind;
            deviation.detail = std::move(detail);
            repeat.deviations.push_back(deviation);
        };
        for (std::size_t r = 0; r < roleCount; ++r) {
            const RoleMajority &m = majorities[r];
            const RepeatRole &role = repeat.roles[r];
            if (slots[r] == kNoTensor) {
                add(role.name, DeviationKind::MissingRole,
                    "absent where " + ofBlocks(role.blocks, n) + " have it");
                continue;
            }
            const TensorInfo &info = *tensors[slots[r]];
            if (m.dtypeMajority && info.dtype != m.dtype)
                add(role.name, DeviationKind::DType,
                    std::string(dtypeName(info.dtype)) + " where " + ofBlocks(m.dtypeCount, role.blocks)
                        + " have " + std::string(dtypeName(m.dtype)));
            if (m.shapeMajority && info.shape != m.shape)
                add(role.name, DeviationKind::Shape,
                    formatShape(info.shape) + " where " + ofBlocks(m.shapeCount, role.blocks) + " have "
                        + formatShape(m.shape),
                    slots[r]);
        }
        std::sort(extras.begin(), extras.end(),
            [](const auto &a, const auto &b) { return naturalLess(a.first, b.first); });
        for (const auto &[name, tensor] : extras)
            add(name, DeviationKind::ExtraRole, "not a role: " + ofBlocks(counts[name], n) + " have it",
                tensor);
    }
    return repeat;
}

} // namespace stb
