#pragma once

#include "core/quant/dequantizer.h"
#include "core/stats/tensoranalyzer.h" // ProgressFn
#include "core/values/stridedview.h"

#include <stop_token>
#include <string>

namespace stb {

// What exportDequantizedNpy writes, for the dialog and the CLI to say.
inline constexpr const char *kDequantizedNpyDescr = "<f4";

// Writes `view` (a whole weight: wholeView of its logical shape) of a quantized weight's
// dequantized values to `outPath` as .npy v1.0 float32, little-endian, C order, in the logical
// shape. Decoded run by run from the mapping (never materialised), under the SIGBUS guard.
// Atomic as exportNpy (npyexport.h): on any failure, including cancel, nothing is left and
// `error` says why; never writes over `sourcePath`. Progress in elements. Calling thread.
bool exportDequantizedNpy(const std::string &outPath, const std::string &sourcePath,
    const Dequantizer &dequantizer, const StridedView &view, std::string &error, std::stop_token stop = {},
    const ProgressFn &progress = {});

// Writes a view of at most two axes of the dequantized values as CSV (csvexport.h's writer and
// limits), each value in the shortest text that reads back to the same float32.
bool exportDequantizedCsv(const std::string &outPath, const std::string &sourcePath,
    const Dequantizer &dequantizer, const StridedView &view, std::string &error, std::stop_token stop = {},
    const ProgressFn &progress = {});

} // namespace stb
