// The moments and the outliers of counted values (dequantruns.h: countedMomentsRun,
// countedOutliersRun), built with -O3 like dequantruns.cpp.
#include "core/quant/dequantruns.h"

#include "core/quant/dequantrunsavx2.h"
#include "core/quant/momentlanes.h"
#include "core/stats/kernels/avx512.h"
#include "core/stats/kernels/valuescan.h"

#include <cfloat>
#include <cmath>

#include "core/quant/runtarget.h"

namespace stb::quant {

namespace {

STB_BODY void momentsBody(const float *__restrict values, const std::uint32_t *__restrict counts, std::size_t n,
    double shift, CountedMoments &m)
{
    MomentLanes lanes;
    constexpr std::size_t kLanes = MomentLanes::kLanes;
    const std::size_t whole = n - n % kLanes;
    for (std::size_t k = 0; k < whole; k += kLanes) {
        for (std::size_t j = 0; j < kLanes; ++j)
            lanes.add(j, values[k + j], counts[k + j], shift);
    }
    for (std::size_t k = whole; k < n; ++k)
        lanes.add(k - whole, values[k], counts[k], shift);
    lanes.finish(m);
}

// Sixteen pairs at a time, in two halves of eight doubles (the compiler does not vectorize the
// body's double sums: that would reorder them).
STB_AVX512 void momentsWide(
    const float *values, const std::uint32_t *counts, std::size_t n, double shift, CountedMoments &m)
{
#if STB_WIDE_RUNS
    const std::size_t whole = n - n % 16;
    if (whole) {
        __m512d finite = _mm512_setzero_pd(), zeros = finite, nan = finite, posInf = finite, negInf = finite,
                sum = finite, squares = finite;
        __m512 lo = _mm512_set1_ps(INFINITY), hi = _mm512_set1_ps(-INFINITY);
        const __m512 inf = _mm512_set1_ps(INFINITY), negInfinity = _mm512_set1_ps(-INFINITY);
        const __m512d shifts = _mm512_set1_pd(shift);
        for (std::size_t k = 0; k < whole; k += 16) {
            const __m512 v = _mm512_loadu_ps(values + k);
            const __m512i c = _mm512_loadu_si512(counts + k);
            const __mmask16 isFinite = _mm512_cmp_ps_mask(_mm512_sub_ps(v, v), _mm512_setzero_ps(), _CMP_EQ_OQ);
            const __mmask16 seen = isFinite & _mm512_test_epi32_mask(c, c);
            lo = _mm512_mask_min_ps(lo, seen, lo, v);
            hi = _mm512_mask_max_ps(hi, seen, hi, v);
            const __mmask16 isZero = _mm512_cmp_ps_mask(v, _mm512_setzero_ps(), _CMP_EQ_OQ);
            const __mmask16 isNan = _mm512_cmp_ps_mask(v, v, _CMP_UNORD_Q);
            const __mmask16 isPosInf = _mm512_cmp_ps_mask(v, inf, _CMP_EQ_OQ);
            const __mmask16 isNegInf = _mm512_cmp_ps_mask(v, negInfinity, _CMP_EQ_OQ);
            for (unsigned half = 0; half < 2; ++half) {
                const __m512d vd = _mm512_cvtps_pd(half ? _mm512_extractf32x8_ps(v, 1) : _mm512_castps512_ps256(v));
                const __m512d cd = _mm512_cvtepu32_pd(
                    half ? _mm512_extracti64x4_epi64(c, 1) : _mm512_castsi512_si256(c));
                const auto part = [half](__mmask16 mask) { return static_cast<__mmask8>(mask >> (8 * half)); };
                const __m512d cf = _mm512_maskz_mov_pd(part(isFinite), cd);
                const __m512d d = _mm512_maskz_sub_pd(part(isFinite), vd, shifts);
                const __m512d cd2 = _mm512_mul_pd(cf, d);
                finite = _mm512_add_pd(finite, cf);
                sum = _mm512_add_pd(sum, cd2);
                squares = _mm512_add_pd(squares, _mm512_mul_pd(cd2, d));
                zeros = _mm512_add_pd(zeros, _mm512_maskz_mov_pd(part(isZero), cd));
                nan = _mm512_add_pd(nan, _mm512_maskz_mov_pd(part(isNan), cd));
                posInf = _mm512_add_pd(posInf, _mm512_maskz_mov_pd(part(isPosInf), cd));
                negInf = _mm512_add_pd(negInf, _mm512_maskz_mov_pd(part(isNegInf), cd));
            }
        }
        m.finite += _mm512_reduce_add_pd(finite);
        m.zeros += _mm512_reduce_add_pd(zeros);
        m.nan += _mm512_reduce_add_pd(nan);
        m.posInf += _mm512_reduce_add_pd(posInf);
        m.negInf += _mm512_reduce_add_pd(negInf);
        m.sum += _mm512_reduce_add_pd(sum);
        m.squares += _mm512_reduce_add_pd(squares);
        const float l = _mm512_reduce_min_ps(lo), h = _mm512_reduce_max_ps(hi);
        m.lo = l < m.lo ? l : m.lo;
        m.hi = h > m.hi ? h : m.hi;
    }
    momentsBody(values + whole, counts + whole, n - whole, shift, m);
#else
    momentsBody(values, counts, n, shift, m);
#endif
}

// Bitwise, not short-circuit, so that the loop is one of vector compares and masked adds.
template<typename Count>
STB_BODY std::uint64_t outliersBody(
    const float *__restrict values, const Count *__restrict counts, std::size_t n, float above, float below)
{
    std::uint64_t total = 0;
    for (std::size_t k = 0; k < n; ++k) {
        const float v = values[k];
        const bool far = ((v >= above) & (v <= FLT_MAX)) | ((v <= below) & (v >= -FLT_MAX));
        total += far ? counts[k] : 0;
    }
    return total;
}

template<typename Count>
STB_AVX512 std::uint64_t outliersWide(
    const float *values, const Count *counts, std::size_t n, float above, float below)
{
    return outliersBody(values, counts, n, above, below);
}

#if STB_WIDE_RUNS
STB_AVX2 inline __m256i countsAvx2(const std::uint8_t *c)
{
    return _mm256_cvtepu8_epi32(_mm_loadl_epi64(reinterpret_cast<const __m128i *>(c)));
}
STB_AVX2 inline __m256i countsAvx2(const std::uint32_t *c)
{
    return _mm256_loadu_si256(reinterpret_cast<const __m256i *>(c));
}

// Eight pairs at a time (GCC leaves the body scalar for AVX2): the far ones' counts summed in
// 64-bit lanes.
template<typename Count>
STB_AVX2 std::uint64_t outliersAvx2(
    const float *values, const Count *counts, std::size_t n, float above, float below)
{
    const __m256 up = _mm256_set1_ps(above), down = _mm256_set1_ps(below);
    const __m256 top = _mm256_set1_ps(FLT_MAX), bottom = _mm256_set1_ps(-FLT_MAX);
    __m256i sums = _mm256_setzero_si256();
    std::size_t k = 0;
    for (; k + 8 <= n; k += 8) {
        const __m256 v = _mm256_loadu_ps(values + k);
        const __m256 far
            = _mm256_or_ps(_mm256_and_ps(_mm256_cmp_ps(v, up, _CMP_GE_OQ), _mm256_cmp_ps(v, top, _CMP_LE_OQ)),
                _mm256_and_ps(_mm256_cmp_ps(v, down, _CMP_LE_OQ), _mm256_cmp_ps(v, bottom, _CMP_GE_OQ)));
        const __m256i c = _mm256_and_si256(countsAvx2(counts + k), _mm256_castps_si256(far));
        sums = _mm256_add_epi64(sums, _mm256_cvtepu32_epi64(_mm256_castsi256_si128(c)));
        sums = _mm256_add_epi64(sums, _mm256_cvtepu32_epi64(_mm256_extracti128_si256(c, 1)));
    }
    alignas(32) std::uint64_t lanes[4];
    _mm256_store_si256(reinterpret_cast<__m256i *>(lanes), sums);
    return (lanes[0] + lanes[1]) + (lanes[2] + lanes[3])
        + outliersBody(values + k, counts + k, n - k, above, below);
}
#endif

template<typename Count>
std::uint64_t outliersRun(const float *values, const Count *counts, std::size_t n, float above, float below)
{
    if (STB_WIDE_RUNS && kernels::avx512::enabled())
        return outliersWide(values, counts, n, above, below);
#if STB_WIDE_RUNS
    if (kernels::avx2::enabled())
        return outliersAvx2(values, counts, n, above, below);
#endif
    return outliersBody(values, counts, n, above, below);
}

} // namespace

std::uint64_t countedOutliersRun(
    const float *values, const std::uint32_t *counts, std::size_t n, float above, float below)
{
    return outliersRun(values, counts, n, above, below);
}

std::uint64_t countedOutliersRun(
    const float *values, const std::uint8_t *counts, std::size_t n, float above, float below)
{
    return outliersRun(values, counts, n, above, below);
}

void countedMomentsRun(
    const float *values, const std::uint32_t *counts, std::size_t n, double shift, CountedMoments &m)
{
    if (STB_WIDE_RUNS && kernels::avx512::enabled())
        momentsWide(values, counts, n, shift, m);
    else if (kernels::avx2::enabled())
        avx2::countedMoments(values, counts, n, shift, m);
    else
        momentsBody(values, counts, n, shift, m);
}
} // namespace stb::quant
