#pragma once

// The block kernels of the portable F32 passes (portable.cpp), in two builds that compute lane
// for lane the same arithmetic, so their results are bit-identical: GCC's generic vectors
// (portable.cpp, for every x86-64) and AVX2 intrinsics (portableavx2.cpp, picked at run time
// where the CPU has AVX2). perf found GCC's code for the generic vectors slow: it widens floats
// to doubles in 128-bit pieces, sweeps a block once per threshold, and tests the mask of every
// lane one branch at a time.
#include <cstddef>
#include <cstdint>

namespace stb::kernels::portable {

// Values per block: small enough that float lane counters stay exact (2^24) and that a block
// with a NaN costs little to redo.
inline constexpr std::size_t kBlock = 512;

struct BlockMoments {
    double sum, squares; // of x - shift
    float min, max, absMax, zeros;
};

// Pass 2 as counts of values at or above thresholds (see binF32).
inline constexpr unsigned kMaxVectorBins = 16;

struct BinThresholds {
    unsigned count; // bins + 1: edges[0..bins-1], then "above hi"
    float at[kMaxVectorBins + 1]; // x >= at[t]
    float outlierAbove, outlierBelow; // x >= above or x <= below
};

} // namespace stb::kernels::portable

namespace stb::kernels::avx2 {

// The AVX2 builds; callers check avx2::enabled() (kernels/valuescan.h) first, the one switch of
// the portable family's AVX2 kernels.

// One block of kBlock floats: moments around `shift`, extremes, zeros; false when it holds a NaN
// or an infinity.
bool momentsBlock(const std::byte *p, double shift, portable::BlockMoments &out);
// One block of kBlock BF16 codes: what momentsBlock computes on them widened (bit for bit), without
// the widened copy (perf: a tenth of a portable audit's time went to writing and rereading it).
bool momentsBlockBF16(const std::byte *p, double shift, portable::BlockMoments &out);
// One block of kBlock F16 codes: what momentsBlock computes on them widened (bit for bit), widened
// in registers by F16C.
bool momentsBlockF16(const std::byte *p, double shift, portable::BlockMoments &out);
// One block of kBlock F16 codes as floats (exactly), for pass 2.
void widenF16(const std::byte *p, float *out);
// One block of kBlock floats: counts[t] += #(x >= th.at[t]) for t in [from, to), outliers when
// `farOnes`; false when it holds a NaN or an infinity, which `knownFinite` (pass 1 said so)
// rules out without a look.
bool thresholdBlock(const std::byte *p, const portable::BinThresholds &th, unsigned from, unsigned to,
    bool farOnes, bool knownFinite, std::uint32_t *counts, std::uint32_t &outliers);
// Bin numbers of n floats (a multiple of 8) by float index, as portable.cpp's indexBlock.
std::size_t indexBlock(const std::byte *p, std::size_t n, float lo, float hi, float scale, unsigned bins,
    std::uint32_t *index, std::uint32_t *slow);

} // namespace stb::kernels::avx2
