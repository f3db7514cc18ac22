#pragma once

#include "core/quant/quantizedweight.h"

#include <string>

namespace stb {

// A few characters naming a quantized weight's scheme for a narrow column: "fp8 block",
// "gptq 4-bit", "mxfp4", "nf4", "int8"…
std::string quantBadge(const QuantizedWeight &weight);

// One sentence for a tooltip: the scheme in full, its bits, group or block, the dtype it was
// quantized from when the file says, and how a value is computed.
std::string quantDescription(const QuantizedWeight &weight);

} // namespace stb
