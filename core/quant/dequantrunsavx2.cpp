// AVX2 versions of code counting's hot loops for the portable family (dequantrunsavx2.h). The
// portable bodies compiled for baseline x86-64 run these one value at a time (GCC does not
// vectorize the moments' double lanes, and the nibble counts are byte increments); perf put the
// portable 4-bit statistics at a sixth of the BF16 ones' speed, mostly in these three loops.
#include "core/quant/dequantrunsavx2.h"

#include "core/stats/kernels/portableblocks.h"

#include "core/quant/momentlanes.h"

#include <algorithm>
#include <cmath>

#if defined(__x86_64__) && defined(__GNUC__)
#include <immintrin.h>
#define STB_HAVE_AVX2 1
#define STB_AVX2 __attribute__((target("avx2")))
#endif

namespace stb::quant::avx2 {

#ifdef STB_HAVE_AVX2

namespace {

STB_AVX2 void momentsImpl(
    const float *values, const std::uint32_t *counts, std::size_t n, double shift, CountedMoments &m)
{
    MomentLanes lanes;
    const std::size_t whole = n - n % MomentLanes::kLanes;
    if (whole) {
        // Lanes 0-3 in [0], 4-7 in [1]: each adds what MomentLanes::add adds, in the same order.
        __m256d finite[2], zeros[2], nan[2], posInf[2], negInf[2], sum[2], squares[2];
        for (unsigned h = 0; h < 2; ++h)
            finite[h] = zeros[h] = nan[h] = posInf[h] = negInf[h] = sum[h] = squares[h] = _mm256_setzero_pd();
        __m256 lo = _mm256_set1_ps(INFINITY), hi = _mm256_set1_ps(-INFINITY);
        const __m256d shifts = _mm256_set1_pd(shift), zero = _mm256_setzero_pd();
        const __m256d inf = _mm256_set1_pd(INFINITY), negInfinity = _mm256_set1_pd(-INFINITY);
        const __m256d two31 = _mm256_set1_pd(2147483648.0);
        const __m128i flip = _mm_set1_epi32(static_cast<int>(0x80000000u));
        const __m256 infs = _mm256_set1_ps(INFINITY), negInfs = _mm256_set1_ps(-INFINITY);
        for (std::size_t k = 0; k < whole; k += 8) {
            const __m256 v = _mm256_loadu_ps(values + k);
            const __m256i c = _mm256_loadu_si256(reinterpret_cast<const __m256i *>(counts + k));
            const __m256 isFinite = _mm256_cmp_ps(_mm256_sub_ps(v, v), _mm256_setzero_ps(), _CMP_EQ_OQ);
            const __m256 counted
                = _mm256_castsi256_ps(_mm256_cmpeq_epi32(c, _mm256_setzero_si256())); // count == 0
            const __m256 seen = _mm256_andnot_ps(counted, isFinite);
            // min(x, lo) keeps lo unless x < lo (ties and NaN included), as MomentLanes::add does;
            // x is ±Inf where the value is not seen, which never replaces an extreme.
            lo = _mm256_min_ps(_mm256_blendv_ps(infs, v, seen), lo);
            hi = _mm256_max_ps(_mm256_blendv_ps(negInfs, v, seen), hi);
            // All finite and every count below 2^31 (the rule): the finite masks are all ones,
            // a count converts as a signed integer, and NaN and the infinities would add +0,
            // which leaves a sum of non-negative counts as it is. The same sums, fewer steps.
            if (_mm256_movemask_ps(isFinite) == 0xFF && _mm256_movemask_ps(_mm256_castsi256_ps(c)) == 0) {
                for (unsigned h = 0; h < 2; ++h) {
                    const __m256d vd
                        = _mm256_cvtps_pd(h ? _mm256_extractf128_ps(v, 1) : _mm256_castps256_ps128(v));
                    const __m256d cd
                        = _mm256_cvtepi32_pd(h ? _mm256_extracti128_si256(c, 1) : _mm256_castsi256_si128(c));
                    const __m256d d = _mm256_sub_pd(vd, shifts);
                    const __m256d cfd = _mm256_mul_pd(cd, d);
                    finite[h] = _mm256_add_pd(finite[h], cd);
                    sum[h] = _mm256_add_pd(sum[h], cfd);
                    squares[h] = _mm256_add_pd(squares[h], _mm256_mul_pd(cfd, d));
                    zeros[h]
                        = _mm256_add_pd(zeros[h], _mm256_and_pd(cd, _mm256_cmp_pd(vd, zero, _CMP_EQ_OQ)));
                }
                continue;
            }
            for (unsigned h = 0; h < 2; ++h) {
                const __m256d vd
                    = _mm256_cvtps_pd(h ? _mm256_extractf128_ps(v, 1) : _mm256_castps256_ps128(v));
                const __m128i ci = h ? _mm256_extracti128_si256(c, 1) : _mm256_castsi256_si128(c);
                // The unsigned counts exactly: c - 2^31 as a signed integer, then + 2^31.
                const __m256d cd = _mm256_add_pd(_mm256_cvtepi32_pd(_mm_xor_si128(ci, flip)), two31);
                const __m256d finiteD = _mm256_cmp_pd(_mm256_sub_pd(vd, vd), zero, _CMP_EQ_OQ);
                const __m256d cf = _mm256_and_pd(cd, finiteD);
                const __m256d d = _mm256_and_pd(_mm256_sub_pd(vd, shifts), finiteD);
                const __m256d cfd = _mm256_mul_pd(cf, d);
                finite[h] = _mm256_add_pd(finite[h], cf);
                sum[h] = _mm256_add_pd(sum[h], cfd);
                squares[h] = _mm256_add_pd(squares[h], _mm256_mul_pd(cfd, d));
                zeros[h] = _mm256_add_pd(zeros[h], _mm256_and_pd(cd, _mm256_cmp_pd(vd, zero, _CMP_EQ_OQ)));
                nan[h] = _mm256_add_pd(nan[h], _mm256_and_pd(cd, _mm256_cmp_pd(vd, vd, _CMP_UNORD_Q)));
                posInf[h] = _mm256_add_pd(posInf[h], _mm256_and_pd(cd, _mm256_cmp_pd(vd, inf, _CMP_EQ_OQ)));
                negInf[h]
                    = _mm256_add_pd(negInf[h], _mm256_and_pd(cd, _mm256_cmp_pd(vd, negInfinity, _CMP_EQ_OQ)));
            }
        }
        for (unsigned h = 0; h < 2; ++h) {
            _mm256_storeu_pd(lanes.finite + 4 * h, finite[h]);
            _mm256_storeu_pd(lanes.zeros + 4 * h, zeros[h]);
            _mm256_storeu_pd(lanes.nan + 4 * h, nan[h]);
            _mm256_storeu_pd(lanes.posInf + 4 * h, posInf[h]);
            _mm256_storeu_pd(lanes.negInf + 4 * h, negInf[h]);
            _mm256_storeu_pd(lanes.sum + 4 * h, sum[h]);
            _mm256_storeu_pd(lanes.squares + 4 * h, squares[h]);
        }
        _mm256_storeu_ps(lanes.lo, lo);
        _mm256_storeu_ps(lanes.hi, hi);
    }
    for (std::size_t k = whole; k < n; ++k)
        lanes.add(k - whole, values[k], counts[k], shift);
    lanes.finish(m);
}

// Per 32 bytes: each code's nibbles per byte (0 to 2) summed over each 8 bytes by vpsadbw, eight
// codes' sums packed into the bytes of a 64-bit lane, the four lanes summed (at most 64 a byte).
// The blocks that do not fill a tile of blockTiles.
STB_AVX2 void blockSingles(
    const std::uint8_t *codes, std::size_t blockBytes, std::size_t blocks, std::uint32_t *tables)
{
    const std::size_t halves = blocks * blockBytes / 32, perBlock = blockBytes / 32;
    const __m256i fifteen = _mm256_set1_epi8(15), zero = _mm256_setzero_si256();
    std::size_t block = 0, inBlock = 0;
    for (std::size_t h = 0; h < halves; ++h) {
        const __m256i v = _mm256_loadu_si256(reinterpret_cast<const __m256i *>(codes + 32 * h));
        const __m256i lo = _mm256_and_si256(v, fifteen),
                      hi = _mm256_and_si256(_mm256_srli_epi16(v, 4), fifteen);
        __m256i packed[2];
        for (unsigned g = 0; g < 2; ++g) {
            __m256i acc = zero;
#pragma GCC unroll 8
            for (unsigned j = 0; j < 8; ++j) {
                const __m256i code = _mm256_set1_epi8(static_cast<char>(8 * g + j));
                const __m256i x = _mm256_sub_epi8(
                    _mm256_sub_epi8(zero, _mm256_cmpeq_epi8(lo, code)), _mm256_cmpeq_epi8(hi, code));
                acc = _mm256_or_si256(acc, _mm256_slli_epi64(_mm256_sad_epu8(x, zero), 8 * j));
            }
            acc = _mm256_add_epi8(acc, _mm256_shuffle_epi32(acc, 0x4E));
            packed[g] = _mm256_add_epi8(acc, _mm256_permute2x128_si256(acc, acc, 1));
        }
        const __m128i counts = _mm256_castsi256_si128(_mm256_unpacklo_epi64(packed[0], packed[1]));
        std::uint32_t *t = tables + 16 * block;
        __m256i *t0 = reinterpret_cast<__m256i *>(t), *t1 = reinterpret_cast<__m256i *>(t + 8);
        _mm256_storeu_si256(t0, _mm256_add_epi32(_mm256_loadu_si256(t0), _mm256_cvtepu8_epi32(counts)));
        _mm256_storeu_si256(
            t1, _mm256_add_epi32(_mm256_loadu_si256(t1), _mm256_cvtepu8_epi32(_mm_srli_si128(counts, 8))));
        if (++inBlock == perBlock)
            ++block, inBlock = 0;
    }
}

// Block b's counts of codes 0-15 (bytes) added to tables[16 b …].
STB_AVX2 inline void addByteCounts(std::uint32_t *t, __m128i counts)
{
    __m256i *t0 = reinterpret_cast<__m256i *>(t), *t1 = reinterpret_cast<__m256i *>(t + 8);
    _mm256_storeu_si256(t0, _mm256_add_epi32(_mm256_loadu_si256(t0), _mm256_cvtepu8_epi32(counts)));
    _mm256_storeu_si256(
        t1, _mm256_add_epi32(_mm256_loadu_si256(t1), _mm256_cvtepu8_epi32(_mm_srli_si128(counts, 8))));
}

// Tiles of 4 blocks, 32 bytes of each at a time. Their 8-byte quarters are transposed so that
// 64-bit lane j holds block j's bytes in all 4 rows: a lane's sums are then one block's, with no
// sum across lanes per code. Each nibble is looked up (vpshufb) in a table per pair of codes
// (2g, 2g + 1) that gives 1 or 16: a byte lane adds up its 8 nibbles' 4-bit fields (at most 8,
// so a field never carries), then vpsadbw sums each field over the lane's 8 bytes. Against
// blockSingles: two instructions per nibble vector and code pair instead of four per code, and
// the reduction once per 4 blocks.
STB_AVX2 void blockTiles(
    const std::uint8_t *codes, std::size_t blockBytes, std::size_t tiles, std::uint32_t *tables)
{
    const __m256i fifteen = _mm256_set1_epi8(15), highs = _mm256_set1_epi8(static_cast<char>(0xF0));
    const __m256i zero = _mm256_setzero_si256();
    __m256i pairOf[8];
    for (unsigned g = 0; g < 8; ++g) {
        alignas(16) std::uint8_t table[16] = {};
        table[2 * g] = 1;
        table[2 * g + 1] = 16;
        pairOf[g] = _mm256_broadcastsi128_si256(_mm_load_si128(reinterpret_cast<const __m128i *>(table)));
    }
    for (std::size_t t = 0; t < tiles; ++t) {
        const std::uint8_t *base = codes + 4 * t * blockBytes;
        std::uint32_t *tab = tables + 64 * t;
        for (std::size_t s = 0; s < blockBytes; s += 32) {
            const std::uint8_t *p = base + s;
            const __m256i a = _mm256_loadu_si256(reinterpret_cast<const __m256i *>(p)),
                          b = _mm256_loadu_si256(reinterpret_cast<const __m256i *>(p + blockBytes)),
                          c = _mm256_loadu_si256(reinterpret_cast<const __m256i *>(p + 2 * blockBytes)),
                          d = _mm256_loadu_si256(reinterpret_cast<const __m256i *>(p + 3 * blockBytes));
            const __m256i ab0 = _mm256_unpacklo_epi64(a, b), ab1 = _mm256_unpackhi_epi64(a, b);
            const __m256i cd0 = _mm256_unpacklo_epi64(c, d), cd1 = _mm256_unpackhi_epi64(c, d);
            const __m256i rows[4]
                = { _mm256_permute2x128_si256(ab0, cd0, 0x20), _mm256_permute2x128_si256(ab1, cd1, 0x20),
                      _mm256_permute2x128_si256(ab0, cd0, 0x31), _mm256_permute2x128_si256(ab1, cd1, 0x31) };
            __m256i acc[8];
            for (auto &x : acc)
                x = zero;
            for (const __m256i &row : rows) {
                const __m256i lo = _mm256_and_si256(row, fifteen),
                              hi = _mm256_and_si256(_mm256_srli_epi16(row, 4), fifteen);
#pragma GCC unroll 8
                for (unsigned g = 0; g < 8; ++g)
                    acc[g] = _mm256_add_epi8(acc[g],
                        _mm256_add_epi8(
                            _mm256_shuffle_epi8(pairOf[g], lo), _mm256_shuffle_epi8(pairOf[g], hi)));
            }
            // Code 2g's count in byte 2g of a lane, 2g + 1's in the next (at most 64 each): codes
            // 0-7 in packed[0], 8-15 in packed[1].
            __m256i packed[2] = { zero, zero };
#pragma GCC unroll 8
            for (unsigned g = 0; g < 8; ++g) {
                const __m256i low = _mm256_sad_epu8(_mm256_and_si256(acc[g], fifteen), zero);
                const __m256i high = _mm256_sad_epu8(_mm256_and_si256(acc[g], highs), zero); // 16 × count
                const __m256i pair = _mm256_or_si256(low, _mm256_slli_epi64(high, 4));
                packed[g / 4] = _mm256_or_si256(packed[g / 4], _mm256_slli_epi64(pair, 16 * (g % 4)));
            }
            const __m256i even = _mm256_unpacklo_epi64(packed[0], packed[1]); // blocks 0 and 2
            const __m256i odd = _mm256_unpackhi_epi64(packed[0], packed[1]); // blocks 1 and 3
            addByteCounts(tab, _mm256_castsi256_si128(even));
            addByteCounts(tab + 16, _mm256_castsi256_si128(odd));
            addByteCounts(tab + 32, _mm256_extracti128_si256(even, 1));
            addByteCounts(tab + 48, _mm256_extracti128_si256(odd, 1));
        }
    }
}

STB_AVX2 void blockNibbleImpl(
    const std::uint8_t *codes, std::size_t blockBytes, std::size_t blocks, std::uint32_t *tables)
{
    const std::size_t tiles = blocks / 4;
    blockTiles(codes, blockBytes, tiles, tables);
    blockSingles(codes + 4 * tiles * blockBytes, blockBytes, blocks - 4 * tiles, tables + 64 * tiles);
}

// The lookup tables of the code pairs (2g, 2g + 1): a nibble to 1 or 16 (a 4-bit field each).
STB_AVX2 inline void pairTables(__m256i *pairOf)
{
    for (unsigned g = 0; g < 8; ++g) {
        alignas(16) std::uint8_t table[16] = {};
        table[2 * g] = 1;
        table[2 * g + 1] = 16;
        pairOf[g] = _mm256_broadcastsi128_si256(_mm_load_si128(reinterpret_cast<const __m128i *>(table)));
    }
}

// Per byte lane of `rows` 32-byte rows (at most 15 nibbles in all: a field never carries), how
// many of its low nibbles (which & 1) and high nibbles (which & 2) equal each code, added to the
// byte counters count[code].
template<unsigned which>
STB_AVX2 inline void laneFieldCounts(
    const std::byte *p, std::size_t stride, std::size_t rows, const __m256i *pairOf, __m256i *count)
{
    const __m256i fifteen = _mm256_set1_epi8(15);
    __m256i acc[8];
    for (auto &a : acc)
        a = _mm256_setzero_si256();
    for (std::size_t r = 0; r < rows; ++r) {
        const __m256i v = _mm256_loadu_si256(reinterpret_cast<const __m256i *>(p + r * stride));
        const __m256i lo = _mm256_and_si256(v, fifteen),
                      hi = _mm256_and_si256(_mm256_srli_epi16(v, 4), fifteen);
#pragma GCC unroll 8
        for (unsigned g = 0; g < 8; ++g) {
            if (which & 1)
                acc[g] = _mm256_add_epi8(acc[g], _mm256_shuffle_epi8(pairOf[g], lo));
            if (which & 2)
                acc[g] = _mm256_add_epi8(acc[g], _mm256_shuffle_epi8(pairOf[g], hi));
        }
    }
#pragma GCC unroll 8
    for (unsigned g = 0; g < 8; ++g) {
        count[2 * g] = _mm256_add_epi8(count[2 * g], _mm256_and_si256(acc[g], fifteen));
        count[2 * g + 1]
            = _mm256_add_epi8(count[2 * g + 1], _mm256_and_si256(_mm256_srli_epi16(acc[g], 4), fifteen));
    }
}

// r[i][j] to r[j][i] for 8 × 8 32-bit numbers.
STB_AVX2 inline void transpose8x32(__m256i *r)
{
    __m256i t[8], u[8];
    for (unsigned i = 0; i < 8; i += 2) {
        t[i] = _mm256_unpacklo_epi32(r[i], r[i + 1]);
        t[i + 1] = _mm256_unpackhi_epi32(r[i], r[i + 1]);
    }
    for (unsigned i = 0; i < 8; i += 4) {
        u[i] = _mm256_unpacklo_epi64(t[i], t[i + 2]);
        u[i + 1] = _mm256_unpackhi_epi64(t[i], t[i + 2]);
        u[i + 2] = _mm256_unpacklo_epi64(t[i + 1], t[i + 3]);
        u[i + 3] = _mm256_unpackhi_epi64(t[i + 1], t[i + 3]);
    }
    for (unsigned i = 0; i < 4; ++i) {
        r[i] = _mm256_permute2x128_si256(u[i], u[i + 4], 0x20);
        r[i + 4] = _mm256_permute2x128_si256(u[i], u[i + 4], 0x31);
    }
}

// r[i] byte j to r[j] byte i for 16 × 16 bytes, in each 128-bit half on its own.
STB_AVX2 inline void transpose16x8(__m256i *r)
{
    __m256i a[16], b[16];
    for (unsigned i = 0; i < 16; i += 2) {
        a[i] = _mm256_unpacklo_epi8(r[i], r[i + 1]);
        a[i + 1] = _mm256_unpackhi_epi8(r[i], r[i + 1]);
    }
    for (unsigned i = 0; i < 16; i += 4) { // columns 0-3, 4-7, 8-11, 12-15 of rows i to i + 3
        b[i] = _mm256_unpacklo_epi16(a[i], a[i + 2]);
        b[i + 1] = _mm256_unpackhi_epi16(a[i], a[i + 2]);
        b[i + 2] = _mm256_unpacklo_epi16(a[i + 1], a[i + 3]);
        b[i + 3] = _mm256_unpackhi_epi16(a[i + 1], a[i + 3]);
    }
    for (unsigned q = 0; q < 4; ++q) { // columns 2m and 2m + 1 of rows 0-7 (a) and 8-15 (r)
        a[2 * q] = _mm256_unpacklo_epi32(b[q], b[4 + q]);
        a[2 * q + 1] = _mm256_unpackhi_epi32(b[q], b[4 + q]);
        r[2 * q] = _mm256_unpacklo_epi32(b[8 + q], b[12 + q]);
        r[2 * q + 1] = _mm256_unpackhi_epi32(b[8 + q], b[12 + q]);
    }
    for (unsigned m = 0; m < 8; ++m) {
        b[2 * m] = _mm256_unpacklo_epi64(a[m], r[m]);
        b[2 * m + 1] = _mm256_unpackhi_epi64(a[m], r[m]);
    }
    for (unsigned c = 0; c < 16; ++c)
        r[c] = b[c];
}

// GPTQ: 8 words (columns) a step; counts kept per byte lane in 4-bit fields for 7 rows (14
// nibbles), in bytes for up to 126 rows, then summed over each word's 4 bytes.
STB_AVX2 std::size_t columnNibbleImpl(
    const std::byte *words, std::size_t stride, std::size_t rows, std::size_t columns, std::uint32_t *tables)
{
    const __m256i ones8 = _mm256_set1_epi8(1), ones16 = _mm256_set1_epi16(1);
    __m256i pairOf[8];
    pairTables(pairOf);
    std::size_t c0 = 0;
    for (; c0 + 8 <= columns; c0 += 8) {
        __m256i total[16]; // per code, 32-bit counts of the 8 columns
        for (auto &t : total)
            t = _mm256_setzero_si256();
        for (std::size_t r0 = 0; r0 < rows; r0 += 126) {
            const std::size_t n = std::min<std::size_t>(126, rows - r0);
            __m256i count[16];
            for (auto &c : count)
                c = _mm256_setzero_si256();
            for (std::size_t r1 = 0; r1 < n; r1 += 7)
                laneFieldCounts<3>(words + (r0 + r1) * stride + 4 * c0, stride,
                    std::min<std::size_t>(7, n - r1), pairOf, count);
            for (unsigned j = 0; j < 16; ++j) // the four bytes of a word's lane summed
                total[j] = _mm256_add_epi32(
                    total[j], _mm256_madd_epi16(_mm256_maddubs_epi16(count[j], ones8), ones16));
        }
        transpose8x32(total); // codes 0-7: total[lane]
        transpose8x32(total + 8); // codes 8-15: total[8 + lane]
        for (unsigned lane = 0; lane < 8; ++lane) {
            __m256i *t = reinterpret_cast<__m256i *>(tables + (c0 + lane) * 16);
            _mm256_storeu_si256(t, _mm256_add_epi32(_mm256_loadu_si256(t), total[lane]));
            _mm256_storeu_si256(t + 1, _mm256_add_epi32(_mm256_loadu_si256(t + 1), total[8 + lane]));
        }
    }
    return c0;
}

// AWQ: 8 words a step, low nibbles and high nibbles apart (they are different positions);
// counts in 4-bit fields for 15 rows, in bytes for up to 255 rows.
STB_AVX2 std::size_t slotNibbleImpl(const std::byte *words, std::size_t stride, std::size_t rows,
    std::size_t columns, std::size_t rowWords, std::uint32_t *tables)
{
    __m256i pairOf[8];
    pairTables(pairOf);
    std::size_t c0 = 0;
    for (; c0 + 8 <= columns; c0 += 8) {
        for (std::size_t r0 = 0; r0 < rows; r0 += 255) {
            const std::size_t n = std::min<std::size_t>(255, rows - r0);
            for (unsigned high = 0; high < 2; ++high) {
                __m256i count[16];
                for (auto &c : count)
                    c = _mm256_setzero_si256();
                for (std::size_t r1 = 0; r1 < n; r1 += 15) {
                    const std::byte *p = words + (r0 + r1) * stride + 4 * c0;
                    const std::size_t m = std::min<std::size_t>(15, n - r1);
                    if (high)
                        laneFieldCounts<2>(p, stride, m, pairOf, count);
                    else
                        laneFieldCounts<1>(p, stride, m, pairOf, count);
                }
                // count[lane]: byte lane `lane`'s 16 codes (low half), lane 16 + lane's (high).
                transpose16x8(count);
                for (unsigned lane = 0; lane < 32; ++lane) {
                    // Byte lane 4w + k: word c0 + w, nibble slot 2k (+1 for the high nibble).
                    const unsigned w = lane / 4, k = lane % 4;
                    const __m256i &c = count[lane % 16];
                    addByteCounts(tables + ((2 * k + high) * rowWords + c0 + w) * 16,
                        lane < 16 ? _mm256_castsi256_si128(c) : _mm256_extracti128_si256(c, 1));
                }
            }
        }
    }
    return c0;
}

} // namespace

void countedMoments(
    const float *values, const std::uint32_t *counts, std::size_t n, double shift, CountedMoments &m)
{
    momentsImpl(values, counts, n, shift, m);
}

void blockNibbleCounts(
    const std::uint8_t *codes, std::size_t blockBytes, std::size_t blocks, std::uint32_t *tables)
{
    blockNibbleImpl(codes, blockBytes, blocks, tables);
}

std::size_t columnNibbleCounts(
    const std::byte *words, std::size_t stride, std::size_t rows, std::size_t columns, std::uint32_t *tables)
{
    return columnNibbleImpl(words, stride, rows, columns, tables);
}

std::size_t slotNibbleCounts(const std::byte *words, std::size_t stride, std::size_t rows,
    std::size_t columns, std::size_t rowWords, std::uint32_t *tables)
{
    return slotNibbleImpl(words, stride, rows, columns, rowWords, tables);
}

std::size_t binIndices(const float *values, std::size_t n, float lo, float hi, float scale, unsigned bins,
    std::uint32_t *index, std::uint32_t *slow)
{
    // The statistics' own AVX2 kernel: dequantized values are binned exactly as F32 tensors.
    return kernels::avx2::indexBlock(reinterpret_cast<const std::byte *>(values), n, lo, hi, scale, bins, index, slow);
}

#else // not x86-64 with GCC or Clang: never called (kernels::avx2::enabled() is false)

void countedMoments(const float *, const std::uint32_t *, std::size_t, double, CountedMoments &) { }
void blockNibbleCounts(const std::uint8_t *, std::size_t, std::size_t, std::uint32_t *) { }
std::size_t columnNibbleCounts(const std::byte *, std::size_t, std::size_t, std::size_t, std::uint32_t *)
{
    return 0;
}
std::size_t slotNibbleCounts(
    const std::byte *, std::size_t, std::size_t, std::size_t, std::size_t, std::uint32_t *)
{
    return 0;
}
std::size_t binIndices(
    const float *, std::size_t, float, float, float, unsigned, std::uint32_t *, std::uint32_t *)
{
    return 0;
}

#endif

} // namespace stb::quant::avx2
