#pragma once

#include "command.h"

#include "core/io/checkpoint.h"
#include "core/quant/dequantvalues.h"
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
    StridedView view; // the --slice, or the whole tensor (of the logical shape when dequantized)
    // Set when NAME is a recognised quantized weight (by its logical name or its codes' name) and
    // the command reads dequantized values: `info` is then its codes tensor.
    std::shared_ptr<const QuantView> quant;
    std::optional<DequantizedTensor> dequantized;
};

// --slice, shared by the commands that take one.
inline constexpr OptionSpec kSliceOption { "slice", "SPEC",
    "NumPy-style basic index, e.g. 0,:,5:10 (integers drop an axis)." };

// Opens the checkpoint, finds the tensor by exact name and applies --slice when the command has
// it. On failure prints the reason on stderr (an unreadable file, an unknown tensor, a bad slice,
// data cut short by the file's end) and returns nullopt: the command exits with Findings (1).
// NAME may also be a quantized weight's logical name (GPTQ's "…down_proj.weight" for the stored
// "…down_proj.qweight"), which selects its codes. With `dequantize`, a recognised, decodable
// weight is read as its dequantized values in its logical shape (--slice applies to that shape).
std::optional<SelectedTensor> selectTensor(const Invocation &invocation, bool dequantize = false);

} // namespace stb::inspect
