#pragma once

#include "core/format/dtype.h"
#include "core/values/stridedview.h"

#include <cstddef>
#include <cstdint>
#include <span>

namespace stb {

// Whole elements of `dtype` that `bytes` holds (a clipped tensor may hold fewer than its shape).
std::uint64_t elementsIn(DType dtype, std::span<const std::byte> bytes);

// out[i] = value of source element first + i·stride for i < n (C64: the real part). NOT guarded:
// only for code already running inside runGuarded (busguard.h). The caller keeps every index
// inside `data`.
void gatherValues(DType dtype, const std::byte *data, std::uint64_t first, std::uint64_t stride,
    std::uint64_t n, double *out);

// gatherValues under the SIGBUS guard; false when an index lies beyond `bytes` or the bytes
// vanished (the file was truncated).
bool readStrided(DType dtype, std::span<const std::byte> bytes, std::uint64_t first, std::uint64_t stride,
    std::uint64_t n, double *out);

// The rectangle rows [row0, row0+rows) × columns [col0, col0+cols) of a view of at most two axes
// (asMatrix), row-major into `out` (rows·cols doubles). What the value grid reads for its visible
// cells. false when the rectangle leaves the view or the bytes, or the bytes vanished.
bool readRect(DType dtype, std::span<const std::byte> bytes, const StridedView &view, std::uint64_t row0,
    std::uint64_t rows, std::uint64_t col0, std::uint64_t cols, double *out);

} // namespace stb
