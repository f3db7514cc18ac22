#pragma once

#include <cstddef>
#include <cstdint>

namespace stb::kernels::avx512 {

// The statistics' two hot loops for F32, BF16 and F16 on AVX-512 (F, BW, DQ, VL), picked at
// run time; other CPUs keep the portable kernels (portable.h). Both loops are
// branch-free over 64 values at a time: pass 1 takes the moments and extremes, pass 2 counts
// values at or above a few thresholds with compares and popcounts (a histogram of 10 bins is 9
// thresholds), so neither scatters into a table.

bool supported(); // the CPU has what these kernels need
bool enabled();   // supported and not switched off
// Tests and benchmarks switch the kernels off to run (and compare with) the portable code.
void setEnabled(bool on);

enum class Format { F32, BF16, F16 };

// Values per step: every count given to these functions is a multiple of it.
inline constexpr std::size_t kStep = 64;

// Pass 1 over n values: false when one of them is NaN or infinite (the caller redoes such a
// block with the scalar code). Sums are of x - shift, in double.
struct Moments {
    double sum = 0, squares = 0;
    double min = 0, max = 0;
    std::int32_t minKey = 0, maxKey = 0; // order keys bounding the values (see below)
    std::uint64_t zeros = 0;
};
bool moments(Format format, const std::byte *data, std::size_t n, double shift, Moments &out);

// Pass 2 over n values: counts[t] += the number of values at or above the value whose order
// key (orderKey32 for F32, orderKey16 for the 16-bit formats) is keys[t], for t < count (at most
// kMaxKeys). The 16-bit formats compare keys, so NaN counts as beyond the infinity of its sign;
// F32 compares floats, so NaN counts nowhere. Either way a threshold at the largest finite
// value plus one tells how many counted values are not finite.
inline constexpr unsigned kMaxKeys = 24;
void countAtOrAbove(Format format, const std::byte *data, std::size_t n, const std::int32_t *keys,
    unsigned count, std::uint64_t *counts);

// Bin numbers of n F32 values (a multiple of 16) by index, as portable.cpp's indexBlock
// (see there) computes them 8 at a time on any x86-64: floor((x - lo) * scale), or `bins` for
// the values the caller must bin itself, whose positions go to `slow`; returns their number.
std::size_t binIndices(const std::byte *data, std::size_t n, float lo, float hi, float scale, unsigned bins,
    std::uint32_t *index, std::uint32_t *slow);

// Order keys: integers ordered as the values are (-0 just below +0; NaN beyond the
// infinities), so "value >= threshold" becomes an integer compare.
inline std::int32_t orderKey16(std::uint16_t bits)
{
    const auto b = static_cast<std::int16_t>(bits);
    return b < 0 ? static_cast<std::int16_t>(bits ^ 0x7FFF) : b;
}
inline std::uint16_t bitsOfKey16(std::int32_t key)
{
    const auto k = static_cast<std::uint16_t>(key);
    return key < 0 ? static_cast<std::uint16_t>(k ^ 0x7FFF) : k;
}
inline std::int32_t orderKey32(std::uint32_t bits)
{
    const auto b = static_cast<std::int32_t>(bits);
    return b < 0 ? static_cast<std::int32_t>(bits ^ 0x7FFFFFFFu) : b;
}
inline std::uint32_t bitsOfKey32(std::int32_t key)
{
    const auto k = static_cast<std::uint32_t>(key);
    return key < 0 ? k ^ 0x7FFFFFFFu : k;
}

} // namespace stb::kernels::avx512
