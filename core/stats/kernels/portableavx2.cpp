// The portable F32 passes' block kernels in AVX2 intrinsics (see portableblocks.h): what
// portable.cpp's generic vectors compute, lane for lane, in fewer instructions. Where the CPU
// lacks AVX2 they are never called (avx2::enabled() is false).
#include "core/stats/kernels/portableblocks.h"

#include <algorithm>
#include <cmath>

#if defined(__x86_64__) && defined(__GNUC__)
#include <immintrin.h>
#define STB_HAVE_AVX2 1
// FMA too (every CPU with AVX2 that avx2::supported() accepts has it), but only as an exact add:
// fma(a, 1, c) rounds a + c once, as the add does, and runs on the multiply pipes where the adds'
// pipes are the loop's bottleneck (Zen 4). This file is built with -ffp-contract=off so that
// no product and sum are fused on their own: the generic vectors round both.
#define STB_AVX2 __attribute__((target("avx2,fma")))
#define STB_AVX2_F16C __attribute__((target("avx2,fma,f16c"))) // F16 codes (avx2::supported() checks F16C)
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

namespace {

// The running state of momentsBlock: the generic vectors' lanes, as AVX2 registers.
struct MomentLanes {
    __m256d k, one, s[2], q[2];
    __m256 mn, mx;

    STB_AVX2 explicit MomentLanes(double shift)
        : k(_mm256_set1_pd(-shift))
        , one(_mm256_set1_pd(1.0))
        , s { _mm256_setzero_pd(), _mm256_setzero_pd() }
        , q { s[0], s[0] }
        , mn(_mm256_set1_ps(INFINITY))
        , mx(_mm256_set1_ps(-INFINITY))
    { }

    // Two groups of four values (0-3 and 8-11 of a step of sixteen: lane 0; 4-7 and 12-15: lane
    // 1) into sums s[lane] and squares q[lane], as the generic vectors add them: x - shift, the
    // two added, then added to the sum; squares rounded, added, then added. The differences and
    // two of the adds run as exact adds on the multiply pipes (see STB_AVX2), so that both kinds
    // of pipe share the work. Around a shift of 0 there is no difference to take (x - 0 is x,
    // -0 included), and the square of a float is exact in double (24 significant bits twice),
    // so a fused multiply-add rounds x0² + x1² once, as the generic vectors' product and sum
    // do: together a quarter of the BF16 kernel's time.
    template<bool Shifted> STB_AVX2 inline void add(int lane, __m256d v0, __m256d v1)
    {
        if constexpr (!Shifted) {
            s[lane] = _mm256_add_pd(s[lane], _mm256_add_pd(v0, v1));
            q[lane] = _mm256_add_pd(q[lane], _mm256_fmadd_pd(v0, v0, _mm256_mul_pd(v1, v1)));
            return;
        }
        const __m256d d0 = _mm256_fmadd_pd(v0, one, k), d1 = _mm256_fmadd_pd(v1, one, k);
        s[lane] = _mm256_add_pd(s[lane], _mm256_add_pd(d0, d1));
        const __m256d squares = _mm256_fmadd_pd(_mm256_mul_pd(d0, d0), one, _mm256_mul_pd(d1, d1));
        q[lane] = _mm256_fmadd_pd(squares, one, q[lane]);
    }
    STB_AVX2 inline void extremes(__m256 lo, __m256 hi)
    {
        mn = _mm256_min_ps(lo, mn); // lo < mn ? lo : mn, as the generic vectors
        mx = _mm256_max_ps(hi, mx); // hi > mx ? hi : mx
    }

    // The block's totals, as the generic vectors fold their lanes; false for a NaN or an Inf.
    STB_AVX2 bool finish(std::uint32_t zeros, portable::BlockMoments &out) const
    {
        alignas(32) double sums[4], squares[4];
        _mm256_store_pd(sums, _mm256_add_pd(s[0], s[1]));
        _mm256_store_pd(squares, _mm256_add_pd(q[0], q[1]));
        out.sum = (sums[0] + sums[1]) + (sums[2] + sums[3]);
        out.squares = (squares[0] + squares[1]) + (squares[2] + squares[3]);
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
        // The largest magnitude is that of an extreme: one instruction less per vector than a
        // third running maximum.
        out.absMax = std::max(std::fabs(out.min), std::fabs(out.max));
        out.zeros = static_cast<float>(zeros);
        return true;
    }
};

STB_AVX2 inline std::uint32_t wordTotal(__m256i c)
{
    alignas(32) std::uint16_t lanes[16];
    _mm256_store_si256(reinterpret_cast<__m256i *>(lanes), c);
    std::uint32_t total = 0;
    for (int l = 0; l < 16; ++l)
        total += lanes[l];
    return total;
}

// Values 0-7 (x) and 8-15 (y) of a step of sixteen, and its four groups of four as doubles in
// the order MomentLanes::add takes them: F32 from memory, F16 codes widened by F16C (exactly).
struct StepF32 {
    STB_AVX2 static void load(const std::byte *p, std::size_t i, __m256 &x, __m256 &y, __m256d *v)
    {
        const float *f = reinterpret_cast<const float *>(p) + i;
        x = _mm256_loadu_ps(f), y = _mm256_loadu_ps(f + 8);
        // Widened straight from memory: a load is cheaper than taking the upper half of x.
        for (int q = 0; q < 4; ++q)
            v[q] = _mm256_cvtps_pd(_mm_loadu_ps(f + 4 * q));
    }
};
struct StepF16 {
    STB_AVX2_F16C static void load(const std::byte *p, std::size_t i, __m256 &x, __m256 &y, __m256d *v)
    {
        const auto *codes = reinterpret_cast<const __m128i *>(p + 2 * i);
        x = _mm256_cvtph_ps(_mm_loadu_si128(codes)), y = _mm256_cvtph_ps(_mm_loadu_si128(codes + 1));
        v[0] = _mm256_cvtps_pd(_mm256_castps256_ps128(x));
        v[1] = _mm256_cvtps_pd(_mm256_extractf128_ps(x, 1));
        v[2] = _mm256_cvtps_pd(_mm256_castps256_ps128(y));
        v[3] = _mm256_cvtps_pd(_mm256_extractf128_ps(y, 1));
    }
};

// One block of F32 values, or of F16 codes widened in registers to the same floats in the same
// lanes (so that the sums are the F32 kernel's on the widened block, bit for bit).
template<typename Step, bool Shifted>
STB_AVX2_F16C bool momentsFloats(const std::byte *p, double shift, portable::BlockMoments &out)
{
    MomentLanes m(shift);
    __m256i zeros = _mm256_setzero_si256();
    for (std::size_t i = 0; i < kBlock; i += 16) {
        __m256 x, y;
        __m256d v[4];
        Step::load(p, i, x, y, v);
        m.extremes(_mm256_min_ps(x, y), _mm256_max_ps(x, y));
        const __m256 zero = _mm256_setzero_ps();
        zeros = _mm256_sub_epi32(zeros, _mm256_castps_si256(_mm256_cmp_ps(x, zero, _CMP_EQ_OQ)));
        zeros = _mm256_sub_epi32(zeros, _mm256_castps_si256(_mm256_cmp_ps(y, zero, _CMP_EQ_OQ)));
        m.add<Shifted>(0, v[0], v[2]);
        m.add<Shifted>(1, v[1], v[3]);
    }
    return m.finish(laneTotal(zeros), out);
}

template<bool Shifted>
STB_AVX2 bool momentsBF16(const std::byte *p, double shift, portable::BlockMoments &out)
{
    MomentLanes m(shift);
    __m256i zeros = _mm256_setzero_si256();
    const __m256i magnitude = _mm256_set1_epi16(0x7FFF);
    for (std::size_t i = 0; i < kBlock; i += 16) {
        const __m256i codes = _mm256_loadu_si256(reinterpret_cast<const __m256i *>(p + 2 * i));
        // ±0 in 16 lanes at once.
        zeros = _mm256_sub_epi16(
            zeros, _mm256_cmpeq_epi16(_mm256_and_si256(codes, magnitude), _mm256_setzero_si256()));
        // A code in a float's upper half is its value. Unpacking within 128-bit lanes gives
        // values 0-3 and 8-11 (a), 4-7 and 12-15 (b).
        const __m256 a = _mm256_castsi256_ps(_mm256_unpacklo_epi16(_mm256_setzero_si256(), codes));
        const __m256 b = _mm256_castsi256_ps(_mm256_unpackhi_epi16(_mm256_setzero_si256(), codes));
        m.extremes(_mm256_min_ps(a, b), _mm256_max_ps(a, b));
        m.add<Shifted>(
            0, _mm256_cvtps_pd(_mm256_castps256_ps128(a)), _mm256_cvtps_pd(_mm256_extractf128_ps(a, 1)));
        m.add<Shifted>(
            1, _mm256_cvtps_pd(_mm256_castps256_ps128(b)), _mm256_cvtps_pd(_mm256_extractf128_ps(b, 1)));
    }
    return m.finish(wordTotal(zeros), out);
}

} // namespace

STB_AVX2 bool momentsBlock(const std::byte *p, double shift, portable::BlockMoments &out)
{
    return shift == 0 ? momentsFloats<StepF32, false>(p, shift, out)
                      : momentsFloats<StepF32, true>(p, shift, out);
}

STB_AVX2_F16C bool momentsBlockF16(const std::byte *p, double shift, portable::BlockMoments &out)
{
    return shift == 0 ? momentsFloats<StepF16, false>(p, shift, out)
                      : momentsFloats<StepF16, true>(p, shift, out);
}

STB_AVX2_F16C void widenF16(const std::byte *p, float *out)
{
    for (std::size_t i = 0; i < kBlock; i += 8)
        _mm256_storeu_ps(
            out + i, _mm256_cvtph_ps(_mm_loadu_si128(reinterpret_cast<const __m128i *>(p + 2 * i))));
}

STB_AVX2 bool momentsBlockBF16(const std::byte *p, double shift, portable::BlockMoments &out)
{
    return shift == 0 ? momentsBF16<false>(p, shift, out) : momentsBF16<true>(p, shift, out);
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

bool momentsBlockBF16(const std::byte *, double, portable::BlockMoments &)
{
    return false;
}

bool momentsBlockF16(const std::byte *, double, portable::BlockMoments &)
{
    return false;
}

void widenF16(const std::byte *, float *) { }

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
