// Built with -O3 (core/CMakeLists.txt): the bodies are plain loops the vectorizer turns into
// 16-wide code inside the AVX-512 wrappers and into SSE code inside the portable ones. The
// bodies are always inlined into both, so each is compiled for its wrapper's target.
#include "core/quant/dequantruns.h"

#include "core/stats/kernels/avx512.h"

#include <bit>
#include <cmath>
#include <cstring>
#if defined(__x86_64__) && defined(__GNUC__)
#include <immintrin.h>
#endif

#if defined(__x86_64__) && defined(__GNUC__)
#define STB_WIDE_RUNS 1
#define STB_AVX512 __attribute__((target("avx512f,avx512bw,avx512dq,avx512vl")))
#define STB_BODY [[gnu::always_inline]] inline
#else
#define STB_WIDE_RUNS 0
#define STB_AVX512
#define STB_BODY inline
#endif

namespace stb::quant {

namespace {

STB_BODY void affineBody(const std::byte *__restrict words, unsigned shift, std::uint32_t mask,
    const float *__restrict zeros, const float *__restrict scales, std::size_t n, float *__restrict out)
{
    for (std::size_t k = 0; k < n; ++k) {
        std::uint32_t word;
        std::memcpy(&word, words + 4 * k, 4);
        out[k] = (static_cast<float>((word >> shift) & mask) - zeros[k]) * scales[k];
    }
}

STB_BODY void tableBody(const std::uint8_t *__restrict codes, const float *__restrict table, float scale,
    std::size_t n, float *__restrict out)
{
    for (std::size_t k = 0; k < n; ++k)
        out[k] = table[codes[k]] * scale;
}

STB_BODY void e4m3Body(
    const std::uint8_t *__restrict codes, float scale, std::size_t n, float *__restrict out)
{
    for (std::size_t k = 0; k < n; ++k) {
        const std::uint32_t c = codes[k], magnitude = c & 0x7fu;
        // Exponent bias 7 becomes 127: e + 120 above the three mantissa bits. Selected by masks,
        // not branches, so that the loop stays a vector loop.
        const std::uint32_t normal = (magnitude << 20) + (120u << 23);
        const std::uint32_t subnormal = std::bit_cast<std::uint32_t>(static_cast<float>(magnitude) * 0x1p-9f);
        const std::uint32_t isNormal = 0u - static_cast<std::uint32_t>(magnitude >= 8);
        const std::uint32_t isNan = 0u - static_cast<std::uint32_t>(magnitude == 0x7fu);
        std::uint32_t bits = (normal & isNormal) | (subnormal & ~isNormal);
        bits = (bits & ~isNan) | (0x7fc00000u & isNan);
        out[k] = std::bit_cast<float>(bits | ((c & 0x80u) << 24)) * scale;
    }
}

STB_BODY void int8Body(const std::int8_t *__restrict codes, float scale, std::size_t n, float *__restrict out)
{
    for (std::size_t k = 0; k < n; ++k)
        out[k] = static_cast<float>(codes[k]) * scale;
}

STB_BODY void nibbleBody(const std::uint8_t *__restrict codes, const float *__restrict table16,
    const float *__restrict scales, std::size_t blocks, std::size_t blockBytes, float *__restrict out)
{
    for (std::size_t b = 0; b < blocks; ++b) {
        const std::uint8_t *__restrict in = codes + b * blockBytes;
        float *__restrict low = out + 2 * b * blockBytes;
        float *__restrict high = low + blockBytes;
        const float s = scales[b];
        for (std::size_t k = 0; k < blockBytes; ++k) {
            low[k] = table16[in[k] & 15] * s;
            high[k] = table16[in[k] >> 4] * s;
        }
    }
}

STB_BODY void momentsBody(const float *__restrict values, const std::uint32_t *__restrict counts, std::size_t n,
    double shift, CountedMoments &m)
{
    constexpr std::size_t kLanes = 8;
    double finite[kLanes] = {}, zeros[kLanes] = {}, nan[kLanes] = {}, posInf[kLanes] = {}, negInf[kLanes] = {},
           sum[kLanes] = {}, squares[kLanes] = {};
    float lo[kLanes], hi[kLanes];
    for (std::size_t j = 0; j < kLanes; ++j)
        lo[j] = INFINITY, hi[j] = -INFINITY;
    const std::size_t whole = n - n % kLanes;
    const auto lane = [&](std::size_t j, float v, std::uint32_t count) {
        const double c = static_cast<double>(count);
        const bool isFinite = (v - v) == 0.0f; // false for NaN and ±Inf
        const double cf = isFinite ? c : 0.0, d = isFinite ? static_cast<double>(v) - shift : 0.0;
        finite[j] += cf;
        sum[j] += cf * d;
        squares[j] += cf * d * d;
        zeros[j] += v == 0.0f ? c : 0.0;
        nan[j] += v != v ? c : 0.0;
        posInf[j] += v == INFINITY ? c : 0.0;
        negInf[j] += v == -INFINITY ? c : 0.0;
        const bool seen = isFinite && count != 0;
        lo[j] = seen && v < lo[j] ? v : lo[j];
        hi[j] = seen && v > hi[j] ? v : hi[j];
    };
    for (std::size_t k = 0; k < whole; k += kLanes) {
        for (std::size_t j = 0; j < kLanes; ++j)
            lane(j, values[k + j], counts[k + j]);
    }
    for (std::size_t k = whole; k < n; ++k)
        lane(k - whole, values[k], counts[k]);
    for (std::size_t j = 0; j < kLanes; ++j) {
        m.finite += finite[j];
        m.zeros += zeros[j];
        m.nan += nan[j];
        m.posInf += posInf[j];
        m.negInf += negInf[j];
        m.sum += sum[j];
        m.squares += squares[j];
        m.lo = lo[j] < m.lo ? lo[j] : m.lo;
        m.hi = hi[j] > m.hi ? hi[j] : m.hi;
    }
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

STB_AVX512 void affineWide(const std::byte *words, unsigned shift, std::uint32_t mask, const float *zeros,
    const float *scales, std::size_t n, float *out)
{
    affineBody(words, shift, mask, zeros, scales, n, out);
}

STB_AVX512 void tableWide(
    const std::uint8_t *codes, const float *table, float scale, std::size_t n, float *out)
{
    tableBody(codes, table, scale, n, out);
}

STB_AVX512 void e4m3Wide(const std::uint8_t *codes, float scale, std::size_t n, float *out)
{
    e4m3Body(codes, scale, n, out);
}

STB_AVX512 void int8Wide(const std::int8_t *codes, float scale, std::size_t n, float *out)
{
    int8Body(codes, scale, n, out);
}

// The 16-entry table sits in one register: a permute per 16 codes instead of a gather.
STB_AVX512 void nibbleWide(const std::uint8_t *codes, const float *table16, const float *scales,
    std::size_t blocks, std::size_t blockBytes, float *out)
{
#if STB_WIDE_RUNS
    if (blockBytes % 16 == 0) {
        const __m512 table = _mm512_loadu_ps(table16);
        const __m512i fifteen = _mm512_set1_epi32(15);
        for (std::size_t b = 0; b < blocks; ++b) {
            const std::uint8_t *in = codes + b * blockBytes;
            float *low = out + 2 * b * blockBytes, *high = low + blockBytes;
            const __m512 s = _mm512_set1_ps(scales[b]);
            for (std::size_t k = 0; k < blockBytes; k += 16) {
                const __m512i bytes
                    = _mm512_cvtepu8_epi32(_mm_loadu_si128(reinterpret_cast<const __m128i *>(in + k)));
                const __m512i lo = _mm512_and_si512(bytes, fifteen), hi = _mm512_srli_epi32(bytes, 4);
                _mm512_storeu_ps(low + k, _mm512_mul_ps(_mm512_permutexvar_ps(lo, table), s));
                _mm512_storeu_ps(high + k, _mm512_mul_ps(_mm512_permutexvar_ps(hi, table), s));
            }
        }
        return;
    }
#endif
    nibbleBody(codes, table16, scales, blocks, blockBytes, out);
}

} // namespace

void affineRun(const std::byte *words, unsigned shift, std::uint32_t mask, const float *zeros,
    const float *scales, std::size_t n, float *out)
{
    if (STB_WIDE_RUNS && kernels::avx512::enabled())
        affineWide(words, shift, mask, zeros, scales, n, out);
    else
        affineBody(words, shift, mask, zeros, scales, n, out);
}

void tableRun(const std::uint8_t *codes, const float *table, float scale, std::size_t n, float *out)
{
    if (STB_WIDE_RUNS && kernels::avx512::enabled())
        tableWide(codes, table, scale, n, out);
    else
        tableBody(codes, table, scale, n, out);
}

void e4m3Run(const std::uint8_t *codes, float scale, std::size_t n, float *out)
{
    if (STB_WIDE_RUNS && kernels::avx512::enabled())
        e4m3Wide(codes, scale, n, out);
    else
        e4m3Body(codes, scale, n, out);
}

void int8Run(const std::int8_t *codes, float scale, std::size_t n, float *out)
{
    if (STB_WIDE_RUNS && kernels::avx512::enabled())
        int8Wide(codes, scale, n, out);
    else
        int8Body(codes, scale, n, out);
}

void nibbleBlocksRun(const std::uint8_t *codes, const float *table16, const float *scales, std::size_t blocks,
    std::size_t blockBytes, float *out)
{
    if (STB_WIDE_RUNS && kernels::avx512::enabled())
        nibbleWide(codes, table16, scales, blocks, blockBytes, out);
    else
        nibbleBody(codes, table16, scales, blocks, blockBytes, out);
}

void countedMomentsRun(
    const float *values, const std::uint32_t *counts, std::size_t n, double shift, CountedMoments &m)
{
    if (STB_WIDE_RUNS && kernels::avx512::enabled())
        momentsWide(values, counts, n, shift, m);
    else
        momentsBody(values, counts, n, shift, m);
}

} // namespace stb::quant
