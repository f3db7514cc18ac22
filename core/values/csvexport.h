#pragma once

#include "core/format/dtype.h"
#include "core/stats/tensoranalyzer.h" // ProgressFn
#include "core/values/stridedview.h"

#include <span>
#include <stop_token>
#include <string>

namespace stb {

// The largest view written as CSV: beyond it a spreadsheet is the wrong tool (use .npy).
inline constexpr std::uint64_t kMaxCsvElements = 10'000'000;

// Writes a view of at most two axes (a 1-D tensor is one row) as CSV: a line per row, values
// separated by commas, floats in the shortest text that reads back to the same value ("nan",
// "inf", "-inf"), integers exactly up to 2^53, BOOL as 0/1, C64 as its real part. Atomic like
// exportNpy (see atomicfile.h); refuses more than kMaxCsvElements elements and the source file.
bool exportCsv(const std::string &outPath, const std::string &sourcePath, DType dtype,
    std::span<const std::byte> bytes, const StridedView &view, std::string &error, std::stop_token stop = {},
    const ProgressFn &progress = {});

} // namespace stb
