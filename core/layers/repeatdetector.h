#pragma once

#include "core/format/tensorinfo.h"
#include "core/layers/repeat.h"

#include <span>
#include <vector>

namespace stb {

class Checkpoint;

// Finds the repeated structure of a model from its tensor names alone: a numbered segment
// (`layers.7`, `h.7`, `blocks.7`; digits only, no leading zero) whose sibling blocks share most
// of their relative names. A repeat inside the blocks of another (experts inside layers) is
// listed in that one's Repeat::repeats, once for all its enclosing blocks; its names are not the
// outer's roles. Names with numbers inside a segment (`conv1`, `layer_norm_1`) are not repeats,
// nor is a single numbered block. Tensor numbers in the result index `tensors`. Repeats come in
// natural order of their prefixes. Pure, thread-safe; linear in the names' total length plus a
// sort (36,757 names: a few milliseconds).
std::vector<Repeat> detectRepeats(std::span<const TensorInfo *const> tensors);

// The same over a checkpoint's tensors (numbers index Checkpoint::tensors()).
std::vector<Repeat> detectRepeats(const Checkpoint &checkpoint);

} // namespace stb
