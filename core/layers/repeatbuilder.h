#pragma once

#include "core/format/tensorinfo.h"
#include "core/layers/repeat.h"

#include <span>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace stb {

// Detection's inner steps, shared by the detector and its tests; not a public API.

// One block as found in the names: its row (the enclosing block for nested repeats, else 0),
// its number, and its tensors by relative name.
struct BlockNames {
    std::size_t row = 0;
    std::uint64_t index = 0;
    std::vector<std::pair<std::string_view, std::size_t>> tensors; // relative name, index into the input
};

// Whether blocks with these relative names are one repeated structure: at least two blocks,
// some names shared by at least half of them ("roles"), three quarters of the slots
// (block × role) filled, and more than half of all names roles. Each inner list is one block's names.
bool looksRepeated(const std::vector<std::vector<std::string_view>> &blockNames);

// The Repeat over `blocks`: indices and gaps, roles (names in at least half the blocks) with the
// majority's dtype and shape, the table of tensors, and every deviation. `outerIndices` empty
// for a top-level repeat, else the enclosing block numbers indexed by BlockNames::row.
Repeat buildRepeat(std::string prefix, std::vector<std::uint64_t> outerIndices,
    const std::vector<BlockNames> &blocks, std::span<const TensorInfo *const> tensors);

} // namespace stb
