// The value views' kernels on AVX-512: 16 floats at a time, finiteness as a mask register, so a
// value left out costs no blend. Lane for lane what the scalar definitions compute (valuescan.h).
#include "core/stats/kernels/valuescan.h"

#include "core/stats/kernels/prefetch.h"

#if defined(__x86_64__) && defined(__GNUC__)
#include <immintrin.h>
#define STB_HAVE_AVX512 1
#define STB_AVX512 __attribute__((target("avx512f,avx512bw,avx512dq,avx512vl")))
#endif

namespace stb::kernels::avx512 {

#ifdef STB_HAVE_AVX512

namespace {

// 16 contiguous values at p as floats, exactly (vcvtph2ps is exact for every F16 code).
template<DType D> STB_AVX512 inline __m512 load16(const std::byte *p)
{
    if constexpr (D == DType::F32)
        return _mm512_loadu_ps(p);
    const __m256i codes = _mm256_loadu_si256(reinterpret_cast<const __m256i *>(p));
    if constexpr (D == DType::BF16)
        return _mm512_castsi512_ps(_mm512_slli_epi32(_mm512_cvtepu16_epi32(codes), 16));
    return _mm512_cvtph_ps(codes);
}

STB_AVX512 inline __mmask16 finiteLanes(__m512 x)
{
    const __m512i exponent = _mm512_set1_epi32(0x7F800000);
    return _mm512_cmpneq_epi32_mask(_mm512_and_si512(_mm512_castps_si512(x), exponent), exponent);
}

template<DType D> STB_AVX512 bool finiteRangeLanes(const std::byte *p, std::size_t n, float &lo, float &hi)
{
    constexpr std::size_t size = D == DType::F32 ? 4 : 2;
    __m512 mn = _mm512_set1_ps(INFINITY), mx = _mm512_set1_ps(-INFINITY);
    __mmask16 finite = 0xFFFF;
    std::size_t i = 0;
    for (; i + 16 <= n; i += 16) {
        if (i % 64 == 0)
            prefetchAhead(p + size * i, 64 * size);
        const __m512 x = load16<D>(p + size * i);
        finite &= finiteLanes(x);
        mn = _mm512_min_ps(x, mn); // x < mn ? x : mn
        mx = _mm512_max_ps(x, mx);
    }
    bool all = finiteRangeScalar(D, p + size * i, n - i, lo, hi) && finite == 0xFFFF;
    const float vlo = _mm512_reduce_min_ps(mn), vhi = _mm512_reduce_max_ps(mx);
    lo = vlo < lo ? vlo : lo;
    hi = vhi > hi ? vhi : hi;
    return all;
}

// One column vector (16 columns) down `rows` rows from running values l, h, s0, s1. Masked: a
// value not finite is left out (and clears its lane in `finite`). Unmasked: every value goes in,
// so a value not finite spoils the lane, which the caller sees in the sums and redoes masked.
template<DType D, bool Masked>
STB_AVX512 inline void addColumnVector(const std::byte *row, std::size_t rowBytes, std::size_t rows, __m512 &l,
    __m512 &h, __m512d &s0, __m512d &s1, __mmask16 &finiteAll)
{
    for (std::size_t r = 0; r < rows; ++r, row += rowBytes) {
        __m512 x = load16<D>(row);
        if constexpr (Masked) {
            const __mmask16 finite = finiteLanes(x);
            finiteAll &= finite;
            l = _mm512_mask_min_ps(l, finite, x, l);
            h = _mm512_mask_max_ps(h, finite, x, h);
            x = _mm512_maskz_mov_ps(finite, x); // +0 for a value left out
        } else {
            l = _mm512_min_ps(x, l);
            h = _mm512_max_ps(x, h);
        }
        s0 = _mm512_add_pd(s0, _mm512_cvtps_pd(_mm512_castps512_ps256(x)));
        s1 = _mm512_add_pd(s1, _mm512_cvtps_pd(_mm256_castpd_ps(_mm512_extractf64x4_pd(_mm512_castps_pd(x), 1))));
    }
}

// Each column vector goes down the block unmasked, and is redone masked from its stored running
// values when its sums came out not finite: a sum of finite floats in double cannot overflow,
// so that happens exactly when a value was NaN or infinite. The finiteness test and the masked
// moves cost a fifth of the loop on data that has no such value (nearly all).
template<DType D>
STB_AVX512 bool addRowsLanes(const std::byte *p, std::size_t rowBytes, std::size_t rows, std::size_t n, float *lo,
    float *hi, double *sum, const std::byte *next)
{
    constexpr std::size_t size = D == DType::F32 ? 4 : 2;
    __mmask16 finiteAll = 0xFFFF;
    std::size_t k = 0;
    for (; k + 16 <= n; k += 16) {
        __m512 l = _mm512_loadu_ps(lo + k), h = _mm512_loadu_ps(hi + k);
        __m512d s0 = _mm512_loadu_pd(sum + k), s1 = _mm512_loadu_pd(sum + k + 8);
        const std::byte *row = p + size * k;
        if (next && (size * k) % 64 == 0)
            prefetchRows(next + size * k, rowBytes, kRowBlock);
        addColumnVector<D, false>(row, rowBytes, rows, l, h, s0, s1, finiteAll);
        const __m512d both = _mm512_add_pd(s0, s1); // not finite when either is not
        if (_mm512_fpclass_pd_mask(both, 0x01 | 0x08 | 0x10 | 0x80) != 0) { // QNaN, ±Inf, SNaN
            l = _mm512_loadu_ps(lo + k), h = _mm512_loadu_ps(hi + k);
            s0 = _mm512_loadu_pd(sum + k), s1 = _mm512_loadu_pd(sum + k + 8);
            addColumnVector<D, true>(row, rowBytes, rows, l, h, s0, s1, finiteAll);
        }
        _mm512_storeu_ps(lo + k, l);
        _mm512_storeu_ps(hi + k, h);
        _mm512_storeu_pd(sum + k, s0);
        _mm512_storeu_pd(sum + k + 8, s1);
    }
    return addRowsToColumnsScalar(D, p + size * k, rowBytes, rows, n - k, lo + k, hi + k, sum + k)
        && finiteAll == 0xFFFF;
}

} // namespace

bool finiteRange(DType dtype, const std::byte *p, std::size_t n, float &lo, float &hi)
{
    switch (dtype) {
    case DType::F32:
        return finiteRangeLanes<DType::F32>(p, n, lo, hi);
    case DType::BF16:
        return finiteRangeLanes<DType::BF16>(p, n, lo, hi);
    default:
        return finiteRangeLanes<DType::F16>(p, n, lo, hi);
    }
}

bool addRowsToColumns(DType dtype, const std::byte *p, std::size_t rowBytes, std::size_t rows, std::size_t n,
    float *lo, float *hi, double *sum, const std::byte *next)
{
    switch (dtype) {
    case DType::F32:
        return addRowsLanes<DType::F32>(p, rowBytes, rows, n, lo, hi, sum, next);
    case DType::BF16:
        return addRowsLanes<DType::BF16>(p, rowBytes, rows, n, lo, hi, sum, next);
    default:
        return addRowsLanes<DType::F16>(p, rowBytes, rows, n, lo, hi, sum, next);
    }
}

#else // not x86-64 with GCC or Clang: never called (avx512::enabled() is false)

bool finiteRange(DType dtype, const std::byte *p, std::size_t n, float &lo, float &hi)
{
    return finiteRangeScalar(dtype, p, n, lo, hi);
}
bool addRowsToColumns(DType dtype, const std::byte *p, std::size_t rowBytes, std::size_t rows, std::size_t n,
    float *lo, float *hi, double *sum, const std::byte *)
{
    return addRowsToColumnsScalar(dtype, p, rowBytes, rows, n, lo, hi, sum);
}

#endif

} // namespace stb::kernels::avx512
