// The moments of counted values (dequantruns.h: countedMomentsRun), built with -O3 like
// dequantruns.cpp.
#include "core/quant/dequantruns.h"

#include "core/quant/dequantrunsavx2.h"
#include "core/quant/momentlanes.h"
#include "core/stats/kernels/avx512.h"
#include "core/stats/kernels/valuescan.h"

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
} // namespace

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
