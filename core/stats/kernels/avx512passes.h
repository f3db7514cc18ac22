#pragma once

// The statistics' passes over F32, BF16 and F16 on the AVX-512 kernels, for when
// hasAvx512Kernels(dtype). Same contracts as scanValues and binValues (statskernels.h).
#include "core/stats/statskernels.h"

#include <cstdint>

namespace stb::kernels {

// Pass 1: counts and moments of elements [first, first+n); the ranges of the blocks scanned go
// to `ranges` (may be null).
void scanAvx512(DType dtype, const std::byte *data, std::uint64_t first, std::uint64_t n, StatsAccumulator &acc,
    BlockRange *ranges);
// Pass 2 by plan.avx512 (Thresholds: counts at or above plan.keys; Index: F32 bins by index).
void binAvx512(DType dtype, const std::byte *data, std::uint64_t first, std::uint64_t n, const BinPlan &plan,
    std::uint64_t *bins, std::uint64_t &outliers, const BlockRange *ranges);

} // namespace stb::kernels
