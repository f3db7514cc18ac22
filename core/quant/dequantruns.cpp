// Built with -O3 (core/CMakeLists.txt): the bodies are plain loops the vectorizer turns into
// 16-wide code inside the AVX-512 wrappers and into SSE code inside the portable ones. The
// bodies are always inlined into both, so each is compiled for its wrapper's target. Code
// counting is in dequantcountruns.cpp, the moments of counted values in dequantmomentruns.cpp.
#include "core/quant/dequantruns.h"

#include "core/stats/kernels/avx512.h"
#include "core/stats/kernels/prefetch.h"
#include "core/stats/kernels/valuescan.h"

#include <bit>
#include <cmath>
#include <cstring>

#include "core/quant/runtarget.h"

namespace stb::quant {

namespace {

// The decoders' codes a page ahead, at the statistics kernels' distance (kernels/prefetch.h): the
// hardware prefetchers stop at page boundaries.
inline void prefetchPage(const void *p)
{
    __builtin_prefetch(static_cast<const char *>(p) + kernels::kPrefetchAhead, 0, 3);
}

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
    const float *__restrict zeros, const float *__restrict scales, std::size_t blocks, std::size_t blockBytes,
    float *__restrict out)
{
    for (std::size_t b = 0; b < blocks; ++b) {
        const std::uint8_t *__restrict in = codes + b * blockBytes;
        float *__restrict low = out + 2 * b * blockBytes;
        float *__restrict high = low + blockBytes;
        const float s = scales[b], z = zeros ? zeros[b] : 0.0f;
        for (std::size_t k = 0; k < blockBytes; ++k) {
            low[k] = (table16[in[k] & 15] - z) * s;
            high[k] = (table16[in[k] >> 4] - z) * s;
        }
    }
}

STB_BODY void scaledTablesBody(
    const float *__restrict table16, const float *__restrict scales, std::size_t blocks, float *__restrict out)
{
    for (std::size_t b = 0; b < blocks; ++b) {
        for (std::size_t c = 0; c < 16; ++c)
            out[16 * b + c] = table16[c] * scales[b];
    }
}

STB_AVX512 void scaledTablesWide(const float *table16, const float *scales, std::size_t blocks, float *out)
{
    scaledTablesBody(table16, scales, blocks, out);
}

STB_AVX2 void scaledTablesAvx2(const float *table16, const float *scales, std::size_t blocks, float *out)
{
    scaledTablesBody(table16, scales, blocks, out);
}

template<unsigned codes>
STB_BODY void affineTablesBody(const float *__restrict zeros, const float *__restrict scales, std::size_t positions,
    float *__restrict out)
{
    for (std::size_t r = 0; r < positions; ++r) {
        for (unsigned c = 0; c < codes; ++c)
            out[r * codes + c] = (static_cast<float>(c) - zeros[r]) * scales[r];
    }
}

template<unsigned codes>
STB_AVX512 void affineTablesWide(const float *zeros, const float *scales, std::size_t positions, float *out)
{
    affineTablesBody<codes>(zeros, scales, positions, out);
}

template<unsigned codes>
void affineTablesPick(const float *zeros, const float *scales, std::size_t positions, float *out)
{
    if (STB_WIDE_RUNS && kernels::avx512::enabled())
        affineTablesWide<codes>(zeros, scales, positions, out);
    else
        affineTablesBody<codes>(zeros, scales, positions, out);
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

#if STB_WIDE_RUNS
// 32 E4M3 codes to floats times scale (`scaled` = scale · 2^8): see e4m3Wide.
__attribute__((target("avx512f,avx512bw,avx512dq,avx512vl"), always_inline)) inline void e4m3Vector(
    __m256i c, __m512 scaled, __m512 &lo, __m512 &hi)
{
    const __m256i magnitude = _mm256_set1_epi8(0x7f);
    const __mmask32 isNan = _mm256_cmpeq_epi8_mask(_mm256_and_si256(c, magnitude), magnitude);
    const __m512i shifted = _mm512_slli_epi16(_mm512_cvtepu8_epi16(c), 7); // sign at bit 14
    __m512i half = _mm512_add_epi16(shifted, _mm512_and_si512(shifted, _mm512_set1_epi16(0x4000)));
    // (half & sign) | NaN, for the NaN codes
    const __m512i nan
        = _mm512_ternarylogic_epi32(half, _mm512_set1_epi16(-0x8000), _mm512_set1_epi16(0x7e00), 0xEA);
    half = _mm512_mask_mov_epi16(half, isNan, nan);
    lo = _mm512_mul_ps(_mm512_cvtph_ps(_mm512_castsi512_si256(half)), scaled);
    hi = _mm512_mul_ps(_mm512_cvtph_ps(_mm512_extracti64x4_epi64(half, 1)), scaled);
}
#endif

// 32 codes at a time through half floats: an E4M3 code's magnitude moved 7 bits up is the half
// float of its value times 2^-8 (the same exponent field, bias 15 for 7, the same subnormals),
// which vcvtph2ps widens exactly; times scale · 2^8 it rounds once, to the same float as
// value · scale. 0x7f becomes the half NaN 0x7e00 (with its sign, as the body's NaN keeps it).
// A scale of 2^100 or more could overflow when multiplied by 2^8: the body then. The codes are
// prefetched a page ahead: the hardware prefetchers stop at page boundaries, and the decoding
// analyzer waited on memory at the first load of each page (perf: 37 % of this loop's samples).
STB_AVX512 void e4m3Wide(const std::uint8_t *codes, float scale, std::size_t n, float *out)
{
#if STB_WIDE_RUNS
    if (std::fabs(scale) < 0x1p100f || !std::isfinite(scale)) {
        const __m512 scaled = _mm512_set1_ps(scale * 256.0f);
        std::size_t k = 0;
        __m512 lo, hi;
        for (; k + 32 <= n; k += 32) { // masked loads are slower: only for the tail
            prefetchPage(codes + k);
            e4m3Vector(_mm256_loadu_si256(reinterpret_cast<const __m256i *>(codes + k)), scaled, lo, hi);
            _mm512_storeu_ps(out + k, lo);
            _mm512_storeu_ps(out + k + 16, hi);
        }
        if (k < n) {
            const __mmask32 in = (__mmask32(1) << (n - k)) - 1;
            e4m3Vector(_mm256_maskz_loadu_epi8(in, codes + k), scaled, lo, hi);
            _mm512_mask_storeu_ps(out + k, static_cast<__mmask16>(in), lo);
            _mm512_mask_storeu_ps(out + k + 16, static_cast<__mmask16>(in >> 16), hi);
        }
        return;
    }
#endif
    e4m3Body(codes, scale, n, out);
}

STB_AVX512 void e4m3BlocksWide(
    const std::uint8_t *codes, const float *scales, std::size_t width, std::size_t blocks, float *out)
{
    for (std::size_t b = 0; b < blocks; ++b)
        e4m3Wide(codes + b * width, scales[b], width, out + b * width);
}

STB_AVX512 void int8Wide(const std::int8_t *codes, float scale, std::size_t n, float *out)
{
#if STB_WIDE_RUNS
    const __m512 s = _mm512_set1_ps(scale);
    std::size_t k = 0;
    for (; k + 16 <= n; k += 16) {
        prefetchPage(codes + k);
        const __m512i c = _mm512_cvtepi8_epi32(_mm_loadu_si128(reinterpret_cast<const __m128i *>(codes + k)));
        _mm512_storeu_ps(out + k, _mm512_mul_ps(_mm512_cvtepi32_ps(c), s));
    }
    int8Body(codes + k, scale, n - k, out + k);
#else
    int8Body(codes, scale, n, out);
#endif
}

// The 16-entry table sits in one register: a permute per 16 codes instead of a gather.
STB_AVX512 void nibbleWide(const std::uint8_t *codes, const float *table16, const float *zeros,
    const float *scales, std::size_t blocks, std::size_t blockBytes, float *out)
{
#if STB_WIDE_RUNS
    if (blockBytes % 16 == 0) {
        const __m512 table = _mm512_loadu_ps(table16);
        const __m512i fifteen = _mm512_set1_epi32(15);
        for (std::size_t b = 0; b < blocks; ++b) {
            const std::uint8_t *in = codes + b * blockBytes;
            prefetchPage(in);
            float *low = out + 2 * b * blockBytes, *high = low + blockBytes;
            const __m512 s = _mm512_set1_ps(scales[b]), z = _mm512_set1_ps(zeros ? zeros[b] : 0.0f);
            for (std::size_t k = 0; k < blockBytes; k += 16) {
                const __m512i bytes
                    = _mm512_cvtepu8_epi32(_mm_loadu_si128(reinterpret_cast<const __m128i *>(in + k)));
                const __m512i lo = _mm512_and_si512(bytes, fifteen), hi = _mm512_srli_epi32(bytes, 4);
                _mm512_storeu_ps(
                    low + k, _mm512_mul_ps(_mm512_sub_ps(_mm512_permutexvar_ps(lo, table), z), s));
                _mm512_storeu_ps(
                    high + k, _mm512_mul_ps(_mm512_sub_ps(_mm512_permutexvar_ps(hi, table), z), s));
            }
        }
        return;
    }
#endif
    nibbleBody(codes, table16, zeros, scales, blocks, blockBytes, out);
}

// The portable family's decoding loops on CPUs with AVX2 and F16C (kernels::avx2): the AVX-512
// ones' steps at 8 lanes, with the same page-ahead prefetch. The baseline x86-64 bodies took 2 to
// 3 times longer than code counting; these decode faster than it counts (see
// countingPaysWithoutHistogram).
#define STB_AVX2_F16C __attribute__((target("avx2,f16c")))

#if STB_WIDE_RUNS
STB_AVX2_F16C void e4m3Avx2(const std::uint8_t *codes, float scale, std::size_t n, float *out)
{
    std::size_t k = 0;
    if (std::fabs(scale) < 0x1p100f || !std::isfinite(scale)) { // as e4m3Wide
        const __m256 scaled = _mm256_set1_ps(scale * 256.0f);
        const __m256i magnitude = _mm256_set1_epi16(0x7f), signBit = _mm256_set1_epi16(0x4000),
                      sign = _mm256_set1_epi16(-0x8000), nan = _mm256_set1_epi16(0x7e00);
        for (; k + 16 <= n; k += 16) {
            if (k % 64 == 0)
                prefetchPage(codes + k);
            const __m256i c
                = _mm256_cvtepu8_epi16(_mm_loadu_si128(reinterpret_cast<const __m128i *>(codes + k)));
            const __m256i isNan = _mm256_cmpeq_epi16(_mm256_and_si256(c, magnitude), magnitude);
            const __m256i shifted = _mm256_slli_epi16(c, 7); // sign at bit 14
            __m256i half = _mm256_add_epi16(shifted, _mm256_and_si256(shifted, signBit));
            half = _mm256_blendv_epi8(half, _mm256_or_si256(_mm256_and_si256(half, sign), nan), isNan);
            _mm256_storeu_ps(out + k, _mm256_mul_ps(_mm256_cvtph_ps(_mm256_castsi256_si128(half)), scaled));
            _mm256_storeu_ps(
                out + k + 8, _mm256_mul_ps(_mm256_cvtph_ps(_mm256_extracti128_si256(half, 1)), scaled));
        }
    }
    e4m3Body(codes + k, scale, n - k, out + k);
}

STB_AVX2_F16C void int8Avx2(const std::int8_t *codes, float scale, std::size_t n, float *out)
{
    const __m256 s = _mm256_set1_ps(scale);
    std::size_t k = 0;
    for (; k + 8 <= n; k += 8) {
        if (k % 64 == 0)
            prefetchPage(codes + k);
        const __m256i c = _mm256_cvtepi8_epi32(_mm_loadl_epi64(reinterpret_cast<const __m128i *>(codes + k)));
        _mm256_storeu_ps(out + k, _mm256_mul_ps(_mm256_cvtepi32_ps(c), s));
    }
    int8Body(codes + k, scale, n - k, out + k);
}

// table16[code] for 8 codes of 4 bits: two 8-entry permutes, picked by the code's bit 3.
STB_AVX2_F16C inline __m256 nibbleLookup(__m256i code, __m256 low, __m256 high)
{
    const __m256 byHigh = _mm256_castsi256_ps(_mm256_slli_epi32(code, 28)); // bit 3 as the sign
    return _mm256_blendv_ps(
        _mm256_permutevar8x32_ps(low, code), _mm256_permutevar8x32_ps(high, code), byHigh);
}

STB_AVX2_F16C void nibbleAvx2(const std::uint8_t *codes, const float *table16, const float *zeros,
    const float *scales, std::size_t blocks, std::size_t blockBytes, float *out)
{
    if (blockBytes % 8) {
        nibbleBody(codes, table16, zeros, scales, blocks, blockBytes, out);
        return;
    }
    const __m256 low = _mm256_loadu_ps(table16), high = _mm256_loadu_ps(table16 + 8);
    const __m256i fifteen = _mm256_set1_epi32(15);
    for (std::size_t b = 0; b < blocks; ++b) {
        const std::uint8_t *in = codes + b * blockBytes;
        prefetchPage(in);
        float *lo = out + 2 * b * blockBytes, *hi = lo + blockBytes;
        const __m256 s = _mm256_set1_ps(scales[b]), z = _mm256_set1_ps(zeros ? zeros[b] : 0.0f);
        for (std::size_t k = 0; k < blockBytes; k += 8) {
            const __m256i bytes
                = _mm256_cvtepu8_epi32(_mm_loadl_epi64(reinterpret_cast<const __m128i *>(in + k)));
            const __m256 lowCodes = nibbleLookup(_mm256_and_si256(bytes, fifteen), low, high);
            const __m256 highCodes = nibbleLookup(_mm256_srli_epi32(bytes, 4), low, high);
            _mm256_storeu_ps(lo + k, _mm256_mul_ps(_mm256_sub_ps(lowCodes, z), s));
            _mm256_storeu_ps(hi + k, _mm256_mul_ps(_mm256_sub_ps(highCodes, z), s));
        }
    }
}
#endif

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
#if STB_WIDE_RUNS
    else if (kernels::avx2::enabled())
        e4m3Avx2(codes, scale, n, out);
#endif
    else
        e4m3Body(codes, scale, n, out);
}

void e4m3BlocksRun(
    const std::uint8_t *codes, const float *scales, std::size_t width, std::size_t blocks, float *out)
{
    if (STB_WIDE_RUNS && kernels::avx512::enabled()) {
        e4m3BlocksWide(codes, scales, width, blocks, out);
    } else {
        for (std::size_t b = 0; b < blocks; ++b)
            e4m3Run(codes + b * width, scales[b], width, out + b * width);
    }
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
#if STB_WIDE_RUNS
    else if (kernels::avx2::enabled())
        int8Avx2(codes, scale, n, out);
#endif
    else
        int8Body(codes, scale, n, out);
}

void nibbleBlocksRun(const std::uint8_t *codes, const float *table16, const float *zeros, const float *scales,
    std::size_t blocks, std::size_t blockBytes, float *out)
{
    if (STB_WIDE_RUNS && kernels::avx512::enabled())
        nibbleWide(codes, table16, zeros, scales, blocks, blockBytes, out);
#if STB_WIDE_RUNS
    else if (kernels::avx2::enabled())
        nibbleAvx2(codes, table16, zeros, scales, blocks, blockBytes, out);
#endif
    else
        nibbleBody(codes, table16, zeros, scales, blocks, blockBytes, out);
}

void scaledTablesRun(const float *table16, const float *scales, std::size_t blocks, float *out)
{
    if (STB_WIDE_RUNS && kernels::avx512::enabled())
        scaledTablesWide(table16, scales, blocks, out);
    else if (STB_WIDE_RUNS && kernels::avx2::enabled())
        scaledTablesAvx2(table16, scales, blocks, out);
    else
        scaledTablesBody(table16, scales, blocks, out);
}

void affineTablesRun(const float *zeros, const float *scales, std::size_t positions, unsigned codes, float *out)
{
    switch (codes) {
    case 4:
        return affineTablesPick<4>(zeros, scales, positions, out);
    case 16:
        return affineTablesPick<16>(zeros, scales, positions, out);
    case 256:
        return affineTablesPick<256>(zeros, scales, positions, out);
    default:
        for (std::size_t r = 0; r < positions; ++r) {
            for (unsigned c = 0; c < codes; ++c)
                out[r * codes + c] = (static_cast<float>(c) - zeros[r]) * scales[r];
        }
    }
}

} // namespace stb::quant
