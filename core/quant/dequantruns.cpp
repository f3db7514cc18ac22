// Built with -O3 (core/CMakeLists.txt): the bodies are plain loops the vectorizer turns into
// 16-wide code inside the AVX-512 wrappers and into SSE code inside the portable ones. The
// bodies are always inlined into both, so each is compiled for its wrapper's target.
#include "core/quant/dequantruns.h"

#include "core/stats/kernels/avx512.h"

#include <algorithm>
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

STB_BODY void byteAffineBody(
    const std::uint8_t *__restrict codes, float zero, float scale, std::size_t n, float *__restrict out)
{
    for (std::size_t k = 0; k < n; ++k)
        out[k] = (static_cast<float>(codes[k]) - zero) * scale;
}

STB_AVX512 void byteAffineWide(const std::uint8_t *codes, float zero, float scale, std::size_t n, float *out)
{
    byteAffineBody(codes, zero, scale, n, out);
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

STB_BODY void columnNibbleBody(const std::byte *words, std::size_t stride, std::size_t rows, std::size_t columns,
    std::uint32_t *tables)
{
    for (std::size_t r = 0; r < rows; ++r) {
        const std::byte *row = words + r * stride;
        for (std::size_t c = 0; c < columns; ++c) {
            std::uint32_t word;
            std::memcpy(&word, row + 4 * c, 4);
            std::uint32_t *t = tables + 16 * c;
            for (unsigned j = 0; j < 8; ++j, word >>= 4)
                ++t[word & 15];
        }
    }
}

STB_BODY void slotNibbleBody(const std::byte *words, std::size_t stride, std::size_t rows, std::size_t columns,
    std::size_t rowWords, std::uint32_t *tables)
{
    for (std::size_t r = 0; r < rows; ++r) {
        const std::byte *row = words + r * stride;
        for (std::size_t c = 0; c < columns; ++c) {
            std::uint32_t word;
            std::memcpy(&word, row + 4 * c, 4);
            for (unsigned s = 0; s < 8; ++s, word >>= 4)
                ++tables[(s * rowWords + c) * 16 + (word & 15)];
        }
    }
}

STB_BODY void blockNibbleBody(
    const std::uint8_t *codes, std::size_t blockBytes, std::size_t blocks, std::uint32_t *tables)
{
    for (std::size_t b = 0; b < blocks; ++b) {
        const std::uint8_t *in = codes + b * blockBytes;
        std::uint32_t *t = tables + 16 * b;
        for (std::size_t k = 0; k < blockBytes; ++k) {
            ++t[in[k] & 15];
            ++t[in[k] >> 4];
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

#if STB_WIDE_RUNS
// Per byte lane and code, how many of the lane's nibbles (low, high or both, by `which`) equal
// the code, over `rows` rows of 64 bytes: acc[code] += 1 per row and nibble counted (at most
// 255 in all).
template<unsigned which>
STB_AVX512 void laneCodeCounts(const std::byte *p, std::size_t stride, std::size_t rows, __m512i *acc)
{
    const __m512i fifteen = _mm512_set1_epi8(15), minusOne = _mm512_set1_epi8(-1);
    for (std::size_t r = 0; r < rows; ++r) {
        const __m512i v = _mm512_loadu_si512(p + r * stride);
        const __m512i lo = _mm512_and_si512(v, fifteen), hi = _mm512_and_si512(_mm512_srli_epi16(v, 4), fifteen);
#pragma GCC unroll 16
        for (unsigned c = 0; c < 16; ++c) {
            const __m512i code = _mm512_set1_epi8(static_cast<char>(c));
            if (which & 1)
                acc[c] = _mm512_mask_sub_epi8(acc[c], _mm512_cmpeq_epi8_mask(lo, code), acc[c], minusOne);
            if (which & 2)
                acc[c] = _mm512_mask_sub_epi8(acc[c], _mm512_cmpeq_epi8_mask(hi, code), acc[c], minusOne);
        }
    }
}
#endif

STB_AVX512 void columnNibbleWide(const std::byte *words, std::size_t stride, std::size_t rows, std::size_t columns,
    std::uint32_t *tables)
{
    std::size_t c0 = 0;
#if STB_WIDE_RUNS
    const __m512i ones8 = _mm512_set1_epi8(1), ones16 = _mm512_set1_epi16(1);
    alignas(64) std::uint32_t sums[16][16];
    for (; c0 + 16 <= columns; c0 += 16) {
        for (std::size_t r0 = 0; r0 < rows; r0 += 127) {
            __m512i acc[16];
            for (auto &a : acc)
                a = _mm512_setzero_si512();
            laneCodeCounts<3>(words + r0 * stride + 4 * c0, stride, std::min<std::size_t>(127, rows - r0), acc);
            for (unsigned c = 0; c < 16; ++c) // the four bytes of a word's lane summed
                _mm512_store_si512(sums[c], _mm512_madd_epi16(_mm512_maddubs_epi16(acc[c], ones8), ones16));
            for (unsigned lane = 0; lane < 16; ++lane) {
                for (unsigned c = 0; c < 16; ++c)
                    tables[(c0 + lane) * 16 + c] += sums[c][lane];
            }
        }
    }
#endif
    columnNibbleBody(words + 4 * c0, stride, rows, columns - c0, tables + 16 * c0);
}

STB_AVX512 void slotNibbleWide(const std::byte *words, std::size_t stride, std::size_t rows, std::size_t columns,
    std::size_t rowWords, std::uint32_t *tables)
{
    std::size_t c0 = 0;
#if STB_WIDE_RUNS
    alignas(64) std::uint8_t bytes[16][64];
    for (; c0 + 16 <= columns; c0 += 16) {
        for (std::size_t r0 = 0; r0 < rows; r0 += 255) {
            const std::size_t n = std::min<std::size_t>(255, rows - r0);
            for (unsigned high = 0; high < 2; ++high) {
                __m512i acc[16];
                for (auto &a : acc)
                    a = _mm512_setzero_si512();
                if (high)
                    laneCodeCounts<2>(words + r0 * stride + 4 * c0, stride, n, acc);
                else
                    laneCodeCounts<1>(words + r0 * stride + 4 * c0, stride, n, acc);
                for (unsigned c = 0; c < 16; ++c)
                    _mm512_store_si512(bytes[c], acc[c]);
                // Byte lane 4j + k: word c0 + j, nibble slot 2k (+1 for the high nibble).
                for (unsigned k = 0; k < 4; ++k) {
                    std::uint32_t *t = tables + ((2 * k + high) * rowWords + c0) * 16;
                    for (unsigned j = 0; j < 16; ++j) {
                        for (unsigned c = 0; c < 16; ++c)
                            t[j * 16 + c] += bytes[c][4 * j + k];
                    }
                }
            }
        }
    }
#endif
    slotNibbleBody(words + 4 * c0, stride, rows, columns - c0, rowWords, tables + 16 * c0);
}

STB_AVX512 void blockNibbleWide(
    const std::uint8_t *codes, std::size_t blockBytes, std::size_t blocks, std::uint32_t *tables)
{
#if STB_WIDE_RUNS
    if (blockBytes % 32 == 0) {
        // Halves of 32 bytes: the low and high 32 bits of a 64-byte compare mask.
        const std::size_t halves = blocks * blockBytes / 32, perBlock = blockBytes / 32;
        const __m512i fifteen = _mm512_set1_epi8(15);
        std::size_t h = 0;
        for (; h + 2 <= halves; h += 2) {
            const __m512i v = _mm512_loadu_si512(codes + 32 * h);
            const __m512i lo = _mm512_and_si512(v, fifteen), hi = _mm512_and_si512(_mm512_srli_epi16(v, 4), fifteen);
            std::uint32_t *t0 = tables + 16 * (h / perBlock), *t1 = tables + 16 * ((h + 1) / perBlock);
#pragma GCC unroll 16
            for (unsigned c = 0; c < 16; ++c) {
                const __m512i code = _mm512_set1_epi8(static_cast<char>(c));
                const std::uint64_t a = _cvtmask64_u64(_mm512_cmpeq_epi8_mask(lo, code));
                const std::uint64_t b = _cvtmask64_u64(_mm512_cmpeq_epi8_mask(hi, code));
                t0[c] += static_cast<std::uint32_t>(std::popcount(a & 0xFFFFFFFFu) + std::popcount(b & 0xFFFFFFFFu));
                t1[c] += static_cast<std::uint32_t>(std::popcount(a >> 32) + std::popcount(b >> 32));
            }
        }
        if (h < halves) { // one half left: the last block's last 32 bytes
            const std::uint8_t *in = codes + 32 * h;
            std::uint32_t *t = tables + 16 * (h / perBlock);
            for (std::size_t k = 0; k < 32; ++k) {
                ++t[in[k] & 15];
                ++t[in[k] >> 4];
            }
        }
        return;
    }
#endif
    blockNibbleBody(codes, blockBytes, blocks, tables);
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

void byteAffineRun(const std::uint8_t *codes, float zero, float scale, std::size_t n, float *out)
{
    if (STB_WIDE_RUNS && kernels::avx512::enabled())
        byteAffineWide(codes, zero, scale, n, out);
    else
        byteAffineBody(codes, zero, scale, n, out);
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

void columnNibbleCounts(const std::byte *words, std::size_t stride, std::size_t rows, std::size_t columns,
    std::uint32_t *tables)
{
    if (STB_WIDE_RUNS && kernels::avx512::enabled())
        columnNibbleWide(words, stride, rows, columns, tables);
    else
        columnNibbleBody(words, stride, rows, columns, tables);
}

void slotNibbleCounts(const std::byte *words, std::size_t stride, std::size_t rows, std::size_t columns,
    std::size_t rowWords, std::uint32_t *tables)
{
    if (STB_WIDE_RUNS && kernels::avx512::enabled())
        slotNibbleWide(words, stride, rows, columns, rowWords, tables);
    else
        slotNibbleBody(words, stride, rows, columns, rowWords, tables);
}

void blockNibbleCounts(const std::uint8_t *codes, std::size_t blockBytes, std::size_t blocks, std::uint32_t *tables)
{
    if (STB_WIDE_RUNS && kernels::avx512::enabled())
        blockNibbleWide(codes, blockBytes, blocks, tables);
    else
        blockNibbleBody(codes, blockBytes, blocks, tables);
}

} // namespace stb::quant
