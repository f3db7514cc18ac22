#pragma once

#include "core/format/dtype.h"

#include <cstddef>
#include <cstdint>
#include <limits>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace stb {

inline constexpr std::size_t kNoTensor = std::numeric_limits<std::size_t>::max();

// How a block differs from the others of its repeat. Gaps in the numbering are not deviations:
// they are Repeat::missing.
enum class DeviationKind : std::uint8_t { MissingRole, ExtraRole, DType, Shape };
// "missing_role", "extra_role", "dtype", "shape" (the JSON identifiers)
std::string_view deviationKindName(DeviationKind kind);

// One tensor name relative to a block ("self_attn.q_proj.weight"), with the dtype and shape most
// blocks give it.
struct RepeatRole {
    std::string name;
    DType dtype = DType::F32;
    std::vector<std::uint64_t> shape;
    std::size_t blocks = 0; // blocks that have it
};

struct RepeatDeviation {
    std::uint64_t index = 0; // the block's number
    std::optional<std::uint64_t> outerIndex; // for a nested repeat: the enclosing block's number
    std::string role; // a role, or the extra name
    DeviationKind kind = DeviationKind::MissingRole;
    std::string detail; // "[4096, 11008] where 93 of 94 blocks have [4096, 14336]"
    std::size_t tensor
        = kNoTensor; // the differing or extra tensor (index into the detection input); none when missing
};

// Repeat::missing lists at most this many numbers (hostile numbering: blocks 0 and 10^17).
inline constexpr std::size_t kMaxMissingListed = 10'000;

// A numbered name segment whose blocks share the same relative names ("roles"):
// `model.layers.{0..93}`. Repeats nest: experts inside layers are a repeat with one row per
// enclosing layer, written `model.layers.{N}.mlp.experts`.
struct Repeat {
    std::string prefix; // "model.layers"; nested: "model.layers.{N}.mlp.experts"
    std::vector<std::uint64_t> outerIndices; // nested: the enclosing blocks that hold it (its rows)
    std::vector<std::uint64_t> indices; // block numbers present in any row, ascending
    std::vector<std::uint64_t> missing; // absent from [indices.front(), indices.back()], capped
    std::uint64_t missingCount = 0; // all of them (missing may be capped)
    std::vector<RepeatRole> roles; // in natural order
    std::vector<RepeatDeviation> deviations; // by outer index, index, role
    std::vector<Repeat> repeats; // repeats inside this one's blocks (one level)
    // Tensor (index into the detection input) of each (row, column of indices, role), or kNoTensor.
    std::vector<std::size_t> table;

    bool nested() const { return !outerIndices.empty(); }
    std::size_t rows() const { return nested() ? outerIndices.size() : 1; }
    std::size_t tensorAt(std::size_t row, std::size_t column, std::size_t role) const
    {
        return table[(row * indices.size() + column) * roles.size() + role];
    }
    // Blocks present (any role) over all rows.
    std::size_t blockCount() const;
    // "model.layers.{0–93} × 94"; nested: "model.layers.{N}.mlp.experts.{0–127} × 128 in 94 blocks"
    std::string label() const;

    // Set by detection for nested repeats: the name of a block is
    // outerPrefix.OUTER.innerPath.INDEX (prefix itself may contain "{N}" literally).
    std::string outerPrefix, innerPath;
    // The dotted name of a block: "model.layers.5", "model.layers.5.mlp.experts.17".
    std::string blockName(std::size_t row, std::size_t column) const;
    // The whole name of the tensor at a position of `table`: its block's name and its role's.
    std::string tensorName(std::size_t position) const;
};

} // namespace stb
