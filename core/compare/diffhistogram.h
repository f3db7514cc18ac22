#pragma once

#include "core/format/dtype.h"
#include "core/stats/tensoranalyzer.h"
#include "core/stats/tensorstats.h"

#include <stop_token>
#include <cstdint>
#include <optional>
#include <span>

namespace stb {

// The value distributions of two tensors on shared bins, so they can be drawn over each other,
// and the distribution of their element-wise difference a − b.
struct DiffHistograms {
    Histogram a, b; // the same bins over the finite values of both sides (empty for a missing side)
    Histogram diff; // a − b where both elements are finite; empty when the element counts differ
    std::uint64_t diffCount = 0; // elements counted in `diff`
};

// One side of the pair: its dtype, its bytes (exactly what dtype and count call for) and its
// element count. An empty `bytes` with zero elements stands for a missing side.
struct DiffSide {
    DType dtype = DType::F32;
    std::span<const std::byte> bytes;
    std::uint64_t elements = 0;
};

// Decodes both sides in chunks (twice: once for the ranges, once for the counts) on `threads`
// threads (0: one per hardware thread); the counts do not depend on how many. C64 is binned by
// its real part. A range with a single value is widened by 0.5 on each side, so a constant
// tensor still shows its bar. nullopt when a stop is requested through `stop`, the bytes
// vanished under the scan (busguard.h), or a side's bytes are not exactly what its elements fill
// (bytesForElements).
// `progress` gets elements done of 2 * (na + nb), one call at a time.
std::optional<DiffHistograms> diffHistograms(const DiffSide &a, const DiffSide &b, unsigned bins,
                                             std::stop_token stop = {},
                                             const ProgressFn &progress = {}, unsigned threads = 0);

} // namespace stb
