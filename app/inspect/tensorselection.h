#pragma once

#include "command.h"

#include "core/io/checkpoint.h"
#include "core/values/stridedview.h"

#include <memory>
#include <optional>
#include <span>

namespace stb::inspect {

// FILE NAME [--slice SPEC] of the value commands (export, locate, heatmap), resolved.
struct SelectedTensor {
    std::shared_ptr<const Checkpoint> checkpoint;
    const SafetensorsFile *file = nullptr;
    const TensorInfo *info = nullptr;
    std::span<const std::byte> bytes; // in the mapping; every element the shape calls for
    StridedView view; // the --slice, or the whole tensor
};

// --slice, shared by the commands that take one.
inline constexpr OptionSpec kSliceOption { "slice", "SPEC",
    "NumPy-style basic index, e.g. 0,:,5:10 (integers drop an axis)." };

// Opens the checkpoint, finds the tensor by exact name and applies --slice when the command has
// it. On failure prints the reason on stderr (an unreadable file, an unknown tensor, a bad slice,
// data cut short by the file's end) and returns nullopt: the command exits with Findings (1).
std::optional<SelectedTensor> selectTensor(const Invocation &invocation);

} // namespace stb::inspect
