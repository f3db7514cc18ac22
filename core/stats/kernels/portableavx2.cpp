// The portable F32 passes' block kernels in AVX2 intrinsics (see portableblocks.h): what
// portable.cpp's generic vectors compute, lane for lane, in fewer instructions. Where the CPU
// lacks AVX2 they are never called (avx2::enabled() is false).
#include "core/stats/kernels/portableblocks.h"

#include <algorithm>
#include <cmath>

#if defined(__x86_64__) && defined(__GNUC__)
#include <immintrin.h>
#define STB_HAVE_AVX2 1
#define STB_AVX2 __attribute__((target("avx2")))
#endif

namespace stb::kernels::avx2 {

using portable::kBlock;

#ifdef STB_HAVE_AVX2

namespace {

STB_AVX2 inline std::uint32_t laneTotal(__m256i c)
{
    alignas(32) std::int32_t lanes[8];
    _mm256_store_si256(reinterpret_cast<__m256i *>(lanes), c);
    std::uint32_t total = 0;
    for (int l = 0; l < 8; ++l)
        total += static_cast<std::uint32_t>(lanes[l]);
    return total;
}

// -1 in the lanes where x >= th (false for NaN), to subtract from a counter.
STB_AVX2 inline __m256i atOrAbove(__m256 x, __m256 th)
{
    return _mm256_castps_si256(_mm256_cmp_ps(x, th, _CMP_GE_OQ));
}

// counts[t] += #(x >= at[t]) for N thresholds in one sweep over the block: N counters and N
// thresholds stay in registers (AVX2 has 16), where one sweep per threshold reloads every value.
template<unsigned N> STB_AVX2 void countGroup(const float *p, const float *at, std::uint32_t *counts)
{
    // Unrolled, so that the arrays become registers.
    __m256 th[N];
    __m256i c[N];
#pragma GCC unroll 8
    for (unsigned t = 0; t < N; ++t) {
        th[t] = _mm256_set1_ps(at[t]);
        c[t] = _mm256_setzero_si256();
    }
    for (std::size_t i = 0; i < kBlock; i += 8) {
        const __m256 x = _mm256_loadu_ps(p + i);
#pragma GCC unroll 8
        for (unsigned t = 0; t < N; ++t)
            c[t] = _mm256_sub_epi32(c[t], atOrAbove(x, th[t]));
    }
#pragma GCC unroll 8
    for (unsigned t = 0; t < N; ++t)
        counts[t] += laneTotal(c[t]);
}

constexpr unsigned kGroup = 7; // thresholds per sweep: 7 thresholds, 7 counters, the value

STB_AVX2 void countThresholds(const float *p, const float *at, unsigned n, std::uint32_t *counts)
{
    switch (n) {
    case 1:
        return countGroup<1>(p, at, counts);
    case 2:
        return countGroup<2>(p, at, counts);
    case 3:
        return countGroup<3>(p, at, counts);
    case 4:
        return countGroup<4>(p, at, counts);
    case 5:
        return countGroup<5>(p, at, counts);
    case 6:
        return countGroup<6>(p, at, counts);
    default:
        return countGroup<7>(p, at, counts);
    }
}

} // namespace

STB_AVX2 bool momentsBlock(const std::byte *p, double shift, portable::BlockMoments &out)
{
    const float *f = reinterpret_cast<const float *>(p);
    const __m256d k = _mm256_set1_pd(shift);
    __m256d s0 = _mm256_setzero_pd(), s1 = s0, q0 = s0, q1 = s0;
    __m256 mn = _mm256_set1_ps(INFINITY), mx = _mm256_set1_ps(-INFINITY);
    __m256i zeros = _mm256_setzero_si256();
    for (std::size_t i = 0; i < kBlock; i += 8) {
        const __m256 x = _mm256_loadu_ps(f + i);
        mn = _mm256_min_ps(x, mn); // x < mn ? x : mn, as the generic vectors
        mx = _mm256_max_ps(x, mx); // x > mx ? x : mx
        zeros
            = _mm256_sub_epi32(zeros, _mm256_castps_si256(_mm256_cmp_ps(x, _mm256_setzero_ps(), _CMP_EQ_OQ)));
        const __m256d lo = _mm256_sub_pd(_mm256_cvtps_pd(_mm256_castps256_ps128(x)), k);
        const __m256d hi = _mm256_sub_pd(_mm256_cvtps_pd(_mm256_extractf128_ps(x, 1)), k);
        s0 = _mm256_add_pd(s0, lo);
        s1 = _mm256_add_pd(s1, hi);
        q0 = _mm256_add_pd(q0, _mm256_mul_pd(lo, lo)); // no FMA: the generic build rounds the product
        q1 = _mm256_add_pd(q1, _mm256_mul_pd(hi, hi));
    }
    alignas(32) double s[4], q[4];
    _mm256_store_pd(s, _mm256_add_pd(s0, s1));
    _mm256_store_pd(q, _mm256_add_pd(q0, q1));
    out.sum = (s[0] + s[1]) + (s[2] + s[3]);
    out.squares = (q[0] + q[1]) + (q[2] + q[3]);
    if (!std::isfinite(out.sum)) // an Inf or NaN (finite floats cannot overflow these sums)
        return false;
    alignas(32) float lowest[8], highest[8];
    _mm256_store_ps(lowest, mn);
    _mm256_store_ps(highest, mx);
    out.min = lowest[0];
    out.max = highest[0];
    for (int l = 0; l < 8; ++l) {
        out.min = std::min(out.min, lowest[l]);
        out.max = std::max(out.max, highest[l]);
    }
    // The largest magnitude is that of an extreme: one instruction less per vector than a third
    // running maximum.
    out.absMax = std::max(std::fabs(out.min), std::fabs(out.max));
    out.zeros = static_cast<float>(laneTotal(zeros));
    return true;
}

STB_AVX2 bool thresholdBlock(const std::byte *p, const portable::BinThresholds &th, unsigned from,
    unsigned to, bool farOnes, bool knownFinite, std::uint32_t *counts, std::uint32_t &outliers)
{
    const float *f = reinterpret_cast<const float *>(p);
    if (!knownFinite) {
        __m256 check = _mm256_setzero_ps();
        for (std::size_t i = 0; i < kBlock; i += 8) {
            const __m256 x = _mm256_loadu_ps(f + i);
            check = _mm256_add_ps(check, _mm256_sub_ps(x, x)); // NaN for NaN and Inf
        }
        if (_mm256_movemask_ps(_mm256_cmp_ps(check, check, _CMP_UNORD_Q)))
            return false;
    }
    // Sweeps of at most kGroup thresholds, as even as they go (8 thresholds: 4 and 4, not 7 and 1).
    for (unsigned left = to - from; left > 0;) {
        const unsigned sweeps = (left + kGroup - 1) / kGroup;
        const unsigned n = (left + sweeps - 1) / sweeps;
        countThresholds(f, th.at + from, n, counts + from);
        from += n;
        left -= n;
    }
    if (farOnes) {
        const __m256 above = _mm256_set1_ps(th.outlierAbove), below = _mm256_set1_ps(th.outlierBelow);
        __m256i far = _mm256_setzero_si256();
        for (std::size_t i = 0; i < kBlock; i += 8) {
            const __m256 x = _mm256_loadu_ps(f + i);
            const __m256 out
                = _mm256_or_ps(_mm256_cmp_ps(x, above, _CMP_GE_OQ), _mm256_cmp_ps(x, below, _CMP_LE_OQ));
            far = _mm256_sub_epi32(far, _mm256_castps_si256(out));
        }
        outliers += laneTotal(far);
    }
    return true;
}

STB_AVX2 std::size_t indexBlock(const std::byte *p, std::size_t n, float lo, float hi, float scale,
    unsigned bins, std::uint32_t *index, std::uint32_t *slow)
{
    const float *f = reinterpret_cast<const float *>(p);
    const __m256 vlo = _mm256_set1_ps(lo), vhi = _mm256_set1_ps(hi), vscale = _mm256_set1_ps(scale);
    const __m256 top = _mm256_set1_ps(static_cast<float>(bins));
    const __m256 near = _mm256_set1_ps(1.0f / 256), far = _mm256_set1_ps(1.0f - 1.0f / 256);
    const __m256i trash = _mm256_set1_epi32(static_cast<std::int32_t>(bins));
    std::size_t slowCount = 0;
    for (std::size_t i = 0; i < n; i += 8) {
        const __m256 x = _mm256_loadu_ps(f + i);
        const __m256 t = _mm256_mul_ps(_mm256_sub_ps(x, vlo), vscale);
        // In range (NaN fails) and t below bins (an overflow fails): t is then in [0, bins).
        const __m256 inRange = _mm256_and_ps(
            _mm256_and_ps(_mm256_cmp_ps(x, vlo, _CMP_GE_OQ), _mm256_cmp_ps(x, vhi, _CMP_LE_OQ)),
            _mm256_cmp_ps(t, top, _CMP_LT_OQ));
        const __m256 safe = _mm256_and_ps(t, inRange);
        const __m256i e = _mm256_cvttps_epi32(safe);
        const __m256 fraction = _mm256_sub_ps(safe, _mm256_cvtepi32_ps(e));
        const __m256 ok = _mm256_and_ps(inRange,
            _mm256_and_ps(
                _mm256_cmp_ps(fraction, near, _CMP_GE_OQ), _mm256_cmp_ps(fraction, far, _CMP_LE_OQ)));
        const __m256i bin = _mm256_blendv_epi8(trash, e, _mm256_castps_si256(ok));
        _mm256_storeu_si256(reinterpret_cast<__m256i *>(index + i), bin);
        for (unsigned rest = ~static_cast<unsigned>(_mm256_movemask_ps(ok)) & 0xFF; rest; rest &= rest - 1)
            slow[slowCount++]
                = static_cast<std::uint32_t>(i) + static_cast<std::uint32_t>(__builtin_ctz(rest));
    }
    return slowCount;
}

#else // not x86-64 with GCC or Clang: never called (enabled() is false); correct all the same

bool momentsBlock(const std::byte *, double, portable::BlockMoments &)
{
    return false; // the scalar code redoes the block
}

bool thresholdBlock(const std::byte *, const portable::BinThresholds &, unsigned, unsigned, bool, bool,
    std::uint32_t *, std::uint32_t &)
{
    return false;
}

std::size_t indexBlock(const std::byte *, std::size_t n, float, float, float, unsigned bins,
    std::uint32_t *index, std::uint32_t *slow)
{
    for (std::size_t i = 0; i < n; ++i) {
        index[i] = bins; // every value to binIndex
        slow[i] = static_cast<std::uint32_t>(i);
    }
    return n;
}

#endif

} // namespace stb::kernels::avx2
