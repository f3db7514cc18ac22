#pragma once

#include "core/format/dtype.h"
#include "core/io/largealloc.h"
#include "core/stats/tensoranalyzer.h" // ProgressFn
#include "core/values/stridedview.h"

#include <cstddef>
#include <cstdint>
#include <functional>
#include <optional>
#include <span>
#include <stop_token>
#include <string>
#include <vector>

namespace stb {

inline constexpr std::uint32_t kMaxHeatmapSide = 8192; // cells per axis

// A matrix of R×C values summarised into H×W cells (H ≤ R, W ≤ C): cell (i, j) covers rows
// ⌊i·R/H⌋ … ⌊(i+1)·R/H⌋−1 and columns ⌊j·C/W⌋ … ⌊(j+1)·C/W⌋−1. Per cell: the min, max and mean of
// its finite values (mean summed in double) and its NaN, +Inf and −Inf counts. 24 bytes a cell,
// and 24 more when some value is not finite.
struct HeatmapSummary {
    struct Specials {
        std::uint64_t nan = 0, posInf = 0, negInf = 0;
    };

    // Per-cell values in huge pages, left unwritten by resize (core/io/largealloc.h): a
    // summary's cells (24 MB at 1024×1024) are written once, cell row by cell row, by the pass's
    // workers. Filling them first in 4 KiB pages was a pass of its own over fresh pages, whose
    // page faults on a virtual machine made it a third of the heatmap's time.
    using Cells = std::vector<double, LargeAllocator<double>>;

    std::uint64_t rows = 0, cols = 0;
    std::uint32_t cellRows = 0, cellCols = 0;
    // Per cell, row-major; meaningful when finite(cell) > 0. min and max are empty in a summary
    // made with HeatmapCells::MeansOnly.
    Cells min, max, mean;
    // Per cell, or empty when every value is finite (most weight matrices): 1024×1024 cells of
    // counts are 24 MB, half of a summary.
    std::vector<Specials, LargeAllocator<Specials>> specials;

    std::uint64_t nanCount(std::size_t c) const { return specials.empty() ? 0 : specials[c].nan; }
    std::uint64_t posInfCount(std::size_t c) const { return specials.empty() ? 0 : specials[c].posInf; }
    std::uint64_t negInfCount(std::size_t c) const { return specials.empty() ? 0 : specials[c].negInf; }
    std::size_t cellIndex(std::uint32_t i, std::uint32_t j) const { return std::size_t(i) * cellCols + j; }
    std::uint64_t rowBegin(std::uint32_t i) const; // i ≤ cellRows; rowBegin(cellRows) == rows
    std::uint64_t colBegin(std::uint32_t j) const;
    std::uint32_t cellRowOf(std::uint64_t row) const; // the cell row holding a row (< rows)
    std::uint32_t cellColOf(std::uint64_t col) const;
    std::uint64_t cellSize(std::uint32_t i, std::uint32_t j) const;
    std::uint64_t finite(std::uint32_t i, std::uint32_t j) const;
    // Smallest min and largest max over all cells; nullopt when no value is finite (or min and
    // max were not kept).
    std::optional<std::pair<double, double>> finiteRange() const;
};

// What a summary keeps per cell: everything, or only what a picture is drawn from (the means
// and the counts of values not finite: colourscale.h), 8 bytes a cell instead of 24 (a PNG of
// 8192×8192 cells needs 0.5 GB of them, not 1.6 GB). The pass itself is the same.
enum class HeatmapCells { All, MeansOnly };

// The cell grid for R×C values and a wanted H×W (each clamped to 1 … the matrix side and
// kMaxHeatmapSide), with no cells filled: what summarizeHeatmap returns before the pass.
HeatmapSummary emptyHeatmap(
    std::uint64_t rows, std::uint64_t cols, std::uint32_t cellRows, std::uint32_t cellCols);

// The view as the matrix a heatmap summarises (asMatrix), or nullopt and why in `error` when it
// has more than two axes. Both summaries (stored and dequantized values) check views with it.
std::optional<MatrixShape> heatmapMatrix(const StridedView &view, std::string &error);

// Summarises a view of at most two axes (asMatrix: one axis is a single row) of a tensor's
// bytes in one pass, in chunks of whole rows on `threads` threads (0: all cores), reading the
// mapping in place under the SIGBUS guard. Progress in elements. nullopt, with a reason in
// `error` unless cancelled, when the view has more than two axes or leaves `bytes`, the bytes
// vanished, or `stop` was requested. Thread-safe.
std::optional<HeatmapSummary> summarizeHeatmap(DType dtype, std::span<const std::byte> bytes,
    const StridedView &view, std::uint32_t cellRows, std::uint32_t cellCols, std::string &error,
    std::stop_token stop = {}, const ProgressFn &progress = {}, unsigned threads = 0,
    HeatmapCells keep = HeatmapCells::All);

// Writes rows [row0, row0 + rows) of an R×C matrix, every column, row-major as floats into `out`
// (rows·C floats). Called on worker threads inside the SIGBUS guard: it may read the mapping.
using HeatmapRowDecoder = std::function<void(std::uint64_t row0, std::uint64_t rows, float *out)>;

// summarizeHeatmap over an R×C matrix of values `decode` produces (a quantized weight's
// dequantized values), with the same cells, sums and results: each task's rows are decoded into
// a per-worker buffer of about a million floats and summarised as F32 rows. nullopt when
// cancelled or when the mapping vanished (with a reason in `error`). Thread-safe when `decode` is.
std::optional<HeatmapSummary> summarizeDecoded(std::uint64_t rows, std::uint64_t cols,
    const HeatmapRowDecoder &decode, std::uint32_t cellRows, std::uint32_t cellCols, std::string &error,
    std::stop_token stop = {}, const ProgressFn &progress = {}, unsigned threads = 0,
    HeatmapCells keep = HeatmapCells::All);

} // namespace stb
