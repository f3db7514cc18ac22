// The loops of the 8-bit group statistics (bytegroupruns.h). Built with -O3: the portable bodies
// are plain loops the vectorizer turns into byte vectors for each wrapper's target; the AVX2 and
// AVX-512 statistics, threshold counts and (AVX2) word transposes are written out.
#include "core/quant/bytegroupruns.h"

#include "core/stats/kernels/avx512.h"
#include "core/stats/kernels/valuescan.h"

#include <algorithm>
#include <cmath>
#include <cstring>

#include "core/quant/runtarget.h"

namespace stb::quant {

namespace {

STB_BODY void statsBody(
    const std::uint8_t *__restrict codes, std::size_t n, unsigned zero, ByteColumnStats &out)
{
    std::uint8_t lo = 255, hi = 0;
    for (std::size_t i = 0; i < n; ++i) {
        lo = std::min(lo, codes[i]);
        hi = std::max(hi, codes[i]);
    }
    std::uint32_t sum = 0, squares = 0;
    for (std::size_t i = 0; i < n; ++i) {
        const std::uint32_t q = codes[i];
        sum += q;
        squares += q * q;
    }
    std::uint32_t zeros = 0;
    if (zero < 256) {
        const auto z = static_cast<std::uint8_t>(zero);
        for (std::size_t i = 0; i < n; ++i)
            zeros += codes[i] == z;
    }
    out = { sum, squares, zeros, lo, hi };
}

STB_BODY void countBody(const std::uint8_t *__restrict codes, std::size_t n,
    const std::int32_t *__restrict thresholds, std::size_t k, std::uint32_t *__restrict counts)
{
    for (std::size_t j = 0; j < k; ++j) {
        const auto t = static_cast<std::uint8_t>(std::min(thresholds[j], 255));
        std::uint32_t total = 0;
        for (std::size_t i = 0; i < n;) { // byte counters, 255 codes at a time
            const std::size_t end = std::min(n, i + 255);
            std::uint8_t c = 0;
            for (; i < end; ++i)
                c += codes[i] >= t;
            total += c;
        }
        counts[j] = thresholds[j] > 255 ? 0 : total;
    }
}

STB_BODY void levelBinsBody(std::uint32_t *__restrict counts, std::size_t levels, std::uint32_t n, bool up,
    std::uint64_t *__restrict bins)
{
    if (!up) {
        for (std::size_t j = 0; j < levels; ++j)
            counts[j] = n - counts[j];
    }
    bins[0] += n - counts[0];
    for (std::size_t j = 1; j < levels; ++j)
        bins[j] += counts[j - 1] - counts[j];
    bins[levels] += counts[levels - 1];
}

// Eight levels at a time in GCC vectors (whatever the target makes of them), without a branch:
// t from the quotient a = zero + edge / (scale · unit), by a multiply: its ceiling (scale > 0) or
// its integer part + 1, taken kMargin towards the integer so that an edge on a value (a an
// integer, computed within a few ulps) gives that integer; then checked by the rule at t − 1
// (fails) and t (holds). The checks fail only for a quotient within kMargin of an integer that
// is not one: the caller decodes that group. The AVX kernels check only quotients within kMargin
// of an integer: where it is not clamped (|edge / (scale · unit)| <= 257) the quotient is off by
// less than 2^-40 (three roundings of doubles: the reciprocal, the product, the sum), so farther
// from an integer its ceiling and floor are exact; far outside, the clamp decides either way.
constexpr double kMargin = 0x1p-30;
inline bool up0(double scale)
{
    return scale > 0;
}
using Doubles = double __attribute__((vector_size(64)));
using Masks = decltype(Doubles {} < Doubles {}); // 8 lanes of 64-bit 0 or -1
using Ints = std::int32_t __attribute__((vector_size(32)));

STB_BODY Masks ruleBody(
    Doubles q, Doubles e, double scale, double z, double unit, Masks flip, double first, double last)
{
    return ((((scale * (q - z)) * unit >= e) ^ flip) & (q >= first)) | (q >= last);
}

STB_BODY bool thresholdsBody(double scale, std::int32_t zero, double unit, const double *__restrict edges,
    std::size_t k, unsigned lo, unsigned hi, std::int32_t *__restrict out)
{
    const double perCode = 1 / (scale * unit), z = zero, first = lo, last = double(hi) + 1;
    // F(q): the rule holds (scale > 0) or fails (scale < 0), non-decreasing in q; false below
    // `first`, true from `last` on. q − z is an integer and scale · (q − z) the exact float
    // value, as binIndex sees it.
    const Masks flip = Masks {} + (scale > 0 ? 0 : -1);
    Masks bad = {};
    for (std::size_t j = 0; j < k; j += 8) {
        Doubles e;
        std::memcpy(&e, edges + j, sizeof e);
        // Clamped to [first − 1, last] (so that the conversion stays in range and the integer
        // part is the floor), then the threshold to [first, last].
        Doubles a = z + e * perCode;
        a = a < first - 1 ? Doubles {} + (first - 1) : a;
        a = a > last ? Doubles {} + last : a;
        const Doubles whole = __builtin_convertvector(
                                  __builtin_convertvector(a + 1 + (scale > 0 ? 0 : kMargin), Ints), Doubles)
            - 1;
        Doubles t0 = scale > 0 ? (whole < a - kMargin ? whole + 1 : whole) : whole + 1;
        t0 = t0 < first ? Doubles {} + first : t0;
        t0 = t0 > last ? Doubles {} + last : t0;
        // -1 where the rule holds (no lambda: it would not take the wrapper's target).
        Masks wrong = ruleBody(t0 - 1, e, scale, z, unit, flip, first, last)
            | ~ruleBody(t0, e, scale, z, unit, flip, first, last);
        if (j + 8 > k) // the padding's lanes do not count
            wrong &= Masks { 0, 1, 2, 3, 4, 5, 6, 7 } < static_cast<std::int64_t>(k - j);
        bad |= wrong;
        const Ints ti = __builtin_convertvector(t0, Ints);
        std::memcpy(out + j, &ti, sizeof ti);
    }
    std::int64_t any = 0;
    for (int l = 0; l < 8; ++l)
        any |= bad[l];
    return !any;
}

// The column kernels' results, a lane per output, as ByteColumnStats (no rows: byteColumnStats' empty
// extremes).
void columnStatsOut(std::size_t width, std::size_t rows, const std::uint32_t *sums,
    const std::uint32_t *squares, const std::uint32_t *zeros, const std::uint32_t *leasts,
    const std::uint32_t *mosts, ByteColumnStats *out)
{
    for (std::size_t c = 0; c < width; ++c) {
        out[c] = { sums[c], squares[c], zeros[c],
            rows ? static_cast<std::uint8_t>(leasts[c]) : std::uint8_t(255),
            rows ? static_cast<std::uint8_t>(mosts[c]) : std::uint8_t(0) };
    }
}

STB_BODY void splitBody(const std::uint8_t *__restrict src, std::size_t rowBytes, std::size_t rows,
    std::size_t bytes, std::uint8_t *__restrict dst)
{
    for (std::size_t r = 0; r < rows; ++r) {
        const std::uint8_t *__restrict in = src + r * rowBytes;
        std::uint8_t *__restrict low = dst + 2 * r * bytes, *__restrict high = low + bytes;
        for (std::size_t b = 0; b < bytes; ++b) {
            low[b] = in[b] & 15;
            high[b] = in[b] >> 4;
        }
    }
}

void splitPortable(
    const std::uint8_t *src, std::size_t rowBytes, std::size_t rows, std::size_t bytes, std::uint8_t *dst)
{
    splitBody(src, rowBytes, rows, bytes, dst);
}

void statsPortable(const std::uint8_t *codes, std::size_t n, unsigned zero, ByteColumnStats &out)
{
    statsBody(codes, n, zero, out);
}
void countPortable(const std::uint8_t *codes, std::size_t n, const std::int32_t *thresholds, std::size_t k,
    std::uint32_t *counts)
{
    countBody(codes, n, thresholds, k, counts);
}
bool thresholdsPortable(double scale, std::int32_t zero, double unit, const double *edges, std::size_t k,
    unsigned lo, unsigned hi, std::int32_t *out)
{
    return thresholdsBody(scale, zero, unit, edges, k, lo, hi, out);
}

void transposePortable(
    const std::uint8_t *src, std::size_t rowBytes, std::size_t rows, std::size_t columns, std::uint8_t *dst)
{
    for (std::size_t r = 0; r < rows; ++r, src += rowBytes) {
        for (std::size_t c = 0; c < columns; ++c)
            std::memcpy(dst + c * 4 * rows + 4 * r, src + 4 * c, 4);
    }
}

void columnStatsPortable(const std::uint8_t *src, std::size_t rowBytes, std::size_t rows, std::size_t columns,
    const unsigned *zeros, ByteColumnStats *out)
{
    std::uint8_t column[4 * 4096];
    for (std::size_t c = 0; c < columns; ++c) {
        for (std::size_t r = 0; r < rows; ++r)
            std::memcpy(column + 4 * r, src + r * rowBytes + 4 * c, 4);
        statsBody(column, 4 * rows, zeros[c], out[c]);
    }
}

void levelBinsPortable(
    std::uint32_t *counts, std::size_t levels, std::uint32_t n, bool up, std::uint64_t *bins)
{
    levelBinsBody(counts, levels, n, up, bins);
}

#if STB_WIDE_RUNS
STB_AVX2 void splitAvx2(
    const std::uint8_t *src, std::size_t rowBytes, std::size_t rows, std::size_t bytes, std::uint8_t *dst)
{
    splitBody(src, rowBytes, rows, bytes, dst);
}
STB_AVX512 void splitWide(
    const std::uint8_t *src, std::size_t rowBytes, std::size_t rows, std::size_t bytes, std::uint8_t *dst)
{
    splitBody(src, rowBytes, rows, bytes, dst);
}
STB_AVX2 void levelBinsAvx2(
    std::uint32_t *counts, std::size_t levels, std::uint32_t n, bool up, std::uint64_t *bins)
{
    levelBinsBody(counts, levels, n, up, bins);
}
STB_AVX512 void levelBinsWide(
    std::uint32_t *counts, std::size_t levels, std::uint32_t n, bool up, std::uint64_t *bins)
{
    levelBinsBody(counts, levels, n, up, bins);
}
#define STB_AVX512_POPCNT __attribute__((target("avx512f,avx512bw,avx512dq,avx512vl,popcnt")))
#define STB_AVX2_POPCNT __attribute__((target("avx2,popcnt")))
// byteColumnStats in 32-code steps, as statsWide: vpsadbw sums, vpmaddwd squares, a compare per
// zero; a short last step is filled with the first code (extremes) and zeros (sums), its
// zeros masked.
STB_AVX2_POPCNT void statsAvx2(const std::uint8_t *codes, std::size_t n, unsigned zero, ByteColumnStats &out)
{
    if (!n) {
        out = {};
        return;
    }
    const __m256i nothing = _mm256_setzero_si256(), fill = _mm256_set1_epi8(static_cast<char>(codes[0]));
    const __m256i zv = _mm256_set1_epi8(static_cast<char>(zero));
    __m256i lo = fill, hi = fill, sum = nothing, squares = nothing;
    std::uint32_t zeros = 0;
    const auto step
        = [&](__m256i x, __m256i filled, std::uint32_t valid) __attribute__((target("avx2,popcnt")))
    {
        lo = _mm256_min_epu8(lo, filled);
        hi = _mm256_max_epu8(hi, filled);
        sum = _mm256_add_epi64(sum, _mm256_sad_epu8(x, nothing));
        const __m256i a = _mm256_unpacklo_epi8(x, nothing), b = _mm256_unpackhi_epi8(x, nothing);
        squares
            = _mm256_add_epi32(squares, _mm256_add_epi32(_mm256_madd_epi16(a, a), _mm256_madd_epi16(b, b)));
        if (zero < 256)
            zeros += static_cast<std::uint32_t>(_mm_popcnt_u32(
                valid & static_cast<std::uint32_t>(_mm256_movemask_epi8(_mm256_cmpeq_epi8(x, zv)))));
    };
    std::size_t i = 0;
    for (; i + 32 <= n; i += 32) {
        const __m256i x = _mm256_loadu_si256(reinterpret_cast<const __m256i *>(codes + i));
        step(x, x, ~0u);
    }
    if (i < n) {
        alignas(32) std::uint8_t tail[32] = {}, filled[32];
        std::memcpy(tail, codes + i, n - i);
        std::memset(filled, codes[0], sizeof filled);
        std::memcpy(filled, codes + i, n - i);
        step(_mm256_load_si256(reinterpret_cast<const __m256i *>(tail)),
            _mm256_load_si256(reinterpret_cast<const __m256i *>(filled)), (1u << (n - i)) - 1);
    }
    const auto least = [](__m256i v) __attribute__((target("avx2")))
    {
        __m128i q = _mm_min_epu8(_mm256_castsi256_si128(v), _mm256_extracti128_si256(v, 1));
        q = _mm_and_si128(_mm_min_epu8(q, _mm_srli_epi16(q, 8)), _mm_set1_epi16(0xFF));
        return static_cast<std::uint8_t>(_mm_cvtsi128_si32(_mm_minpos_epu16(q)));
    };
    // The sum of the 32-bit lanes.
    const auto total = [](__m256i v) __attribute__((target("avx2")))
    {
        __m128i q = _mm_add_epi32(_mm256_castsi256_si128(v), _mm256_extracti128_si256(v, 1));
        q = _mm_add_epi32(q, _mm_shuffle_epi32(q, 0x4E));
        q = _mm_add_epi32(q, _mm_shuffle_epi32(q, 0xB1));
        return static_cast<std::uint32_t>(_mm_cvtsi128_si32(q));
    };
    out.sum = total(sum); // 64-bit lanes whose high halves are 0
    out.squares = total(squares);
    out.zeros = zeros;
    out.lo = least(lo);
    out.hi = static_cast<std::uint8_t>(255 - least(_mm256_xor_si256(hi, _mm256_set1_epi8(-1))));
}

// Up to 128 codes in four registers, biased to signed bytes (q − 128), and four thresholds at a
// time: per threshold t, a signed compare with t − 1 (q >= t) and a subtraction per register
// gives per-byte counts (0 to 4), and one vpsadbw per threshold then packs and adds with the
// other three. Codes past n are 0 (−128 biased: above no threshold); thresholds are clamped to
// 1 … 256, and those at or below 0 count every code.
STB_AVX2 void countAvx2(const std::uint8_t *codes, std::size_t n, const std::int32_t *thresholds,
    std::size_t k, std::uint32_t *counts)
{
    std::fill(counts, counts + k, 0u);
    const __m256i bias = _mm256_set1_epi8(-128), nothing = _mm256_setzero_si256(),
                  ones = _mm256_set1_epi16(1);
    // Threshold t as the signed byte its compare needs: (clamp(t, 1, 256) − 1) − 128.
    const auto key = [&](std::size_t j) __attribute__((target("avx2")))
    {
        const std::int32_t t = std::clamp(thresholds[j], 1, 256);
        return _mm256_set1_epi8(static_cast<char>(t - 1 - 128));
    };
    for (std::size_t at = 0; at < n; at += 128) {
        const std::size_t m = std::min<std::size_t>(128, n - at);
        alignas(32) std::uint8_t tail[128]; // filled only for a short chunk (a memset per group cost 2%)
        const std::uint8_t *p = codes + at;
        if (m < 128) {
            std::memset(tail, 0, sizeof tail);
            std::memcpy(tail, p, m);
            p = tail;
        }
        __m256i x[4];
        for (std::size_t v = 0; v < 4; ++v)
            x[v] = _mm256_xor_si256(_mm256_loadu_si256(reinterpret_cast<const __m256i *>(p + 32 * v)), bias);
        if (m < 128) { // the zero padding to −128
            for (std::size_t v = 0; v < 4; ++v) {
                const std::size_t from = 32 * v;
                if (from >= m) {
                    x[v] = bias;
                } else if (m - from < 32) {
                    alignas(32) std::uint8_t keep[32] = {};
                    std::memset(keep, 0xFF, m - from);
                    x[v] = _mm256_blendv_epi8(
                        bias, x[v], _mm256_load_si256(reinterpret_cast<const __m256i *>(keep)));
                }
            }
        }
        const auto level = [&](__m256i t) __attribute__((target("avx2")))
        {
            __m256i c = _mm256_sub_epi8(nothing, _mm256_cmpgt_epi8(x[0], t));
            c = _mm256_sub_epi8(c, _mm256_cmpgt_epi8(x[1], t));
            c = _mm256_sub_epi8(c, _mm256_cmpgt_epi8(x[2], t));
            c = _mm256_sub_epi8(c, _mm256_cmpgt_epi8(x[3], t));
            return _mm256_sad_epu8(c, nothing); // four sums of 8 bytes, in 64-bit lanes
        };
        std::size_t j = 0;
        for (; j + 4 <= k; j += 4) {
            const __m256i s0 = level(key(j)), s1 = level(key(j + 1)), s2 = level(key(j + 2)),
                          s3 = level(key(j + 3));
            // Words [s0 s0 s1 s1 | s0 s0 s1 s1] (each sum < 2^16) added in pairs, then across.
            const __m256i p01 = _mm256_madd_epi16(_mm256_packus_epi32(s0, s1), ones),
                          p23 = _mm256_madd_epi16(_mm256_packus_epi32(s2, s3), ones);
            const __m256i h = _mm256_hadd_epi32(p01, p23);
            const __m128i c4 = _mm_add_epi32(_mm256_castsi256_si128(h), _mm256_extracti128_si256(h, 1));
            const __m128i before = _mm_loadu_si128(reinterpret_cast<const __m128i *>(counts + j));
            _mm_storeu_si128(reinterpret_cast<__m128i *>(counts + j), _mm_add_epi32(before, c4));
        }
        for (; j < k; ++j) {
            const __m256i s = level(key(j));
            const __m128i q = _mm_add_epi64(_mm256_castsi256_si128(s), _mm256_extracti128_si256(s, 1));
            counts[j]
                += static_cast<std::uint32_t>(_mm_cvtsi128_si32(_mm_add_epi64(q, _mm_unpackhi_epi64(q, q))));
        }
    }
    for (std::size_t j = 0; j < k; ++j) // every code is at or above a threshold <= 0
        if (thresholds[j] <= 0)
            counts[j] = static_cast<std::uint32_t>(n);
}

// transposeWords in 8 × 8 blocks of words: eight 32-byte rows in registers, transposed by
// unpacks and lane permutes, stored as eight 32-byte column pieces; the edges word by word.
STB_AVX2 void transposeAvx2(
    const std::uint8_t *src, std::size_t rowBytes, std::size_t rows, std::size_t columns, std::uint8_t *dst)
{
    const std::size_t rows8 = rows / 8 * 8, columns8 = columns / 8 * 8;
    for (std::size_t r = 0; r < rows8; r += 8) {
        const std::uint8_t *block = src + r * rowBytes;
        for (std::size_t c = 0; c < columns8; c += 8) {
            __m256i a[8];
            for (std::size_t i = 0; i < 8; ++i)
                a[i] = _mm256_loadu_si256(reinterpret_cast<const __m256i *>(block + i * rowBytes + 4 * c));
            // Rows i, i + 1 interleaved by word, then by pairs: u[k] holds words k (low lane) and
            // k + 4 (high lane) of rows 0-3 (u[k]) and 4-7 (u[k + 4]).
            __m256i t[8], u[8];
            for (std::size_t i = 0; i < 8; i += 2) {
                t[i] = _mm256_unpacklo_epi32(a[i], a[i + 1]);
                t[i + 1] = _mm256_unpackhi_epi32(a[i], a[i + 1]);
            }
            for (std::size_t h = 0; h < 8; h += 4) {
                u[h] = _mm256_unpacklo_epi64(t[h], t[h + 2]);
                u[h + 1] = _mm256_unpackhi_epi64(t[h], t[h + 2]);
                u[h + 2] = _mm256_unpacklo_epi64(t[h + 1], t[h + 3]);
                u[h + 3] = _mm256_unpackhi_epi64(t[h + 1], t[h + 3]);
            }
            for (std::size_t k = 0; k < 4; ++k) {
                std::uint8_t *low = dst + (c + k) * 4 * rows + 4 * r,
                             *high = dst + (c + k + 4) * 4 * rows + 4 * r;
                _mm256_storeu_si256(
                    reinterpret_cast<__m256i *>(low), _mm256_permute2x128_si256(u[k], u[k + 4], 0x20));
                _mm256_storeu_si256(
                    reinterpret_cast<__m256i *>(high), _mm256_permute2x128_si256(u[k], u[k + 4], 0x31));
            }
        }
        for (std::size_t i = r; i < r + 8; ++i)
            for (std::size_t c = columns8; c < columns; ++c)
                std::memcpy(dst + c * 4 * rows + 4 * i, src + i * rowBytes + 4 * c, 4);
    }
    for (std::size_t i = rows8; i < rows; ++i)
        for (std::size_t c = 0; c < columns; ++c)
            std::memcpy(dst + c * 4 * rows + 4 * i, src + i * rowBytes + 4 * c, 4);
}

// columnStatsWide's steps for 8 outputs (32 bytes of each row) at a time.
STB_AVX2 void columnStatsAvx2(const std::uint8_t *src, std::size_t rowBytes, std::size_t rows,
    std::size_t columns, const unsigned *zeros, ByteColumnStats *out)
{
    const __m256i nothing = _mm256_setzero_si256(), ones8 = _mm256_set1_epi8(1),
                  ones16 = _mm256_set1_epi16(1), all = _mm256_set1_epi8(-1);
    const auto words = [&](__m256i bytes) __attribute__((target("avx2")))
    {
        return _mm256_madd_epi16(_mm256_maddubs_epi16(bytes, ones8), ones16);
    };
    for (std::size_t c0 = 0; c0 < columns; c0 += 8) {
        const std::size_t width = std::min<std::size_t>(8, columns - c0);
        alignas(32) std::uint32_t zeroWords[8] = {}, zeroMask[8] = {}, load[8] = {};
        for (std::size_t c = 0; c < width; ++c) {
            load[c] = ~0u;
            if (zeros[c0 + c] < 256) {
                zeroWords[c] = zeros[c0 + c] * 0x01010101u;
                zeroMask[c] = ~0u;
            }
        }
        const __m256i zv = _mm256_load_si256(reinterpret_cast<const __m256i *>(zeroWords));
        const __m256i zm = _mm256_load_si256(reinterpret_cast<const __m256i *>(zeroMask));
        const __m256i valid = _mm256_load_si256(reinterpret_cast<const __m256i *>(load));
        __m256i sum = nothing, squaresLo = nothing, squaresHi = nothing, zeroCount = nothing,
                byteZeros = nothing;
        __m256i lo = all, hi = nothing;
        const std::uint8_t *p = src + 4 * c0;
        for (std::size_t r = 0; r < rows; ++r, p += rowBytes) {
            _mm_prefetch(reinterpret_cast<const char *>(p + 4 * columns), _MM_HINT_T0); // as columnStatsWide
            const __m256i x = width == 8 ? _mm256_loadu_si256(reinterpret_cast<const __m256i *>(p))
                                         : _mm256_maskload_epi32(reinterpret_cast<const int *>(p), valid);
            sum = _mm256_add_epi32(sum, words(x));
            const __m256i a = _mm256_unpacklo_epi8(x, nothing), b = _mm256_unpackhi_epi8(x, nothing);
            squaresLo = _mm256_add_epi32(squaresLo, _mm256_madd_epi16(a, a));
            squaresHi = _mm256_add_epi32(squaresHi, _mm256_madd_epi16(b, b));
            // Lanes past the width load 0: they may hold anything at the end.
            lo = _mm256_min_epu8(lo, x);
            hi = _mm256_max_epu8(hi, x);
            byteZeros = _mm256_sub_epi8(byteZeros, _mm256_and_si256(_mm256_cmpeq_epi8(x, zv), zm));
            if (r % 255 == 254) {
                zeroCount = _mm256_add_epi32(zeroCount, words(byteZeros));
                byteZeros = nothing;
            }
        }
        zeroCount = _mm256_add_epi32(zeroCount, words(byteZeros));
        const __m256 l = _mm256_castsi256_ps(squaresLo), h = _mm256_castsi256_ps(squaresHi);
        const __m256i squares = _mm256_add_epi32(_mm256_castps_si256(_mm256_shuffle_ps(l, h, 0x88)),
            _mm256_castps_si256(_mm256_shuffle_ps(l, h, 0xDD)));
        const __m256i lo1 = _mm256_min_epu8(lo, _mm256_srli_epi32(lo, 8));
        const __m256i least = _mm256_min_epu8(lo1, _mm256_srli_epi32(lo1, 16));
        const __m256i hi1 = _mm256_max_epu8(hi, _mm256_srli_epi32(hi, 8));
        const __m256i most = _mm256_max_epu8(hi1, _mm256_srli_epi32(hi1, 16));
        alignas(32) std::uint32_t sums[8], squareSums[8], zeroSums[8], leasts[8], mosts[8];
        _mm256_store_si256(reinterpret_cast<__m256i *>(sums), sum);
        _mm256_store_si256(reinterpret_cast<__m256i *>(squareSums), squares);
        _mm256_store_si256(reinterpret_cast<__m256i *>(zeroSums), zeroCount);
        _mm256_store_si256(reinterpret_cast<__m256i *>(leasts), least);
        _mm256_store_si256(reinterpret_cast<__m256i *>(mosts), most);
        columnStatsOut(width, rows, sums, squareSums, zeroSums, leasts, mosts, out + c0);
    }
}

// thresholdsWide in four lanes (the same operations, so the same thresholds).
STB_AVX2 bool thresholdsAvx2(double scale, std::int32_t zero, double unit, const double *edges, std::size_t k,
    unsigned lo, unsigned hi, std::int32_t *out)
{
    const double perCode = 1 / (scale * unit);
    const __m256d margin = _mm256_set1_pd(up0(scale) ? -kMargin : kMargin);
    const __m256d s = _mm256_set1_pd(scale), u = _mm256_set1_pd(unit), z = _mm256_set1_pd(zero);
    const __m256d first = _mm256_set1_pd(lo), last = _mm256_set1_pd(double(hi) + 1),
                  per = _mm256_set1_pd(perCode);
    const __m256d one = _mm256_set1_pd(1), all = _mm256_castsi256_pd(_mm256_set1_epi64x(-1));
    const bool up = scale > 0;
    const __m256d flip = up ? _mm256_setzero_pd() : all;
    const __m256d sign = _mm256_set1_pd(-0.0), within = _mm256_set1_pd(kMargin);
#define STB_RULE(q, e)                                                                                       \
    _mm256_or_pd(                                                                                            \
        _mm256_and_pd(_mm256_xor_pd(_mm256_cmp_pd(_mm256_mul_pd(_mm256_mul_pd(s, _mm256_sub_pd(q, z)), u),   \
                                        e, _CMP_GE_OQ),                                                      \
                          flip),                                                                             \
            _mm256_cmp_pd(q, first, _CMP_GE_OQ)),                                                            \
        _mm256_cmp_pd(q, last, _CMP_GE_OQ))
    int bad = 0;
    for (std::size_t j = 0; j < k; j += 4) {
        const int valid = k - j >= 4 ? 0xF : (1 << (k - j)) - 1;
        const __m256d e = _mm256_loadu_pd(edges + j);
        const __m256d quotient = _mm256_add_pd(z, _mm256_mul_pd(e, per));
        const __m256d off = _mm256_sub_pd(quotient, _mm256_round_pd(quotient, _MM_FROUND_TO_NEAREST_INT));
        const int far = _mm256_movemask_pd(_mm256_cmp_pd(_mm256_andnot_pd(sign, off), within, _CMP_GT_OQ));
        __m256d a = _mm256_add_pd(quotient, margin);
        a = _mm256_min_pd(_mm256_max_pd(a, _mm256_sub_pd(first, one)), last);
        __m256d t = up ? _mm256_ceil_pd(a) : _mm256_add_pd(_mm256_floor_pd(a), one);
        t = _mm256_min_pd(_mm256_max_pd(t, first), last);
        if ((far & valid) != valid) {
            const __m256d wrong
                = _mm256_or_pd(STB_RULE(_mm256_sub_pd(t, one), e), _mm256_xor_pd(STB_RULE(t, e), all));
            bad |= _mm256_movemask_pd(wrong) & valid;
        }
        _mm_storeu_si128(reinterpret_cast<__m128i *>(out + j), _mm256_cvttpd_epi32(t));
    }
#undef STB_RULE
    return !bad;
}

// Up to 256 codes in four registers, each threshold a compare to a mask and its popcount.
STB_AVX512_POPCNT void countWide(const std::uint8_t *codes, std::size_t n, const std::int32_t *thresholds,
    std::size_t k, std::uint32_t *counts)
{
    if (n > 256 || !n) // more than one step adds to the counts (one is stored: no clearing first)
        std::fill(counts, counts + k, 0u);
    for (std::size_t at = 0; at < n; at += 256) {
        const std::size_t m = std::min<std::size_t>(256, n - at);
        __m512i x[4];
        __mmask64 valid[4];
        for (std::size_t v = 0; v < 4; ++v) {
            const std::size_t from = 64 * v, length = m > from ? std::min<std::size_t>(64, m - from) : 0;
            valid[v] = length == 64 ? ~__mmask64(0) : (__mmask64(1) << length) - 1;
            x[v] = _mm512_maskz_loadu_epi8(valid[v], codes + at + from);
        }
        if (m == 128) { // the usual group
            for (std::size_t j = 0; j < k; ++j) {
                const __m512i t = _mm512_set1_epi8(static_cast<char>(std::min(thresholds[j], 255)));
                const auto c = static_cast<std::uint32_t>(_mm_popcnt_u64(_mm512_cmpge_epu8_mask(x[0], t))
                    + _mm_popcnt_u64(_mm512_cmpge_epu8_mask(x[1], t)));
                counts[j] = (n > 256 ? counts[j] : 0) + (thresholds[j] > 255 ? 0 : c);
            }
            continue;
        }
        for (std::size_t j = 0; j < k; ++j) {
            const __m512i t = _mm512_set1_epi8(static_cast<char>(std::min(thresholds[j], 255)));
            std::uint64_t c = 0;
            for (std::size_t v = 0; v < 4; ++v)
                c += _mm_popcnt_u64(_mm512_mask_cmpge_epu8_mask(valid[v], x[v], t));
            counts[j] = (n > 256 ? counts[j] : 0) + (thresholds[j] > 255 ? 0 : static_cast<std::uint32_t>(c));
        }
    }
}
// countWide and levelBinsBody in one loop for the usual group of 128 codes: each level's count
// goes straight into the bins, without the counts' round trip through memory. Thresholds are
// monotone in the level and within [lo, hi + 1]: at lo every code counts and at hi + 1 none, so
// only the levels between are compared, their keys broadcast from memory as 4 bytes.
STB_AVX512_POPCNT void countLevels128(const std::uint8_t *codes, const std::int32_t *thresholds,
    std::size_t levels, bool up, unsigned lo, unsigned hi, std::uint64_t *bins)
{
    const __m512i x0 = _mm512_loadu_si512(codes), x1 = _mm512_loadu_si512(codes + 64);
    alignas(64) std::uint32_t keys[8];
    const auto first = static_cast<std::int32_t>(lo), last = static_cast<std::int32_t>(hi) + 1;
    std::uint32_t previous = 128; // values at or above the edge below level 0: all
    for (std::size_t j0 = 0; j0 < levels; j0 += 8) {
        const __m256i t = _mm256_loadu_si256(reinterpret_cast<const __m256i *>(thresholds + j0));
        _mm256_store_si256(reinterpret_cast<__m256i *>(keys),
            _mm256_mullo_epi32(_mm256_and_si256(t, _mm256_set1_epi32(255)), _mm256_set1_epi32(0x01010101)));
        const std::size_t end = std::min<std::size_t>(8, levels - j0);
        for (std::size_t l = 0; l < end; ++l) {
            const std::int32_t tj = thresholds[j0 + l];
            std::uint32_t atLeast = tj <= first ? 128 : 0; // codes at or above t
            if (tj > first && tj < last) {
                const __m512i key = _mm512_set1_epi32(static_cast<int>(keys[l]));
                atLeast = static_cast<std::uint32_t>(_mm_popcnt_u64(_mm512_cmpge_epu8_mask(x0, key))
                    + _mm_popcnt_u64(_mm512_cmpge_epu8_mask(x1, key)));
            }
            const std::uint32_t above = up ? atLeast : 128 - atLeast; // values at or above the edge
            bins[j0 + l] += previous - above;
            previous = above;
        }
    }
    bins[levels] += previous;
}

// thresholdsBody with AVX-512 masks: the rule's evaluations are compares to masks.
STB_AVX512 bool thresholdsWide(double scale, std::int32_t zero, double unit, const double *edges,
    std::size_t k, unsigned lo, unsigned hi, std::int32_t *out)
{
    const double perCode = 1 / (scale * unit);
    const __m512d margin = _mm512_set1_pd(up0(scale) ? -kMargin : kMargin);
    const __m512d s = _mm512_set1_pd(scale), u = _mm512_set1_pd(unit), z = _mm512_set1_pd(zero);
    const __m512d first = _mm512_set1_pd(lo), last = _mm512_set1_pd(double(hi) + 1),
                  per = _mm512_set1_pd(perCode);
    const __m512d one = _mm512_set1_pd(1);
    const bool up = scale > 0;
    const __mmask8 flip = up ? 0 : 0xFF;
    const __m512d within = _mm512_set1_pd(kMargin);
#define STB_RULE(q, e)                                                                                       \
    static_cast<__mmask8>(                                                                                   \
        ((_mm512_cmp_pd_mask(_mm512_mul_pd(_mm512_mul_pd(s, _mm512_sub_pd(q, z)), u), e, _CMP_GE_OQ) ^ flip) \
            & _mm512_cmp_pd_mask(q, first, _CMP_GE_OQ))                                                      \
        | _mm512_cmp_pd_mask(q, last, _CMP_GE_OQ))
    __mmask8 bad = 0;
    for (std::size_t j = 0; j < k; j += 8) {
        const __mmask8 valid = k - j >= 8 ? 0xFF : static_cast<__mmask8>((1u << (k - j)) - 1);
        const __m512d e = _mm512_loadu_pd(edges + j);
        const __m512d quotient = _mm512_add_pd(z, _mm512_mul_pd(e, per));
        const __m512d off = _mm512_sub_pd(
            quotient, _mm512_roundscale_pd(quotient, _MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC));
        const __mmask8 far = _mm512_cmp_pd_mask(_mm512_abs_pd(off), within, _CMP_GT_OQ);
        __m512d a = _mm512_add_pd(quotient, margin);
        a = _mm512_min_pd(_mm512_max_pd(a, _mm512_sub_pd(first, one)), last);
        __m512d t = up
            ? _mm512_roundscale_pd(a, _MM_FROUND_TO_POS_INF | _MM_FROUND_NO_EXC)
            : _mm512_add_pd(_mm512_roundscale_pd(a, _MM_FROUND_TO_NEG_INF | _MM_FROUND_NO_EXC), one);
        t = _mm512_min_pd(_mm512_max_pd(t, first), last);
        if (static_cast<__mmask8>(far & valid) != valid)
            bad |= valid & static_cast<__mmask8>(STB_RULE(_mm512_sub_pd(t, one), e) | ~STB_RULE(t, e));
        _mm256_storeu_si256(reinterpret_cast<__m256i *>(out + j), _mm512_cvttpd_epi32(t));
    }
#undef STB_RULE
    return !bad;
}

// byteColumnStats in 64-code steps: vpsadbw sums, vpmaddwd squares, a compare per zero.
STB_AVX512_POPCNT void statsWide(
    const std::uint8_t *codes, std::size_t n, unsigned zero, ByteColumnStats &out)
{
    if (!n) {
        out = {};
        return;
    }
    const __m512i fill = _mm512_set1_epi8(static_cast<char>(codes[0])), nothing = _mm512_setzero_si512();
    const __m512i zv = _mm512_set1_epi8(static_cast<char>(zero));
    __m512i lo = fill, hi = fill, sum = nothing, squares = nothing;
    std::uint64_t zeros = 0;
    for (std::size_t i = 0; i < n; i += 64) {
        const __mmask64 mask = n - i >= 64 ? ~__mmask64(0) : (__mmask64(1) << (n - i)) - 1;
        const __m512i x = _mm512_maskz_loadu_epi8(mask, codes + i),
                      filled = _mm512_mask_mov_epi8(fill, mask, x);
        lo = _mm512_min_epu8(lo, filled);
        hi = _mm512_max_epu8(hi, filled);
        sum = _mm512_add_epi64(sum, _mm512_sad_epu8(x, nothing));
        const __m512i a = _mm512_unpacklo_epi8(x, nothing), b = _mm512_unpackhi_epi8(x, nothing);
        squares
            = _mm512_add_epi32(squares, _mm512_add_epi32(_mm512_madd_epi16(a, a), _mm512_madd_epi16(b, b)));
        if (zero < 256)
            zeros += _mm_popcnt_u64(_mm512_mask_cmpeq_epu8_mask(mask, x, zv));
    }
    const auto least = [](__m512i v) __attribute__((target("avx512f,avx512bw")))
    {
        __m256i h = _mm256_min_epu8(_mm512_castsi512_si256(v), _mm512_extracti64x4_epi64(v, 1));
        __m128i q = _mm_min_epu8(_mm256_castsi256_si128(h), _mm256_extracti128_si256(h, 1));
        q = _mm_and_si128(_mm_min_epu8(q, _mm_srli_epi16(q, 8)), _mm_set1_epi16(0xFF));
        return static_cast<std::uint8_t>(_mm_cvtsi128_si32(_mm_minpos_epu16(q)));
    };
    out.sum = static_cast<std::uint32_t>(_mm512_reduce_add_epi64(sum));
    out.squares = static_cast<std::uint32_t>(_mm512_reduce_add_epi32(squares));
    out.zeros = static_cast<std::uint32_t>(zeros);
    out.lo = least(lo);
    out.hi = static_cast<std::uint8_t>(255 - least(_mm512_xor_si512(hi, _mm512_set1_epi8(-1))));
}

// columnWordStats, 16 outputs (a 64-byte piece of each row) at a time down the rows, the next
// piece prefetched a row at a time. Per row: sums by vpmaddubsw · 1 and vpmaddwd · 1 (a word's
// 4 codes into its 32-bit lane); squares by vpmaddwd of the bytes widened to 16 bits (lanes of
// half-words, paired at the end); extremes by byte min/max, reduced within each word at the end;
// zeros by a masked byte count, flushed into words every 255 rows.
STB_AVX512 void columnStatsWide(const std::uint8_t *src, std::size_t rowBytes, std::size_t rows,
    std::size_t columns, const unsigned *zeros, ByteColumnStats *out)
{
    const __m512i nothing = _mm512_setzero_si512(), ones8 = _mm512_set1_epi8(1),
                  ones16 = _mm512_set1_epi16(1);
    const auto words = [&](__m512i bytes) __attribute__((target("avx512f,avx512bw")))
    {
        return _mm512_madd_epi16(_mm512_maddubs_epi16(bytes, ones8), ones16);
    };
    for (std::size_t c0 = 0; c0 < columns; c0 += 16) {
        const std::size_t width = std::min<std::size_t>(16, columns - c0);
        const __mmask16 valid = static_cast<__mmask16>((1u << width) - 1);
        // Each output's zero in its word's 4 bytes; outputs without one (256) match no byte.
        alignas(64) std::uint32_t zeroWords[16] = {};
        __mmask16 hasZero = 0;
        for (std::size_t c = 0; c < width; ++c) {
            if (zeros[c0 + c] < 256) {
                zeroWords[c] = zeros[c0 + c] * 0x01010101u;
                hasZero = static_cast<__mmask16>(hasZero | (1u << c));
            }
        }
        const __m512i zv = _mm512_load_si512(zeroWords);
        const __mmask64 zeroBytes = _mm512_movepi8_mask(_mm512_maskz_set1_epi32(hasZero, -1));
        __m512i sum = nothing, squaresLo = nothing, squaresHi = nothing, zeroCount = nothing,
                byteZeros = nothing;
        __m512i lo = _mm512_set1_epi8(-1), hi = nothing;
        const std::uint8_t *p = src + 4 * c0;
        for (std::size_t r = 0; r < rows; ++r, p += rowBytes) {
            // The row's piece of the next call's columns (the next tile of outputs): each row is
            // in a page of its own, where the hardware prefetchers do not follow.
            _mm_prefetch(reinterpret_cast<const char *>(p + 4 * columns), _MM_HINT_T0);
            // Masked loads only for a short piece: they measured slower (as in e4m3Wide).
            const __m512i x = width == 16 ? _mm512_loadu_si512(p) : _mm512_maskz_loadu_epi32(valid, p);
            sum = _mm512_add_epi32(sum, words(x));
            const __m512i a = _mm512_unpacklo_epi8(x, nothing), b = _mm512_unpackhi_epi8(x, nothing);
            squaresLo = _mm512_add_epi32(squaresLo, _mm512_madd_epi16(a, a));
            squaresHi = _mm512_add_epi32(squaresHi, _mm512_madd_epi16(b, b));
            lo = _mm512_min_epu8(lo, x);
            hi = _mm512_max_epu8(hi, x);
            byteZeros = _mm512_mask_sub_epi8(
                byteZeros, _mm512_mask_cmpeq_epi8_mask(zeroBytes, x, zv), byteZeros, _mm512_set1_epi8(-1));
            if (r % 255 == 254) {
                zeroCount = _mm512_add_epi32(zeroCount, words(byteZeros));
                byteZeros = nothing;
            }
        }
        zeroCount = _mm512_add_epi32(zeroCount, words(byteZeros));
        // squaresLo holds, per 128-bit lane, words 0 and 1 as two half-word sums each, squaresHi
        // words 2 and 3: the even and odd halves added give words 0 to 3.
        const __m512 l = _mm512_castsi512_ps(squaresLo), h = _mm512_castsi512_ps(squaresHi);
        const __m512i squares = _mm512_add_epi32(_mm512_castps_si512(_mm512_shuffle_ps(l, h, 0x88)),
            _mm512_castps_si512(_mm512_shuffle_ps(l, h, 0xDD)));
        // A word's least byte: the low byte of min(min(b0, b1), min(b2, b3)).
        const __m512i lo1 = _mm512_min_epu8(lo, _mm512_srli_epi32(lo, 8));
        const __m512i least = _mm512_min_epu8(lo1, _mm512_srli_epi32(lo1, 16));
        const __m512i hi1 = _mm512_max_epu8(hi, _mm512_srli_epi32(hi, 8));
        const __m512i most = _mm512_max_epu8(hi1, _mm512_srli_epi32(hi1, 16));
        alignas(64) std::uint32_t sums[16], squareSums[16], zeroSums[16], leasts[16], mosts[16];
        _mm512_store_si512(sums, sum);
        _mm512_store_si512(squareSums, squares);
        _mm512_store_si512(zeroSums, zeroCount);
        _mm512_store_si512(leasts, least);
        _mm512_store_si512(mosts, most);
        columnStatsOut(width, rows, sums, squareSums, zeroSums, leasts, mosts, out + c0);
    }
}
#endif

} // namespace

ByteRunFamily byteRunFamily()
{
#if STB_WIDE_RUNS
    if (kernels::avx512::enabled())
        return ByteRunFamily::Avx512;
    if (kernels::avx2::enabled())
        return ByteRunFamily::Avx2;
#endif
    return ByteRunFamily::Portable;
}

void byteColumnStatsIn(
    ByteRunFamily family, const std::uint8_t *codes, std::size_t n, unsigned zero, ByteColumnStats &out)
{
#if STB_WIDE_RUNS
    if (family == ByteRunFamily::Avx512)
        return statsWide(codes, n, zero, out);
    if (family == ByteRunFamily::Avx2)
        return statsAvx2(codes, n, zero, out);
#endif
    statsPortable(codes, n, zero, out);
}

void countAtLeastIn(ByteRunFamily family, const std::uint8_t *codes, std::size_t n,
    const std::int32_t *thresholds, std::size_t k, std::uint32_t *counts)
{
#if STB_WIDE_RUNS
    if (family == ByteRunFamily::Avx512)
        return countWide(codes, n, thresholds, k, counts);
    if (family == ByteRunFamily::Avx2)
        return countAvx2(codes, n, thresholds, k, counts);
#endif
    countPortable(codes, n, thresholds, k, counts);
}

bool binGroupCodesIn(ByteRunFamily family, const std::uint8_t *codes, std::size_t n, double scale,
    std::int32_t zero, double unit, const double *edges, std::size_t levels, unsigned lo, unsigned hi,
    std::int32_t *thresholds, std::uint32_t *counts, std::uint64_t *bins)
{
    const auto count = static_cast<std::uint32_t>(n);
#if STB_WIDE_RUNS
    if (family == ByteRunFamily::Avx512) {
        if (!thresholdsWide(scale, zero, unit, edges, levels, lo, hi, thresholds))
            return false;
        if (n == 128) {
            countLevels128(codes, thresholds, levels, scale > 0, lo, hi, bins);
            return true;
        }
        countWide(codes, n, thresholds, levels, counts);
        levelBinsWide(counts, levels, count, scale > 0, bins);
        return true;
    }
    if (family == ByteRunFamily::Avx2) {
        if (!thresholdsAvx2(scale, zero, unit, edges, levels, lo, hi, thresholds))
            return false;
        countAvx2(codes, n, thresholds, levels, counts);
        levelBinsAvx2(counts, levels, count, scale > 0, bins);
        return true;
    }
#endif
    if (!thresholdsPortable(scale, zero, unit, edges, levels, lo, hi, thresholds))
        return false;
    countPortable(codes, n, thresholds, levels, counts);
    levelBinsPortable(counts, levels, count, scale > 0, bins);
    return true;
}

void splitNibbleRowsIn(ByteRunFamily family, const std::uint8_t *src, std::size_t rowBytes, std::size_t rows,
    std::size_t bytes, std::uint8_t *dst)
{
#if STB_WIDE_RUNS
    if (family == ByteRunFamily::Avx512)
        return splitWide(src, rowBytes, rows, bytes, dst);
    if (family == ByteRunFamily::Avx2)
        return splitAvx2(src, rowBytes, rows, bytes, dst);
#endif
    splitPortable(src, rowBytes, rows, bytes, dst);
}

void splitNibbleRows(
    const std::uint8_t *src, std::size_t rowBytes, std::size_t rows, std::size_t bytes, std::uint8_t *dst)
{
    splitNibbleRowsIn(byteRunFamily(), src, rowBytes, rows, bytes, dst);
}

void columnWordStatsIn(ByteRunFamily family, const std::uint8_t *src, std::size_t rowBytes, std::size_t rows,
    std::size_t columns, const unsigned *zeros, ByteColumnStats *out)
{
#if STB_WIDE_RUNS
    if (family == ByteRunFamily::Avx512)
        return columnStatsWide(src, rowBytes, rows, columns, zeros, out);
    if (family == ByteRunFamily::Avx2)
        return columnStatsAvx2(src, rowBytes, rows, columns, zeros, out);
#endif
    columnStatsPortable(src, rowBytes, rows, columns, zeros, out);
}

void columnWordStats(const std::uint8_t *src, std::size_t rowBytes, std::size_t rows, std::size_t columns,
    const unsigned *zeros, ByteColumnStats *out)
{
    columnWordStatsIn(byteRunFamily(), src, rowBytes, rows, columns, zeros, out);
}

bool codeThresholdsIn(ByteRunFamily family, double scale, std::int32_t zero, double unit, const double *edges,
    std::size_t k, unsigned lo, unsigned hi, std::int32_t *thresholds)
{
#if STB_WIDE_RUNS
    if (family == ByteRunFamily::Avx512)
        return thresholdsWide(scale, zero, unit, edges, k, lo, hi, thresholds);
    if (family == ByteRunFamily::Avx2)
        return thresholdsAvx2(scale, zero, unit, edges, k, lo, hi, thresholds);
#endif
    return thresholdsPortable(scale, zero, unit, edges, k, lo, hi, thresholds);
}

void transposeWordsIn(ByteRunFamily family, const std::uint8_t *src, std::size_t rowBytes, std::size_t rows,
    std::size_t columns, std::uint8_t *dst)
{
#if STB_WIDE_RUNS
    if (family != ByteRunFamily::Portable) // AVX-512's family has AVX2
        return transposeAvx2(src, rowBytes, rows, columns, dst);
#endif
    transposePortable(src, rowBytes, rows, columns, dst);
}

void transposeWords(
    const std::uint8_t *src, std::size_t rowBytes, std::size_t rows, std::size_t columns, std::uint8_t *dst)
{
    transposeWordsIn(byteRunFamily(), src, rowBytes, rows, columns, dst);
}

void addLevelBinsIn(ByteRunFamily family, std::uint32_t *counts, std::size_t levels, std::uint32_t n, bool up,
    std::uint64_t *bins)
{
#if STB_WIDE_RUNS
    if (family == ByteRunFamily::Avx512)
        return levelBinsWide(counts, levels, n, up, bins);
    if (family == ByteRunFamily::Avx2)
        return levelBinsAvx2(counts, levels, n, up, bins);
#endif
    levelBinsPortable(counts, levels, n, up, bins);
}

void addLevelBins(std::uint32_t *counts, std::size_t levels, std::uint32_t n, bool up, std::uint64_t *bins)
{
    addLevelBinsIn(byteRunFamily(), counts, levels, n, up, bins);
}

void byteColumnStats(const std::uint8_t *codes, std::size_t n, unsigned zero, ByteColumnStats &out)
{
    byteColumnStatsIn(byteRunFamily(), codes, n, zero, out);
}

void countAtLeast(const std::uint8_t *codes, std::size_t n, const std::int32_t *thresholds, std::size_t k,
    std::uint32_t *counts)
{
    countAtLeastIn(byteRunFamily(), codes, n, thresholds, k, counts);
}

bool codeThresholds(double scale, std::int32_t zero, double unit, const double *edges, std::size_t k,
    unsigned lo, unsigned hi, std::int32_t *thresholds)
{
    return codeThresholdsIn(byteRunFamily(), scale, zero, unit, edges, k, lo, hi, thresholds);
}

} // namespace stb::quant
