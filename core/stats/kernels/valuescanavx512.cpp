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

template<DType D>
STB_AVX512 bool addRowLanes(const std::byte *p, std::size_t n, float *lo, float *hi, double *sum)
{
    constexpr std::size_t size = D == DType::F32 ? 4 : 2;
    __mmask16 finiteAll = 0xFFFF;
    std::size_t k = 0;
    for (; k + 16 <= n; k += 16) {
        const __m512 x = load16<D>(p + size * k);
        const __mmask16 finite = finiteLanes(x);
        finiteAll &= finite;
        const __m512 l = _mm512_loadu_ps(lo + k), h = _mm512_loadu_ps(hi + k);
        _mm512_storeu_ps(lo + k, _mm512_mask_min_ps(l, finite, x, l));
        _mm512_storeu_ps(hi + k, _mm512_mask_max_ps(h, finite, x, h));
        const __m512 kept = _mm512_maskz_mov_ps(finite, x); // +0 for a value left out
        const __m512d low = _mm512_cvtps_pd(_mm512_castps512_ps256(kept));
        const __m512d high
            = _mm512_cvtps_pd(_mm256_castpd_ps(_mm512_extractf64x4_pd(_mm512_castps_pd(kept), 1)));
        _mm512_storeu_pd(sum + k, _mm512_add_pd(_mm512_loadu_pd(sum + k), low));
        _mm512_storeu_pd(sum + k + 8, _mm512_add_pd(_mm512_loadu_pd(sum + k + 8), high));
    }
    return addRowToColumnsScalar(D, p + size * k, n - k, lo + k, hi + k, sum + k) && finiteAll == 0xFFFF;
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

bool addRowToColumns(DType dtype, const std::byte *p, std::size_t n, float *lo, float *hi, double *sum)
{
    switch (dtype) {
    case DType::F32:
        return addRowLanes<DType::F32>(p, n, lo, hi, sum);
    case DType::BF16:
        return addRowLanes<DType::BF16>(p, n, lo, hi, sum);
    default:
        return addRowLanes<DType::F16>(p, n, lo, hi, sum);
    }
}

#else // not x86-64 with GCC or Clang: never called (avx512::enabled() is false)

bool finiteRange(DType dtype, const std::byte *p, std::size_t n, float &lo, float &hi)
{
    return finiteRangeScalar(dtype, p, n, lo, hi);
}
bool addRowToColumns(DType dtype, const std::byte *p, std::size_t n, float *lo, float *hi, double *sum)
{
    return addRowToColumnsScalar(dtype, p, n, lo, hi, sum);
}

#endif

} // namespace stb::kernels::avx512
