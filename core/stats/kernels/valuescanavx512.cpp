// The value views' kernels on AVX-512: 16 floats at a time, finiteness as a mask register, so a
// value left out costs no blend. Lane for lane what the scalar definitions compute (valuescan.h).
#include "core/stats/kernels/valuescan.h"

#include "core/stats/kernels/prefetch.h"
#include "core/stats/kernels/rowblocks.h"

#include <algorithm>
#include <utility>

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

// Column vectors carried down a block side by side: each column's sum is a chain of dependent
// additions (row after row, as the definition says), so one vector alone left the loop waiting
// on the adder's latency. Two took a fifth less time than one, and four more than two.
constexpr int kVectors = 2;

// kVectors column vectors (16 columns each) down `rows` rows from running values l, h, s0, s1.
// Masked: a value not finite is left out (and clears its lane in `finite`). Unmasked: every value
// goes in, so a value not finite spoils the lane, which the caller sees in the sums and redoes
// masked.
template<DType D, bool Masked>
STB_AVX512 inline void addColumnVectors(const std::byte *row, std::size_t rowBytes, std::size_t rows,
    __m512 *l, __m512 *h, __m512d *s0, __m512d *s1, __mmask16 &finiteAll)
{
    constexpr std::size_t size = D == DType::F32 ? 4 : 2;
    for (std::size_t r = 0; r < rows; ++r, row += rowBytes) {
        __m512 xs[kVectors];
        if constexpr (D == DType::BF16) {
            // A row's 32 codes in one load, as the floats of the even columns (each code shifted
            // into the top half of its 32-bit lane) and of the odd ones (the top half kept): two
            // operations for 32 values where widening 16 codes at a time took four (see
            // interleaved() for the running values' order).
            const __m512i codes = _mm512_loadu_si512(row);
            xs[0] = _mm512_castsi512_ps(_mm512_slli_epi32(codes, 16));
            xs[1] = _mm512_castsi512_ps(_mm512_and_si512(codes, _mm512_set1_epi32(int(0xFFFF0000u))));
        } else {
#pragma GCC unroll 2
            for (int v = 0; v < kVectors; ++v)
                xs[v] = load16<D>(row + v * 16 * size);
        }
#pragma GCC unroll 2
        for (int v = 0; v < kVectors; ++v) {
            __m512 x = xs[v];
            if constexpr (Masked) {
                const __mmask16 finite = finiteLanes(x);
                finiteAll &= finite;
                l[v] = _mm512_mask_min_ps(l[v], finite, x, l[v]);
                h[v] = _mm512_mask_max_ps(h[v], finite, x, h[v]);
                x = _mm512_maskz_mov_ps(finite, x); // +0 for a value left out
            } else {
                l[v] = _mm512_min_ps(x, l[v]);
                h[v] = _mm512_max_ps(x, h[v]);
            }
            s0[v] = _mm512_add_pd(s0[v], _mm512_cvtps_pd(_mm512_castps512_ps256(x)));
            s1[v] = _mm512_add_pd(
                s1[v], _mm512_cvtps_pd(_mm256_castpd_ps(_mm512_extractf64x4_pd(_mm512_castps_pd(x), 1))));
        }
    }
}

// BF16 carries its 32 columns interleaved: vector 0 the even columns, vector 1 the odd ones (l and
// h: lane i is column 2i or 2i+1; s0 and s1: the first and last 8 of those), and keeps them in
// that order in lo, hi and sum between blocks: put in it once per call and back in column order
// at its end. Doing so at each block's loads and stores took as long as the shifts it saved.
template<DType D> constexpr bool interleaved()
{
    static_assert(kVectors == 2);
    return D == DType::BF16;
}

// Lanes [a0 b0 a1 b1 ...] of two vectors of 16 (or 8) from a = the even, b = the odd entries.
STB_AVX512 inline void toColumnOrder(__m512 &a, __m512 &b)
{
    const __m512i first = _mm512_set_epi32(23, 7, 22, 6, 21, 5, 20, 4, 19, 3, 18, 2, 17, 1, 16, 0);
    const __m512i second = _mm512_set_epi32(31, 15, 30, 14, 29, 13, 28, 12, 27, 11, 26, 10, 25, 9, 24, 8);
    const __m512 x = _mm512_permutex2var_ps(a, first, b), y = _mm512_permutex2var_ps(a, second, b);
    a = x, b = y;
}
STB_AVX512 inline void toColumnOrder(__m512d &a, __m512d &b)
{
    const __m512i first = _mm512_set_epi64(11, 3, 10, 2, 9, 1, 8, 0);
    const __m512i second = _mm512_set_epi64(15, 7, 14, 6, 13, 5, 12, 4);
    const __m512d x = _mm512_permutex2var_pd(a, first, b), y = _mm512_permutex2var_pd(a, second, b);
    a = x, b = y;
}
// The inverse: a, b in column order to the even and the odd entries.
STB_AVX512 inline void toInterleaved(__m512 &a, __m512 &b)
{
    const __m512i even = _mm512_set_epi32(30, 28, 26, 24, 22, 20, 18, 16, 14, 12, 10, 8, 6, 4, 2, 0);
    const __m512i odd = _mm512_set_epi32(31, 29, 27, 25, 23, 21, 19, 17, 15, 13, 11, 9, 7, 5, 3, 1);
    const __m512 x = _mm512_permutex2var_ps(a, even, b), y = _mm512_permutex2var_ps(a, odd, b);
    a = x, b = y;
}
STB_AVX512 inline void toInterleaved(__m512d &a, __m512d &b)
{
    const __m512i even = _mm512_set_epi64(14, 12, 10, 8, 6, 4, 2, 0);
    const __m512i odd = _mm512_set_epi64(15, 13, 11, 9, 7, 5, 3, 1);
    const __m512d x = _mm512_permutex2var_pd(a, even, b), y = _mm512_permutex2var_pd(a, odd, b);
    a = x, b = y;
}

// The first n columns (a multiple of 32) of lo, hi and sum from column order to the interleaved
// one (toInterleaved) or back. Sums: columns 0-7, 8-15, 16-23, 24-31 at sum + 0, 8, 16, 24 in
// column order; the even columns of 0-15 (s0[0]), of 16-31 (s1[0]), the odd ones of 0-15 (s0[1])
// and of 16-31 (s1[1]) there when interleaved.
template<bool ToInterleaved> STB_AVX512 void reorder(std::size_t n, float *lo, float *hi, double *sum)
{
    for (std::size_t k = 0; k < n; k += 32) {
        for (float *p : { lo + k, hi + k }) {
            __m512 a = _mm512_loadu_ps(p), b = _mm512_loadu_ps(p + 16);
            if constexpr (ToInterleaved)
                toInterleaved(a, b);
            else
                toColumnOrder(a, b);
            _mm512_storeu_ps(p, a);
            _mm512_storeu_ps(p + 16, b);
        }
        double *q = sum + k;
        __m512d a = _mm512_loadu_pd(q), b = _mm512_loadu_pd(q + 8), c = _mm512_loadu_pd(q + 16),
                d = _mm512_loadu_pd(q + 24);
        if constexpr (ToInterleaved) {
            toInterleaved(a, b); // the even and the odd columns of 0-15
            toInterleaved(c, d); // of 16-31
            std::swap(b, c);
        } else {
            std::swap(b, c);
            toColumnOrder(a, b);
            toColumnOrder(c, d);
        }
        _mm512_storeu_pd(q, a);
        _mm512_storeu_pd(q + 8, b);
        _mm512_storeu_pd(q + 16, c);
        _mm512_storeu_pd(q + 24, d);
    }
}

// The running values of kVectors column vectors: stored, or where a fresh run starts.
STB_AVX512 inline void loadRunning(bool fresh, const float *lo, const float *hi, const double *sum, __m512 *l,
    __m512 *h, __m512d *s0, __m512d *s1)
{
    if (fresh) {
#pragma GCC unroll 2
        for (int v = 0; v < kVectors; ++v) {
            l[v] = _mm512_set1_ps(INFINITY);
            h[v] = _mm512_set1_ps(-INFINITY);
            s0[v] = s1[v] = _mm512_setzero_pd();
        }
        return;
    }
#pragma GCC unroll 2
    for (int v = 0; v < kVectors; ++v) {
        l[v] = _mm512_loadu_ps(lo + 16 * v);
        h[v] = _mm512_loadu_ps(hi + 16 * v);
        s0[v] = _mm512_loadu_pd(sum + 16 * v);
        s1[v] = _mm512_loadu_pd(sum + 16 * v + 8);
    }
}

STB_AVX512 inline void storeRunning(
    const __m512 *l, const __m512 *h, const __m512d *s0, const __m512d *s1, float *lo, float *hi, double *sum)
{
#pragma GCC unroll 2
    for (int v = 0; v < kVectors; ++v) {
        _mm512_storeu_ps(lo + 16 * v, l[v]);
        _mm512_storeu_ps(hi + 16 * v, h[v]);
        _mm512_storeu_pd(sum + 16 * v, s0[v]);
        _mm512_storeu_pd(sum + 16 * v + 8, s1[v]);
    }
}

// One block of at most kRowBlock rows over the first n columns (a multiple of 16·kVectors).
// Each group of column vectors goes down the block unmasked, and is redone masked from its stored
// running values when a sum came out not finite: a sum of finite floats in double cannot
// overflow, so that happens exactly when a value was NaN or infinite. The finiteness test and
// the masked moves cost a fifth of the loop on data that has no such value (nearly all).
template<DType D>
STB_AVX512 bool addBlock(const std::byte *p, std::size_t rowBytes, std::size_t rows, std::size_t n, float *lo,
    float *hi, double *sum, const std::byte *next, bool fresh)
{
    constexpr std::size_t size = D == DType::F32 ? 4 : 2;
    constexpr std::size_t columns = 16 * kVectors;
    __mmask16 finiteAll = 0xFFFF;
    BlockPrefetch prefetch(next, rowBytes, size * n, kRowBlock, n / columns);
    for (std::size_t k = 0; k < n; k += columns) {
        prefetch.step(); // first: with the running values loaded, its loop spilled them
        __m512 l[kVectors], h[kVectors];
        __m512d s0[kVectors], s1[kVectors];
        loadRunning(fresh, lo + k, hi + k, sum + k, l, h, s0, s1);
        const std::byte *row = p + size * k;
        addColumnVectors<D, false>(row, rowBytes, rows, l, h, s0, s1, finiteAll);
        __m512d both = _mm512_add_pd(s0[0], s1[0]); // not finite when one of them is not
#pragma GCC unroll 2
        for (int v = 1; v < kVectors; ++v)
            both = _mm512_add_pd(both, _mm512_add_pd(s0[v], s1[v]));
        if (_mm512_fpclass_pd_mask(both, 0x01 | 0x08 | 0x10 | 0x80) != 0) { // QNaN, ±Inf, SNaN
            loadRunning(fresh, lo + k, hi + k, sum + k, l, h, s0, s1);
            addColumnVectors<D, true>(row, rowBytes, rows, l, h, s0, s1, finiteAll);
        }
        storeRunning(l, h, s0, s1, lo + k, hi + k, sum + k);
    }
    return finiteAll == 0xFFFF;
}

// The family's kernels, for addRowsInBlocks (rowblocks.h).
struct Lanes {
    static constexpr std::size_t kColumns = 16 * kVectors;
    template<DType D> static constexpr bool interleaved() { return kernels::avx512::interleaved<D>(); }
    template<bool ToInterleaved> STB_AVX512 static void reorder(std::size_t n, float *lo, float *hi, double *sum)
    {
        kernels::avx512::reorder<ToInterleaved>(n, lo, hi, sum);
    }
    template<DType D>
    STB_AVX512 static bool addBlock(const std::byte *p, std::size_t rowBytes, std::size_t rows, std::size_t n, float *lo,
        float *hi, double *sum, const std::byte *next, bool fresh)
    {
        return kernels::avx512::addBlock<D>(p, rowBytes, rows, n, lo, hi, sum, next, fresh);
    }
};

template<DType D>
bool addRowsLanes(const std::byte *p, std::size_t rowBytes, std::size_t rows, std::size_t n, float *lo, float *hi,
    double *sum, bool fresh)
{
    return addRowsInBlocks<Lanes, D>(p, rowBytes, rows, n, lo, hi, sum, fresh);
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
    float *lo, float *hi, double *sum, bool fresh)
{
    switch (dtype) {
    case DType::F32:
        return addRowsLanes<DType::F32>(p, rowBytes, rows, n, lo, hi, sum, fresh);
    case DType::BF16:
        return addRowsLanes<DType::BF16>(p, rowBytes, rows, n, lo, hi, sum, fresh);
    default:
        return addRowsLanes<DType::F16>(p, rowBytes, rows, n, lo, hi, sum, fresh);
    }
}

#else // not x86-64 with GCC or Clang: never called (avx512::enabled() is false)

bool finiteRange(DType dtype, const std::byte *p, std::size_t n, float &lo, float &hi)
{
    return finiteRangeScalar(dtype, p, n, lo, hi);
}
bool addRowsToColumns(DType dtype, const std::byte *p, std::size_t rowBytes, std::size_t rows, std::size_t n,
    float *lo, float *hi, double *sum, bool fresh)
{
    if (fresh)
        startColumns(n, lo, hi, sum);
    return addRowsToColumnsScalar(dtype, p, rowBytes, rows, n, lo, hi, sum);
}

#endif

} // namespace stb::kernels::avx512
