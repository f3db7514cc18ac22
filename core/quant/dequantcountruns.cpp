// Code counting of 4-bit codes (dequantruns.h), built with -O3 like dequantruns.cpp: a portable
// body and an AVX-512 wrapper of compares per code.
#include "core/quant/dequantruns.h"

#include "core/quant/dequantrunsavx2.h"
#include "core/stats/kernels/avx512.h"
#include "core/stats/kernels/valuescan.h"

#include <algorithm>
#include <bit>
#include <cstring>

#include "core/quant/runtarget.h"

namespace stb::quant {

namespace {

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

#if STB_WIDE_RUNS
// The lookup tables of the code pairs (2g, 2g + 1): a nibble to 1 or 16 (a 4-bit field each).
STB_AVX512 inline void pairTablesWide(__m512i *pairOf)
{
    for (unsigned g = 0; g < 8; ++g) {
        alignas(64) std::uint8_t table[64] = {}; // the same in each 128-bit quarter (vpshufb's)
        for (unsigned q = 0; q < 4; ++q) {
            table[16 * q + 2 * g] = 1;
            table[16 * q + 2 * g + 1] = 16;
        }
        pairOf[g] = _mm512_load_si512(table);
    }
}

// Per byte lane of `rows` (at most 15) 64-byte rows, how many of its low nibbles (which 1) or
// high nibbles (which 2) equal each code, added to the byte counters count[code]: 4-bit fields
// of code pairs by vpshufb, as the AVX2 slot counts (dequantrunsavx2.cpp).
template<unsigned which>
STB_AVX512 inline void laneFieldCountsWide(
    const std::byte *p, std::size_t stride, std::size_t rows, const __m512i *pairOf, __m512i *count)
{
    const __m512i fifteen = _mm512_set1_epi8(15);
    __m512i acc[8];
    for (auto &a : acc)
        a = _mm512_setzero_si512();
    for (std::size_t r = 0; r < rows; ++r) {
        const __m512i v = _mm512_loadu_si512(p + r * stride);
        const __m512i nibble
            = which == 1 ? _mm512_and_si512(v, fifteen) : _mm512_and_si512(_mm512_srli_epi16(v, 4), fifteen);
#pragma GCC unroll 8
        for (unsigned g = 0; g < 8; ++g)
            acc[g] = _mm512_add_epi8(acc[g], _mm512_shuffle_epi8(pairOf[g], nibble));
    }
#pragma GCC unroll 8
    for (unsigned g = 0; g < 8; ++g) {
        count[2 * g] = _mm512_add_epi8(count[2 * g], _mm512_and_si512(acc[g], fifteen));
        count[2 * g + 1]
            = _mm512_add_epi8(count[2 * g + 1], _mm512_and_si512(_mm512_srli_epi16(acc[g], 4), fifteen));
    }
}

// r[i] byte j to r[j] byte i for 16 × 16 bytes, in each 128-bit quarter on its own.
STB_AVX512 inline void transpose16x8Wide(__m512i *r)
{
    __m512i a[16], b[16];
    for (unsigned i = 0; i < 16; i += 2) {
        a[i] = _mm512_unpacklo_epi8(r[i], r[i + 1]);
        a[i + 1] = _mm512_unpackhi_epi8(r[i], r[i + 1]);
    }
    for (unsigned i = 0; i < 16; i += 4) {
        b[i] = _mm512_unpacklo_epi16(a[i], a[i + 2]);
        b[i + 1] = _mm512_unpackhi_epi16(a[i], a[i + 2]);
        b[i + 2] = _mm512_unpacklo_epi16(a[i + 1], a[i + 3]);
        b[i + 3] = _mm512_unpackhi_epi16(a[i + 1], a[i + 3]);
    }
    for (unsigned q = 0; q < 4; ++q) {
        a[2 * q] = _mm512_unpacklo_epi32(b[q], b[4 + q]);
        a[2 * q + 1] = _mm512_unpackhi_epi32(b[q], b[4 + q]);
        r[2 * q] = _mm512_unpacklo_epi32(b[8 + q], b[12 + q]);
        r[2 * q + 1] = _mm512_unpackhi_epi32(b[8 + q], b[12 + q]);
    }
    for (unsigned m = 0; m < 8; ++m) {
        b[2 * m] = _mm512_unpacklo_epi64(a[m], r[m]);
        b[2 * m + 1] = _mm512_unpackhi_epi64(a[m], r[m]);
    }
    for (unsigned c = 0; c < 16; ++c)
        r[c] = b[c];
}
#endif

STB_AVX512 void slotNibbleWide(const std::byte *words, std::size_t stride, std::size_t rows, std::size_t columns,
    std::size_t rowWords, std::uint32_t *tables)
{
    std::size_t c0 = 0;
#if STB_WIDE_RUNS
    __m512i pairOf[8];
    pairTablesWide(pairOf);
    alignas(64) std::uint8_t bytes[16][64];
    for (; c0 + 16 <= columns; c0 += 16) {
        for (std::size_t r0 = 0; r0 < rows; r0 += 255) {
            const std::size_t n = std::min<std::size_t>(255, rows - r0);
            for (unsigned high = 0; high < 2; ++high) {
                __m512i count[16];
                for (auto &c : count)
                    c = _mm512_setzero_si512();
                for (std::size_t r1 = 0; r1 < n; r1 += 15) {
                    const std::byte *p = words + (r0 + r1) * stride + 4 * c0;
                    const std::size_t m = std::min<std::size_t>(15, n - r1);
                    if (high)
                        laneFieldCountsWide<2>(p, stride, m, pairOf, count);
                    else
                        laneFieldCountsWide<1>(p, stride, m, pairOf, count);
                }
                // bytes[c] quarter q: byte lane 16q + c's 16 code counts.
                transpose16x8Wide(count);
                for (unsigned c = 0; c < 16; ++c)
                    _mm512_store_si512(bytes[c], count[c]);
                for (unsigned lane = 0; lane < 64; ++lane) {
                    // Byte lane 4j + k: word c0 + j, nibble slot 2k (+1 for the high nibble).
                    const unsigned j = lane / 4, k = lane % 4;
                    std::uint32_t *t = tables + ((2 * k + high) * rowWords + c0 + j) * 16;
                    const __m128i counts = _mm_load_si128(
                        reinterpret_cast<const __m128i *>(bytes[lane % 16] + 16 * (lane / 16)));
                    _mm512_storeu_si512(
                        t, _mm512_add_epi32(_mm512_loadu_si512(t), _mm512_cvtepu8_epi32(counts)));
                }
            }
        }
    }
#endif
    slotNibbleBody(words + 4 * c0, stride, rows, columns - c0, rowWords, tables + 16 * c0);
}

#if STB_WIDE_RUNS
// Tiles of 8 blocks, 32 bytes of each at a time, as the AVX2 blockTiles (dequantrunsavx2.cpp):
// 64-bit lane j holds block j's bytes in all 4 rows; a nibble looked up (vpshufb) as 1 or 16 in
// the 4-bit fields of a code pair (at most 8 nibbles a byte lane), each field summed over a
// lane's 8 bytes by vpsadbw. No sum across lanes per code, two instructions per code pair.
STB_AVX512 void blockTilesWide(
    const std::uint8_t *codes, std::size_t blockBytes, std::size_t tiles, std::uint32_t *tables)
{
    const __m512i fifteen = _mm512_set1_epi8(15), highs = _mm512_set1_epi8(static_cast<char>(0xF0));
    const __m512i zero = _mm512_setzero_si512();
    // Qword q of blocks 0-3 (from two registers of two blocks each) in lanes 0-3, q + 1 in 4-7.
    const __m512i firstPair = _mm512_setr_epi64(0, 4, 8, 12, 1, 5, 9, 13);
    const __m512i secondPair = _mm512_setr_epi64(2, 6, 10, 14, 3, 7, 11, 15);
    __m512i pairOf[8];
    pairTablesWide(pairOf);
    for (std::size_t t = 0; t < tiles; ++t) {
        const std::uint8_t *base = codes + 8 * t * blockBytes;
        std::uint32_t *tab = tables + 128 * t;
        for (std::size_t s = 0; s < blockBytes; s += 32) {
            __m512i two[4]; // blocks 2i and 2i + 1
            for (unsigned i = 0; i < 4; ++i) {
                const std::uint8_t *p = base + 2 * i * blockBytes + s;
                two[i] = _mm512_inserti64x4(
                    _mm512_castsi256_si512(_mm256_loadu_si256(reinterpret_cast<const __m256i *>(p))),
                    _mm256_loadu_si256(reinterpret_cast<const __m256i *>(p + blockBytes)), 1);
            }
            const __m512i a0 = _mm512_permutex2var_epi64(two[0], firstPair, two[1]);
            const __m512i a1 = _mm512_permutex2var_epi64(two[0], secondPair, two[1]);
            const __m512i b0 = _mm512_permutex2var_epi64(two[2], firstPair, two[3]);
            const __m512i b1 = _mm512_permutex2var_epi64(two[2], secondPair, two[3]);
            const __m512i rows[4] = { _mm512_shuffle_i64x2(a0, b0, _MM_SHUFFLE(1, 0, 1, 0)),
                _mm512_shuffle_i64x2(a0, b0, _MM_SHUFFLE(3, 2, 3, 2)),
                _mm512_shuffle_i64x2(a1, b1, _MM_SHUFFLE(1, 0, 1, 0)),
                _mm512_shuffle_i64x2(a1, b1, _MM_SHUFFLE(3, 2, 3, 2)) };
            __m512i acc[8];
            for (auto &x : acc)
                x = zero;
            for (const __m512i &row : rows) {
                const __m512i lo = _mm512_and_si512(row, fifteen),
                              hi = _mm512_and_si512(_mm512_srli_epi16(row, 4), fifteen);
#pragma GCC unroll 8
                for (unsigned g = 0; g < 8; ++g)
                    acc[g] = _mm512_add_epi8(acc[g],
                        _mm512_add_epi8(
                            _mm512_shuffle_epi8(pairOf[g], lo), _mm512_shuffle_epi8(pairOf[g], hi)));
            }
            __m512i packed[2] = { zero, zero }; // codes 0-7 and 8-15, a byte each, lane j: block j
#pragma GCC unroll 8
            for (unsigned g = 0; g < 8; ++g) {
                const __m512i low = _mm512_sad_epu8(_mm512_and_si512(acc[g], fifteen), zero);
                const __m512i high = _mm512_sad_epu8(_mm512_and_si512(acc[g], highs), zero); // 16 × count
                const __m512i pair = _mm512_or_si512(low, _mm512_slli_epi64(high, 4));
                packed[g / 4] = _mm512_or_si512(packed[g / 4], _mm512_slli_epi64(pair, 16 * (g % 4)));
            }
            const __m512i even = _mm512_unpacklo_epi64(packed[0], packed[1]); // blocks 0, 2, 4, 6
            const __m512i odd = _mm512_unpackhi_epi64(packed[0], packed[1]); // blocks 1, 3, 5, 7
            const __m128i counts[8] = { _mm512_castsi512_si128(even), _mm512_castsi512_si128(odd),
                _mm512_extracti32x4_epi32(even, 1), _mm512_extracti32x4_epi32(odd, 1),
                _mm512_extracti32x4_epi32(even, 2), _mm512_extracti32x4_epi32(odd, 2),
                _mm512_extracti32x4_epi32(even, 3), _mm512_extracti32x4_epi32(odd, 3) };
            for (unsigned j = 0; j < 8; ++j) {
                std::uint32_t *tj = tab + 16 * j;
                _mm512_storeu_si512(
                    tj, _mm512_add_epi32(_mm512_loadu_si512(tj), _mm512_cvtepu8_epi32(counts[j])));
            }
        }
    }
}
#endif

STB_AVX512 void blockNibbleWide(
    const std::uint8_t *codes, std::size_t blockBytes, std::size_t blocks, std::uint32_t *tables)
{
#if STB_WIDE_RUNS
    if (blockBytes % 32 == 0) {
        const std::size_t tiles = blocks / 8;
        blockTilesWide(codes, blockBytes, tiles, tables);
        codes += 8 * tiles * blockBytes;
        tables += 128 * tiles;
        blocks -= 8 * tiles;
        // The blocks left: halves of 32 bytes, the low and high 32 bits of a 64-byte compare mask.
        const std::size_t halves = blocks * blockBytes / 32, perBlock = blockBytes / 32;
        const __m512i fifteen = _mm512_set1_epi8(15);
        std::size_t h = 0;
        const __m512i one = _mm512_set1_epi8(1), zero = _mm512_setzero_si512();
        __m512i codeOf[16];
        for (unsigned c = 0; c < 16; ++c)
            codeOf[c] = _mm512_set1_epi8(static_cast<char>(c));
        std::size_t block = 0, inBlock = 0; // of half h (no division in the loop)
        for (; h + 2 <= halves; h += 2) {
            const __m512i v = _mm512_loadu_si512(codes + 32 * h);
            const __m512i lo = _mm512_and_si512(v, fifteen), hi = _mm512_and_si512(_mm512_srli_epi16(v, 4), fifteen);
            // Per code, its nibbles per byte (0 to 2) summed over each 8 bytes by vpsadbw (at
            // most 16), eight codes' sums packed into the bytes of a 64-bit lane.
            __m512i packed[2];
            for (unsigned g = 0; g < 2; ++g) {
                __m512i acc = zero;
#pragma GCC unroll 8
                for (unsigned j = 0; j < 8; ++j) {
                    const __m512i code = codeOf[8 * g + j];
                    __m512i x = _mm512_maskz_mov_epi8(_mm512_cmpeq_epi8_mask(lo, code), one);
                    x = _mm512_mask_add_epi8(x, _mm512_cmpeq_epi8_mask(hi, code), x, one);
                    acc = _mm512_or_si512(acc, _mm512_slli_epi64(_mm512_sad_epu8(x, zero), 8 * j));
                }
                // The four 64-bit lanes of each half summed (at most 64 a byte): into lanes 0 and 4.
                acc = _mm512_add_epi8(acc, _mm512_shuffle_epi32(acc, _MM_PERM_BADC));
                packed[g] = _mm512_add_epi8(acc, _mm512_shuffle_i64x2(acc, acc, _MM_SHUFFLE(2, 3, 0, 1)));
            }
            // Lane 0: the first half's 16 counts as bytes; lane 2: the second half's.
            const __m512i counts = _mm512_unpacklo_epi64(packed[0], packed[1]);
            std::uint32_t *t0 = tables + 16 * block;
            if (++inBlock == perBlock)
                ++block, inBlock = 0;
            std::uint32_t *t1 = tables + 16 * block;
            if (++inBlock == perBlock)
                ++block, inBlock = 0;
            const __m512i c0 = _mm512_cvtepu8_epi32(_mm512_castsi512_si128(counts));
            _mm512_storeu_si512(t0, _mm512_add_epi32(_mm512_loadu_si512(t0), c0));
            const __m512i c1 = _mm512_cvtepu8_epi32(_mm512_extracti32x4_epi32(counts, 2));
            _mm512_storeu_si512(t1, _mm512_add_epi32(_mm512_loadu_si512(t1), c1));
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
STB_BODY void narrowBody(const std::uint32_t *__restrict counts, std::size_t n, std::uint8_t *__restrict out)
{
    for (std::size_t k = 0; k < n; ++k)
        out[k] = static_cast<std::uint8_t>(counts[k]);
}

STB_AVX512 void narrowWide(const std::uint32_t *counts, std::size_t n, std::uint8_t *out)
{
    narrowBody(counts, n, out);
}

STB_AVX2 void narrowAvx2(const std::uint32_t *counts, std::size_t n, std::uint8_t *out)
{
    narrowBody(counts, n, out);
}

} // namespace

void narrowCounts(const std::uint32_t *counts, std::size_t n, std::uint8_t *out)
{
    if (STB_WIDE_RUNS && kernels::avx512::enabled())
        narrowWide(counts, n, out);
    else if (STB_WIDE_RUNS && kernels::avx2::enabled())
        narrowAvx2(counts, n, out);
    else
        narrowBody(counts, n, out);
}

void columnNibbleCounts(const std::byte *words, std::size_t stride, std::size_t rows, std::size_t columns,
    std::uint32_t *tables)
{
    if (STB_WIDE_RUNS && kernels::avx512::enabled())
        columnNibbleWide(words, stride, rows, columns, tables);
    else {
        const std::size_t c0 = kernels::avx2::enabled() ? avx2::columnNibbleCounts(words, stride, rows, columns, tables) : 0;
        columnNibbleBody(words + 4 * c0, stride, rows, columns - c0, tables + 16 * c0);
    }
}

void slotNibbleCounts(const std::byte *words, std::size_t stride, std::size_t rows, std::size_t columns,
    std::size_t rowWords, std::uint32_t *tables)
{
    if (STB_WIDE_RUNS && kernels::avx512::enabled())
        slotNibbleWide(words, stride, rows, columns, rowWords, tables);
    else {
        const std::size_t c0
            = kernels::avx2::enabled() ? avx2::slotNibbleCounts(words, stride, rows, columns, rowWords, tables) : 0;
        slotNibbleBody(words + 4 * c0, stride, rows, columns - c0, rowWords, tables + 16 * c0);
    }
}

void blockNibbleCounts(const std::uint8_t *codes, std::size_t blockBytes, std::size_t blocks, std::uint32_t *tables)
{
    if (STB_WIDE_RUNS && kernels::avx512::enabled())
        blockNibbleWide(codes, blockBytes, blocks, tables);
    else if (blockBytes % 32 == 0 && kernels::avx2::enabled())
        avx2::blockNibbleCounts(codes, blockBytes, blocks, tables);
    else
        blockNibbleBody(codes, blockBytes, blocks, tables);
}

} // namespace stb::quant
