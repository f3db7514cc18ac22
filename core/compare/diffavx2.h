#pragma once

// A diff's pass 2 over a changed pair of F32, BF16 or F16 tensors in AVX2 (diffavx2.cpp), for CPUs
// where kernels::avx2::enabled(). The sums are added in the lanes of diffsums.h (kSumLanes), as
// the scalar loop adds them, so they are its sums bit for bit (measured against it in
// tst_comparison).
#include "core/compare/diffsums.h"

#include <cstddef>
#include <cstdint>

namespace stb::diff::avx2 {

// Adds elements [first, first + count) of the pair to `s`, as addPair does one at a time.
void measureF32(const std::byte *a, const std::byte *b, std::uint64_t first, std::uint64_t count, double atol,
    double rtol, DiffSums &s);
void measureBF16(const std::byte *a, const std::byte *b, std::uint64_t first, std::uint64_t count, double atol,
    double rtol, DiffSums &s);
void measureF16(const std::byte *a, const std::byte *b, std::uint64_t first, std::uint64_t count, double atol,
    double rtol, DiffSums &s);

} // namespace stb::diff::avx2
