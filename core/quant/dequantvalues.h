#pragma once

#include "core/quant/dequantizer.h"
#include "core/quant/quantview.h"
#include "core/stats/tensoranalyzer.h" // ProgressFn
#include "core/values/heatmap.h"
#include "core/values/locate.h"
#include "core/values/stridedview.h"

#include <cstddef>
#include <cstdint>
#include <memory>
#include <optional>
#include <stop_token>
#include <string>

namespace stb {

// The value views (grid, locate, heatmap) over a quantized weight's dequantized values, in its
// logical shape: what core/values does for a tensor's stored bytes. Every function reads only the
// codes and scales of the elements it is asked for, straight from the mapping; nothing is
// materialised beyond a worker's buffer. Thread-safe (the Dequantizer is immutable).

// A tensor that holds a recognised, decodable quantized weight's codes: the weight (owned by the
// QuantView) and its Dequantizer (pointing into the checkpoint's mappings).
struct DequantizedTensor {
    const QuantizedWeight *weight = nullptr;
    std::shared_ptr<const Dequantizer> dequantizer;
};
// nullopt for an ordinary tensor, a companion, or a weight whose values stay raw (with the reason
// in `why` when it is a weight's codes). `tensor` indexes Checkpoint::tensors().
std::optional<DequantizedTensor> dequantizedTensor(
    const Checkpoint &checkpoint, const QuantView &view, std::size_t tensor, std::string *why = nullptr);

// Logical elements first + i·stride, i < n, into `out`. NOT guarded: call it inside runGuarded.
// The caller keeps every index below dequantizer.elements().
void decodeStrided(
    const Dequantizer &dequantizer, std::uint64_t first, std::uint64_t stride, std::uint64_t n, float *out);

// Rows [firstRow, firstRow + rows) of the logical weight seen as a matrix of rows() × columns()
// (the last logical axis is the columns), row-major into `out` (rows · columns() doubles). What a
// value grid shows for its visible rows. false when the rows leave the weight or the file
// vanished under the read (SIGBUS guard).
bool decodeRows(const Dequantizer &dequantizer, std::uint64_t firstRow, std::uint64_t rows, double *out);

// readRect (valuereader.h) for a plane `view` of the logical shape: rows [row0, row0 + rows) ×
// columns [col0, col0 + cols) of the view seen asMatrix, row-major into `out`. false when the
// rectangle leaves the view or the weight, or the file vanished.
bool decodeRect(const Dequantizer &dequantizer, const StridedView &view, std::uint64_t row0,
    std::uint64_t rows, std::uint64_t col0, std::uint64_t cols, double *out);

// locateValues (locate.h) over the dequantized values: flat indices in the logical shape. Chunked
// on `threads` threads (0: all cores); nullopt when cancelled or the file vanished.
std::optional<LocateResult> locateDequantized(const Dequantizer &dequantizer, std::stop_token stop = {},
    const ProgressFn &progress = {}, unsigned threads = 0);

// summarizeHeatmap (heatmap.h) of a plane `view` (at most two axes) of the logical shape, with the
// same cell rules. nullopt with a reason in `error` (unless cancelled).
std::optional<HeatmapSummary> summarizeDequantizedHeatmap(const Dequantizer &dequantizer,
    const StridedView &view, std::uint32_t cellRows, std::uint32_t cellCols, std::string &error,
    std::stop_token stop = {}, const ProgressFn &progress = {}, unsigned threads = 0,
    HeatmapCells keep = HeatmapCells::All);

} // namespace stb
