#pragma once

// F32 is most of a checkpoint's bytes and the scalar loops spend ~3 and ~5 ns a value on it.
// These kernels do the same work on 8 floats at a time: AVX2 intrinsics where the CPU has AVX2
// (portableavx2.cpp), else GCC vector extensions compiled for AVX and the baseline, the same
// arithmetic bit for bit (portableblocks.h). They assume a block of finite values and report
// when that was wrong; such blocks (NaN, Inf) are redone by the scalar code (scalar.h), so the
// results are exactly what the scalar code defines.
#include "core/stats/statskernels.h"

#include <cstdint>

namespace stb::kernels {

// Pass 1 of F32 elements [first, first+n); `ranges` (the tensor's, may be null) receives the
// range of every whole block of kRangeBlock finite values.
void scanF32(const std::byte *data, std::uint64_t first, std::uint64_t n, StatsAccumulator &acc,
    BlockRange *ranges = nullptr);
// Pass 2 of F32 by thresholds (few bins); false when the plan needs another kernel (many bins,
// extreme ranges). With `ranges` (pass 1's), a block compares only the thresholds inside its
// range: those below it count every value, those above none.
bool binF32(const std::byte *data, std::uint64_t first, std::uint64_t n, const BinPlan &plan,
    std::uint64_t *bins, std::uint64_t &outliers, const BlockRange *ranges = nullptr);
// The same two passes for BF16, each block of kBlock values widened to floats first (exact).
// The analyzer counts BF16 codes instead when it wants a histogram (one pass); without one
// (AnalysisOptions::bins 0) these are a vector pass and outliers only where a block's range
// reaches them.
void scanBF16(const std::byte *data, std::uint64_t first, std::uint64_t n, StatsAccumulator &acc,
    BlockRange *ranges = nullptr);
bool binBF16(const std::byte *data, std::uint64_t first, std::uint64_t n, const BinPlan &plan,
    std::uint64_t *bins, std::uint64_t &outliers, const BlockRange *ranges = nullptr);
// The same for F16 where the CPU has AVX2 and F16C (avx2::enabled()); elsewhere F16 is counted
// by code (countsCodes), as the widening would cost more than the counting.
void scanF16(const std::byte *data, std::uint64_t first, std::uint64_t n, StatsAccumulator &acc,
    BlockRange *ranges = nullptr);
bool binF16(const std::byte *data, std::uint64_t first, std::uint64_t n, const BinPlan &plan,
    std::uint64_t *bins, std::uint64_t &outliers, const BlockRange *ranges = nullptr);
// Bins (no outliers) of n F32 values (a multiple of 16) at p, by their float index when
// plan.indexed (see BinPlan); uses the AVX-512 index kernel when enabled.
void binsByIndex(const std::byte *p, std::uint64_t n, const BinPlan &plan, std::uint64_t *bins);
// Pass 2 of F32 by index without AVX-512: outliers one value at a time, and only when the range
// reaches that far (rare).
void binF32ByIndex(const std::byte *data, std::uint64_t first, std::uint64_t n, const BinPlan &plan,
    std::uint64_t *bins, std::uint64_t &outliers);

} // namespace stb::kernels
