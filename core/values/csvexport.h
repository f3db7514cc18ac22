#pragma once

#include "core/format/dtype.h"
#include "core/stats/tensoranalyzer.h" // ProgressFn
#include "core/values/stridedview.h"

#include <functional>
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
// What writeCsv needs of a source of values: how many elements it has (the view must lie
// inside), how to print them, and how to read a run of them.
struct CsvSource {
    std::uint64_t elements = 0; // in the source, which the view's last element must lie below
    std::string outside; // the error when it does not
    bool integer = false; // printed without a fraction
    bool float32 = false; // printed in the shortest text that reads back to the same float32
    std::string unreadable; // the error when a run cannot be read
    // The `n` values at source indices first, first+stride, … into `out`; false when unreadable.
    std::function<bool(std::uint64_t first, std::uint64_t stride, std::uint64_t n, double *out)> readRun;
};

// The one CSV writer: `view` of `source` to `outPath` as exportCsv says below.
bool writeCsv(const std::string &outPath, const std::string &sourcePath, const CsvSource &source,
    const StridedView &view, std::string &error, std::stop_token stop, const ProgressFn &progress);

bool exportCsv(const std::string &outPath, const std::string &sourcePath, DType dtype,
    std::span<const std::byte> bytes, const StridedView &view, std::string &error, std::stop_token stop = {},
    const ProgressFn &progress = {});

} // namespace stb
