#pragma once

// The innermost dequantizing loops, over one contiguous run of codes that share their layout:
// branch-free and written for the vectorizer. Each is compiled twice, portable and for AVX-512
// (picked per call by kernels::avx512::enabled(), so tests can switch the wide ones off), in a
// file built with -O3. Every run gives exactly the floats the per-element loops of
// dequantizerkernels.cpp give: the same operations in the same order.
#include <cstddef>
#include <cstdint>
#include <limits>

namespace stb::quant {

// out[k] = (float((word[k] >> shift) & mask) - zeros[k]) * scales[k], word[k] the k-th
// little-endian 32-bit word at `words` (GPTQ and AWQ in storage order).
void affineRun(const std::byte *words, unsigned shift, std::uint32_t mask, const float *zeros,
    const float *scales, std::size_t n, float *out);

// out[k] = (float(codes[k]) - zero) * scale (pack-quantized 8-bit: a code per byte).
void byteAffineRun(const std::uint8_t *codes, float zero, float scale, std::size_t n, float *out);

// out[k] = table[codes[k]] * scale (FP8 of every granularity).
void tableRun(const std::uint8_t *codes, const float *table, float scale, std::size_t n, float *out);
// The same for F8_E4M3 codes, decoded by arithmetic instead of a table (no gather): normal codes
// by moving their exponent and mantissa into a float's, subnormal ones as m · 2^-9, 0x7f and 0xff
// as NaN. Equal to tableRun over decodeCode(F8_E4M3)'s table.
void e4m3Run(const std::uint8_t *codes, float scale, std::size_t n, float *out);
// e4m3Run over `blocks` runs of `width` codes back to back, run b scaled by scales[b] (a row of
// FP8 blocks: one call instead of one per block).
void e4m3BlocksRun(
    const std::uint8_t *codes, const float *scales, std::size_t width, std::size_t blocks, float *out);

// out[k] = float(codes[k]) * scale (bitsandbytes int8).
void int8Run(const std::int8_t *codes, float scale, std::size_t n, float *out);

// Blocks of 4-bit codes, two a byte, each block of `blockBytes` bytes sharing zeros[b] and
// scales[b]: (table16[code] - zeros[b]) * scales[b] of block b's low nibbles to
// out[2·b·blockBytes …], then of its high nibbles after them (storage order for statistics;
// MXFP4 and bitsandbytes 4-bit differ only in which nibble comes first, which the order of a
// multiset does not see). Null zeros: 0, so table16[code] * scales[b] exactly (x − 0 is x).
// Pack-quantized 4-bit: table16[c] = c and zeros[b] = 8 + the group's zero point.
void nibbleBlocksRun(const std::uint8_t *codes, const float *table16, const float *zeros, const float *scales,
    std::size_t blocks, std::size_t blockBytes, float *out);

// out[16 · b + c] = table16[c] * scales[b] for b < blocks: the values of each block's 16 codes,
// as nibbleBlocksRun computes them (code counting's values of bitsandbytes 4-bit blocks).
void scaledTablesRun(const float *table16, const float *scales, std::size_t blocks, float *out);

// out[r · codes + c] = (float(c) - zeros[r]) * scales[r] for r < positions, c < codes: the values
// of each position's codes, as affineRun computes them (GPTQ and AWQ groups' code counts).
void affineTablesRun(const float *zeros, const float *scales, std::size_t positions, unsigned codes, float *out);

// Code counting of 4-bit codes (Dequantizer::countStorage), tables of 16 counts added to:
// GPTQ: `rows` rows (each `stride` bytes after the last) of `columns` 32-bit words whose 8 nibbles
// all belong to the word's column: tables[column · 16 + code].
void columnNibbleCounts(const std::byte *words, std::size_t stride, std::size_t rows, std::size_t columns,
    std::uint32_t *tables);
// AWQ: `rows` rows of `columns` words (of a row of `rowWords`), nibble s of word w belonging to
// position s · rowWords + w: tables[(s · rowWords + w) · 16 + code], w counted from `words`.
void slotNibbleCounts(const std::byte *words, std::size_t stride, std::size_t rows, std::size_t columns,
    std::size_t rowWords, std::uint32_t *tables);
// Blocks of `blockBytes` bytes (a multiple of 32), both nibbles of block b's bytes in
// tables[b · 16 + code] (bitsandbytes blocks, pack-quantized groups).
void blockNibbleCounts(const std::uint8_t *codes, std::size_t blockBytes, std::size_t blocks, std::uint32_t *tables);

// A CountTape's bytes: out[k] = counts[k] (each below 256).
void narrowCounts(const std::uint32_t *counts, std::size_t n, std::uint8_t *out);

// Moments of counted values (code counting's pass 1): over k < n, counts[k] elements of value
// values[k]; finite values summed around `shift` in double, in 8 lanes (so the loop is a vector
// loop; the lanes are added in a fixed order). Adds to `m`.
struct CountedMoments {
    double finite = 0, zeros = 0, nan = 0, posInf = 0, negInf = 0, sum = 0, squares = 0;
    float lo = std::numeric_limits<float>::infinity(), hi = -std::numeric_limits<float>::infinity();
};
void countedMomentsRun(
    const float *values, const std::uint32_t *counts, std::size_t n, double shift, CountedMoments &m);

// Outliers among counted values (code counting's pass 2): the sum of counts[k] over the finite
// values[k] at or above `above` or at or below `below` (kernels::BinPlan's outlierAbove and
// outlierBelow). Counts from pass 1 or from a CountTape's bytes.
std::uint64_t countedOutliersRun(
    const float *values, const std::uint32_t *counts, std::size_t n, float above, float below);
std::uint64_t countedOutliersRun(
    const float *values, const std::uint8_t *counts, std::size_t n, float above, float below);

} // namespace stb::quant
