#pragma once

// The loops of the 8-bit group statistics (quantbytegroups.cpp) over one group of one output:
// `n` byte codes in a row. Integer results, so every kernel family gives the same numbers; each
// function is compiled as a plain loop for AVX-512, AVX2 and baseline x86-64 (runtarget.h) and
// picks the one the statistics kernels use (kernels::avx512::enabled, kernels::avx2::enabled).
#include <cstddef>
#include <cstdint>

namespace stb::quant {

// n <= 16384 (the sums fit 32 bits). zeros: codes equal to `zero` (0 to 256; 256 matches none).
struct ByteColumnStats {
    std::uint32_t sum = 0, squares = 0, zeros = 0;
    std::uint8_t lo = 255, hi = 0;
};
void byteColumnStats(const std::uint8_t *codes, std::size_t n, unsigned zero, ByteColumnStats &out);

// counts[j] = codes at or above thresholds[j] (0 to 256), for j < k.
void countAtLeast(const std::uint8_t *codes, std::size_t n, const std::int32_t *thresholds, std::size_t k,
    std::uint32_t *counts);

// For each of k levels j, the first code t in [lo, hi + 1] where `above` holds, for a predicate
// monotone in the code: with value(q) = double(scale) · (q − zero), `above` is
// value(q) · unit >= edges[j] when scale > 0 and its negation when scale < 0 (the bin rule of
// kernels::binIndex: each code's float value · scale is exact, see quantbytegroups.cpp). Found
// from the division and corrected by evaluating the rule at t − 1 and t. Returns false when a
// correction was not enough (the caller searches that level itself). Reads edges and writes
// thresholds up to k rounded up to a multiple of 8 (padding: any finite edges).
bool codeThresholds(double scale, std::int32_t zero, double unit, const double *edges, std::size_t k,
    unsigned lo, unsigned hi, std::int32_t *thresholds);

// A group's bins from its level counts: counts[j] codes at or above threshold j (levels > 0),
// the values at or above edge j when `up` (scale > 0), below it otherwise; bins[0 … levels]
// gain the n values between the edges. Overwrites counts with the values at or above edge j.
void addLevelBins(std::uint32_t *counts, std::size_t levels, std::uint32_t n, bool up, std::uint64_t *bins);

// GPTQ's interleaved groups in rows: word r of column c (4 codes) from src + r · rowBytes + 4c
// to dst + c · 4 · rows + 4r, for r < rows and c < columns. Word by word (portable) or in 8 × 8
// register transposes (AVX2 and AVX-512: AVX gathers measured slower, 16 rows are 16 pages apart).
void transposeWords(
    const std::uint8_t *src, std::size_t rowBytes, std::size_t rows, std::size_t columns, std::uint8_t *dst);

// GPTQ's interleaved groups without transposing them: the byteColumnStats of each of `columns`
// outputs over a group of 4 · rows codes, output c's codes being the 4 bytes of word c of each of
// `rows` rows rowBytes apart (src + r · rowBytes + 4c); zeros[c] as byteColumnStats' zero.
// rows <= 4096. The AVX kernels sum 16 (8) outputs at a time down the rows, with byte-pair
// multiply-adds for the sums and 16-bit ones for the squares.
void columnWordStats(const std::uint8_t *src, std::size_t rowBytes, std::size_t rows, std::size_t columns,
    const unsigned *zeros, ByteColumnStats *out);

// 4-bit GPTQ's rows of words as rows of byte codes: row r's bytes' low nibbles to row 2r of dst,
// their high nibbles to row 2r + 1 (rows of `bytes` bytes, src's rowBytes apart, dst's back to
// back). Word c of each dst row then holds 4 codes of output c, as an 8-bit row does.
void splitNibbleRows(
    const std::uint8_t *src, std::size_t rowBytes, std::size_t rows, std::size_t bytes, std::uint8_t *dst);

// The family the functions above pick (kernels::avx512::enabled, kernels::avx2::enabled).
enum class ByteRunFamily { Portable, Avx2, Avx512 };
ByteRunFamily byteRunFamily();

// The same, one family each (callers that picked once, and tests) (the AVX ones only where the CPU has them).
void byteColumnStatsIn(
    ByteRunFamily family, const std::uint8_t *codes, std::size_t n, unsigned zero, ByteColumnStats &out);
void countAtLeastIn(ByteRunFamily family, const std::uint8_t *codes, std::size_t n,
    const std::int32_t *thresholds, std::size_t k, std::uint32_t *counts);
void addLevelBinsIn(ByteRunFamily family, std::uint32_t *counts, std::size_t levels, std::uint32_t n, bool up,
    std::uint64_t *bins);
void transposeWordsIn(ByteRunFamily family, const std::uint8_t *src, std::size_t rowBytes, std::size_t rows,
    std::size_t columns, std::uint8_t *dst);
// A group's bins in one call: codeThresholds, countAtLeast and addLevelBins for `levels` levels
// (bins[0 … levels] gain the group's n values; `thresholds` and `counts` are scratch of levels
// rounded up to 8). False when codeThresholds is (the caller bins the group another way; bins
// untouched).
bool binGroupCodesIn(ByteRunFamily family, const std::uint8_t *codes, std::size_t n, double scale,
    std::int32_t zero, double unit, const double *edges, std::size_t levels, unsigned lo, unsigned hi,
    std::int32_t *thresholds, std::uint32_t *counts, std::uint64_t *bins);

void splitNibbleRowsIn(ByteRunFamily family, const std::uint8_t *src, std::size_t rowBytes, std::size_t rows,
    std::size_t bytes, std::uint8_t *dst);
void columnWordStatsIn(ByteRunFamily family, const std::uint8_t *src, std::size_t rowBytes, std::size_t rows,
    std::size_t columns, const unsigned *zeros, ByteColumnStats *out);
bool codeThresholdsIn(ByteRunFamily family, double scale, std::int32_t zero, double unit, const double *edges,
    std::size_t k, unsigned lo, unsigned hi, std::int32_t *thresholds);

} // namespace stb::quant
