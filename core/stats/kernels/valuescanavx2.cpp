// The portable family's heatmap kernel on CPUs with AVX2 and F16C (nearly every x86-64 since
// 2013, and most of those without AVX-512): 8 floats at a time, as valuescanavx512.cpp does 16.
// GCC's generic vectors (valuescan.cpp, still used where AVX2 is missing) split the widening of
// 16-bit codes and the float-to-double conversion into 128-bit halves and blend for every
// masked value: perf put that loop at twice the AVX-512 one's time. Lane for lane what the
// scalar definitions compute (valuescan.h).
#include "core/stats/kernels/valuescan.h"

#include "core/stats/kernels/prefetch.h"
#include "core/stats/kernels/rowblocks.h"

#include <algorithm>
#include <atomic>

#if defined(__x86_64__) && defined(__GNUC__)
#include <cpuid.h>
#include <immintrin.h>
#define STB_HAVE_AVX2 1
#define STB_AVX2 __attribute__((target("avx2,f16c")))
#endif

namespace stb::kernels::avx2 {

namespace {

std::atomic<bool> &enabledFlag()
{
    static std::atomic<bool> flag { true };
    return flag;
}

} // namespace

#ifdef STB_HAVE_AVX2

bool supported()
{
    // FMA for portableavx2.cpp's exact adds. F16C by CPUID (leaf 1, ECX): clang's __builtin_cpu_supports does
    // not know "f16c".
    static const bool has = [] {
        unsigned a = 0, b = 0, c = 0, d = 0;
        return __builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma")
            && __get_cpuid(1, &a, &b, &c, &d) && (c & bit_F16C) != 0;
    }();
    return has;
}

namespace {

// 8 contiguous values at p as floats, exactly (vcvtph2ps is exact for every F16 code).
template<DType D> STB_AVX2 inline __m256 load8(const std::byte *p)
{
    if constexpr (D == DType::F32)
        return _mm256_loadu_ps(reinterpret_cast<const float *>(p));
    const __m128i codes = _mm_loadu_si128(reinterpret_cast<const __m128i *>(p));
    if constexpr (D == DType::BF16)
        return _mm256_castsi256_ps(_mm256_slli_epi32(_mm256_cvtepu16_epi32(codes), 16));
    return _mm256_cvtph_ps(codes);
}

// All-ones in the lanes whose value is finite (exponent bits not all set).
STB_AVX2 inline __m256 finiteLanes(__m256 x)
{
    const __m256i exponent = _mm256_set1_epi32(0x7F800000);
    const __m256i bits = _mm256_and_si256(_mm256_castps_si256(x), exponent);
    return _mm256_castsi256_ps(_mm256_xor_si256(_mm256_cmpeq_epi32(bits, exponent), _mm256_set1_epi32(-1)));
}

// Column vectors carried down a block side by side (see valuescanavx512.cpp).
constexpr int kVectors = 2;

// kVectors column vectors (8 columns each) down `rows` rows, as valuescanavx512.cpp's
// addColumnVectors.
template<DType D, bool Masked>
STB_AVX2 inline void addColumnVectors(const std::byte *row, std::size_t rowBytes, std::size_t rows, __m256 *l,
    __m256 *h, __m256d *s0, __m256d *s1, __m256 &finiteAll)
{
    constexpr std::size_t size = D == DType::F32 ? 4 : 2;
    for (std::size_t r = 0; r < rows; ++r, row += rowBytes) {
        __m256 xs[kVectors];
        if constexpr (D == DType::BF16) {
            // 16 codes in one load as the even and the odd columns (valuescanavx512.cpp).
            const __m256i codes = _mm256_loadu_si256(reinterpret_cast<const __m256i *>(row));
            xs[0] = _mm256_castsi256_ps(_mm256_slli_epi32(codes, 16));
            xs[1] = _mm256_castsi256_ps(_mm256_and_si256(codes, _mm256_set1_epi32(int(0xFFFF0000u))));
        } else {
#pragma GCC unroll 2
            for (int v = 0; v < kVectors; ++v)
                xs[v] = load8<D>(row + v * 8 * size);
        }
#pragma GCC unroll 2
        for (int v = 0; v < kVectors; ++v) {
            __m256 x = xs[v];
            if constexpr (Masked) {
                const __m256 finite = finiteLanes(x);
                finiteAll = _mm256_and_ps(finiteAll, finite);
                l[v] = _mm256_blendv_ps(l[v], _mm256_min_ps(x, l[v]), finite); // x < l ? x : l where finite
                h[v] = _mm256_blendv_ps(h[v], _mm256_max_ps(x, h[v]), finite);
                x = _mm256_and_ps(x, finite); // +0 for a value left out
            } else {
                l[v] = _mm256_min_ps(x, l[v]);
                h[v] = _mm256_max_ps(x, h[v]);
            }
            s0[v] = _mm256_add_pd(s0[v], _mm256_cvtps_pd(_mm256_castps256_ps128(x)));
            s1[v] = _mm256_add_pd(s1[v], _mm256_cvtps_pd(_mm256_extractf128_ps(x, 1)));
        }
    }
}

// The running values of kVectors column vectors: stored, or where a fresh run starts.
STB_AVX2 inline void loadRunning(bool fresh, const float *lo, const float *hi, const double *sum, __m256 *l,
    __m256 *h, __m256d *s0, __m256d *s1)
{
    if (fresh) {
#pragma GCC unroll 2
        for (int v = 0; v < kVectors; ++v) {
            l[v] = _mm256_set1_ps(INFINITY);
            h[v] = _mm256_set1_ps(-INFINITY);
            s0[v] = s1[v] = _mm256_setzero_pd();
        }
        return;
    }
#pragma GCC unroll 2
    for (int v = 0; v < kVectors; ++v) {
        l[v] = _mm256_loadu_ps(lo + 8 * v);
        h[v] = _mm256_loadu_ps(hi + 8 * v);
        s0[v] = _mm256_loadu_pd(sum + 8 * v);
        s1[v] = _mm256_loadu_pd(sum + 8 * v + 4);
    }
}

// BF16 carries its 16 columns interleaved between blocks, as valuescanavx512.cpp does its 32:
// l[0], h[0] the even columns, l[1], h[1] the odd ones; s0[0], s1[0] the even columns of 0-7
// and of 8-15, s0[1], s1[1] the odd ones.
template<DType D> constexpr bool interleaved()
{
    static_assert(kVectors == 2);
    return D == DType::BF16;
}

// The first n columns (a multiple of 16) of lo, hi and sum from column order to the interleaved
// one or back. Sums at sum + 0, 4, 8, 12: columns 0-3, 4-7, 8-11, 12-15 in column order;
// s0[0], s1[0], s0[1], s1[1] interleaved.
template<bool ToInterleaved> STB_AVX2 void reorder(std::size_t n, float *lo, float *hi, double *sum)
{
    for (std::size_t k = 0; k < n; k += 16) {
        for (float *p : { lo + k, hi + k }) {
            const __m256 a = _mm256_loadu_ps(p), b = _mm256_loadu_ps(p + 8);
            __m256 x, y;
            if constexpr (ToInterleaved) {
                // [a0 a2 b0 b2 | a4 a6 b4 b6], then the 64-bit pairs in order 0, 2, 1, 3.
                x = _mm256_castpd_ps(_mm256_permute4x64_pd(
                    _mm256_castps_pd(_mm256_shuffle_ps(a, b, _MM_SHUFFLE(2, 0, 2, 0))), _MM_SHUFFLE(3, 1, 2, 0)));
                y = _mm256_castpd_ps(_mm256_permute4x64_pd(
                    _mm256_castps_pd(_mm256_shuffle_ps(a, b, _MM_SHUFFLE(3, 1, 3, 1))), _MM_SHUFFLE(3, 1, 2, 0)));
            } else {
                const __m256 low = _mm256_unpacklo_ps(a, b), high = _mm256_unpackhi_ps(a, b);
                x = _mm256_permute2f128_ps(low, high, 0x20);
                y = _mm256_permute2f128_ps(low, high, 0x31);
            }
            _mm256_storeu_ps(p, x);
            _mm256_storeu_ps(p + 8, y);
        }
        double *q = sum + k;
        const __m256d a = _mm256_loadu_pd(q), b = _mm256_loadu_pd(q + 4), c = _mm256_loadu_pd(q + 8),
                      d = _mm256_loadu_pd(q + 12);
        if constexpr (ToInterleaved) {
            // Columns [0 4 2 6] (and [1 5 3 7]) by unpacking, then in order.
            const int order = _MM_SHUFFLE(3, 1, 2, 0);
            _mm256_storeu_pd(q, _mm256_permute4x64_pd(_mm256_unpacklo_pd(a, b), order));
            _mm256_storeu_pd(q + 4, _mm256_permute4x64_pd(_mm256_unpacklo_pd(c, d), order));
            _mm256_storeu_pd(q + 8, _mm256_permute4x64_pd(_mm256_unpackhi_pd(a, b), order));
            _mm256_storeu_pd(q + 12, _mm256_permute4x64_pd(_mm256_unpackhi_pd(c, d), order));
        } else {
            // a, b: the even columns of 0-7 and of 8-15; c, d: the odd ones.
            const __m256d low0 = _mm256_unpacklo_pd(a, c), high0 = _mm256_unpackhi_pd(a, c);
            const __m256d low1 = _mm256_unpacklo_pd(b, d), high1 = _mm256_unpackhi_pd(b, d);
            _mm256_storeu_pd(q, _mm256_permute2f128_pd(low0, high0, 0x20));
            _mm256_storeu_pd(q + 4, _mm256_permute2f128_pd(low0, high0, 0x31));
            _mm256_storeu_pd(q + 8, _mm256_permute2f128_pd(low1, high1, 0x20));
            _mm256_storeu_pd(q + 12, _mm256_permute2f128_pd(low1, high1, 0x31));
        }
    }
}

STB_AVX2 inline void storeRunning(
    const __m256 *l, const __m256 *h, const __m256d *s0, const __m256d *s1, float *lo, float *hi, double *sum)
{
#pragma GCC unroll 2
    for (int v = 0; v < kVectors; ++v) {
        _mm256_storeu_ps(lo + 8 * v, l[v]);
        _mm256_storeu_ps(hi + 8 * v, h[v]);
        _mm256_storeu_pd(sum + 8 * v, s0[v]);
        _mm256_storeu_pd(sum + 8 * v + 4, s1[v]);
    }
}

// One group of columns down the block again, masked, from its running values before the block,
// and stored; false when a value was not finite (always, as it is only called then). Out of line
// and cold: inlined, it kept the unmasked loop's running values in stack slots around it.
template<DType D>
__attribute__((noinline, cold)) STB_AVX2 bool redoMasked(const std::byte *row, std::size_t rowBytes,
    std::size_t rows, bool fresh, float *lo, float *hi, double *sum)
{
    __m256 l[kVectors], h[kVectors];
    __m256d s0[kVectors], s1[kVectors];
    __m256 finite = _mm256_castsi256_ps(_mm256_set1_epi32(-1));
    loadRunning(fresh, lo, hi, sum, l, h, s0, s1);
    addColumnVectors<D, true>(row, rowBytes, rows, l, h, s0, s1, finite);
    storeRunning(l, h, s0, s1, lo, hi, sum);
    return _mm256_movemask_ps(finite) == 0xFF;
}

// Whether the sums of kVectors column vectors are all finite.
STB_AVX2 inline bool sumsFinite(const __m256d *s0, const __m256d *s1)
{
    __m256d both = _mm256_add_pd(s0[0], s1[0]); // not finite when one of them is not
#pragma GCC unroll 2
    for (int v = 1; v < kVectors; ++v)
        both = _mm256_add_pd(both, _mm256_add_pd(s0[v], s1[v]));
    both = _mm256_sub_pd(both, both); // +0 where finite, NaN where not
    return _mm256_movemask_pd(_mm256_cmp_pd(both, both, _CMP_UNORD_Q)) == 0;
}

// One block again value by value from its running values before the block (unmasked, then
// masked when a value was not finite), stored; false when a value was not finite. Out of line
// and cold, as redoMasked.
template<DType D>
__attribute__((noinline, cold)) STB_AVX2 bool redoBlock(const std::byte *row, std::size_t rowBytes,
    std::size_t rows, bool fresh, float *lo, float *hi, double *sum)
{
    __m256 l[kVectors], h[kVectors];
    __m256d s0[kVectors], s1[kVectors];
    loadRunning(fresh, lo, hi, sum, l, h, s0, s1);
    __m256 unused = _mm256_setzero_ps();
    addColumnVectors<D, false>(row, rowBytes, rows, l, h, s0, s1, unused);
    if (!sumsFinite(s0, s1))
        return redoMasked<D>(row, rowBytes, rows, fresh, lo, hi, sum);
    storeRunning(l, h, s0, s1, lo, hi, sum);
    return true;
}

// One block of at most kRowBlock rows over the first n columns (a multiple of 8·kVectors):
// unmasked first, redone masked when a sum comes out not finite (see valuescanavx512.cpp).
template<DType D>
STB_AVX2 bool addBlock(const std::byte *p, std::size_t rowBytes, std::size_t rows, std::size_t n, float *lo,
    float *hi, double *sum, const std::byte *next, bool fresh)
{
    constexpr std::size_t size = D == DType::F32 ? 4 : 2;
    constexpr std::size_t columns = 8 * kVectors;
    bool finite = true;
    BlockPrefetch prefetch(next, rowBytes, size * n, kRowBlock, n / columns);
    for (std::size_t k = 0; k < n; k += columns) {
        prefetch.step(); // first: with the running values loaded, its loop spilled them
        __m256 l[kVectors], h[kVectors];
        __m256d s0[kVectors], s1[kVectors];
        loadRunning(fresh, lo + k, hi + k, sum + k, l, h, s0, s1);
        const std::byte *row = p + size * k;
        __m256 unused = _mm256_setzero_ps(); // only the masked pass keeps finiteness
        addColumnVectors<D, false>(row, rowBytes, rows, l, h, s0, s1, unused);
        if (!sumsFinite(s0, s1)) {
            finite &= redoMasked<D>(row, rowBytes, rows, fresh, lo + k, hi + k, sum + k);
            continue;
        }
        storeRunning(l, h, s0, s1, lo + k, hi + k, sum + k);
    }
    return finite;
}

// BF16 summed in float first, 8 rows at a time (a fresh call of at most kFastColumns columns).
// Converting every value to double and adding it was 10 of the 16 vector operations per row of
// 16 columns. Adding the block's float sum once gives the same double only when no addition
// rounds, on either path; two checks make sure of that, from a value's exponent E (its lowest bit
// is 2^(max(E,1)-134), its magnitude below 2^(max(E,1)-126)):
//   - in a block, per column, the largest and the smallest nonzero magnitude are at most 13
//     binades apart: every partial sum of the block's (at most 8) values is then a multiple of
//     the smallest one's lowest bit and below 2^24 of it, so exact in float. Otherwise the block
//     is redone value by value. On N(0, 0.02) weights those redos took 3% of the kernel's perf
//     samples; with the largest magnitude so far (from the running extremes) instead, 7%.
//   - per column over the call, with 2^R >= rows: R + E(largest) - E(smallest nonzero) <= 45,
//     so that every partial sum of the column's values, in any order, is exact in double (a
//     multiple of the smallest lowest bit below 2^53 of it). Then the running sums are exact on
//     both paths, hence equal. A group of 16 columns failing it is redone by the scalar
//     definition at the end (rare: 37 binades for 148 rows).
// Magnitudes are kept per column in 16-bit lanes: the largest as 2|code|, the smallest nonzero
// as 2|code| - 1 (0xFFFF for a zero, so unsigned minimum skips zeros; the exponent read from it
// may be one low, which only makes the checks stricter). Values not finite make a sum not
// finite: those blocks are redone masked, as in addBlock, and masked values count as +0.
constexpr std::size_t kFastColumns = 4096;

// Whether a block's float sums may have rounded: per column, the largest magnitude (highest:
// 2|code|) more than 13 binades above the smallest nonzero one (lowest: 2|code| - 1).
STB_AVX2 inline bool mayRound(__m256i lowest, __m256i highest)
{
    const __m256i big = _mm256_srli_epi16(highest, 8), small = _mm256_srli_epi16(lowest, 8);
    const __m256i over = _mm256_cmpgt_epi16(big, _mm256_add_epi16(small, _mm256_set1_epi16(13)));
    return !_mm256_testz_si256(over, over);
}

// One block of BF16 rows over the first n columns, summed in float (see above); lowest[k / 16]
// takes the block's lowest nonzero magnitudes. first: the call's first block (fresh).
__attribute__((noinline)) STB_AVX2 bool addBlockFast(const std::byte *p, std::size_t rowBytes, std::size_t rows,
    std::size_t n, float *lo, float *hi, double *sum, __m256i *lowest, const std::byte *next, bool first)
{
    constexpr DType D = DType::BF16;
    bool finite = true;
    BlockPrefetch prefetch(next, rowBytes, 2 * n, kRowBlock, n / 16);
    for (std::size_t k = 0; k < n; k += 16) {
        prefetch.step();
        const __m256i oddMask = _mm256_set1_epi32(int(0xFFFF0000u));
        const __m256i ones = _mm256_set1_epi16(-1);
        __m256 l[2], h[2];
        if (first) {
            l[0] = l[1] = _mm256_set1_ps(INFINITY);
            h[0] = h[1] = _mm256_set1_ps(-INFINITY);
        } else {
            l[0] = _mm256_loadu_ps(lo + k);
            l[1] = _mm256_loadu_ps(lo + k + 8);
            h[0] = _mm256_loadu_ps(hi + k);
            h[1] = _mm256_loadu_ps(hi + k + 8);
        }
        const std::byte *row = p + 2 * k;
        __m256i codes = _mm256_loadu_si256(reinterpret_cast<const __m256i *>(row));
        __m256 even = _mm256_castsi256_ps(_mm256_slli_epi32(codes, 16));
        __m256 odd = _mm256_castsi256_ps(_mm256_and_si256(codes, oddMask));
        l[0] = _mm256_min_ps(even, l[0]);
        h[0] = _mm256_max_ps(even, h[0]);
        l[1] = _mm256_min_ps(odd, l[1]);
        h[1] = _mm256_max_ps(odd, h[1]);
        __m256 evenSum = even, oddSum = odd;
        __m256i high = _mm256_add_epi16(codes, codes); // the sign shifted out
        __m256i low = _mm256_add_epi16(high, ones);
        const std::byte *r = row + rowBytes;
        for (std::size_t i = 1; i < rows; ++i, r += rowBytes) {
            codes = _mm256_loadu_si256(reinterpret_cast<const __m256i *>(r));
            even = _mm256_castsi256_ps(_mm256_slli_epi32(codes, 16));
            odd = _mm256_castsi256_ps(_mm256_and_si256(codes, oddMask));
            l[0] = _mm256_min_ps(even, l[0]);
            h[0] = _mm256_max_ps(even, h[0]);
            l[1] = _mm256_min_ps(odd, l[1]);
            h[1] = _mm256_max_ps(odd, h[1]);
            evenSum = _mm256_add_ps(evenSum, even);
            oddSum = _mm256_add_ps(oddSum, odd);
            const __m256i twice = _mm256_add_epi16(codes, codes);
            low = _mm256_min_epu16(low, _mm256_add_epi16(twice, ones));
            high = _mm256_max_epu16(high, twice);
        }
        __m256i &kept = lowest[k / 16];
        kept = first ? low : _mm256_min_epu16(kept, low);
        __m256d s0[2], s1[2];
        if (first) {
            s0[0] = s0[1] = s1[0] = s1[1] = _mm256_setzero_pd();
        } else {
            s0[0] = _mm256_loadu_pd(sum + k);
            s1[0] = _mm256_loadu_pd(sum + k + 4);
            s0[1] = _mm256_loadu_pd(sum + k + 8);
            s1[1] = _mm256_loadu_pd(sum + k + 12);
        }
        s0[0] = _mm256_add_pd(s0[0], _mm256_cvtps_pd(_mm256_castps256_ps128(evenSum)));
        s1[0] = _mm256_add_pd(s1[0], _mm256_cvtps_pd(_mm256_extractf128_ps(evenSum, 1)));
        s0[1] = _mm256_add_pd(s0[1], _mm256_cvtps_pd(_mm256_castps256_ps128(oddSum)));
        s1[1] = _mm256_add_pd(s1[1], _mm256_cvtps_pd(_mm256_extractf128_ps(oddSum, 1)));
        if (mayRound(low, high) || !sumsFinite(s0, s1)) {
            finite &= redoBlock<D>(row, rowBytes, rows, first, lo + k, hi + k, sum + k);
            continue;
        }
        storeRunning(l, h, s0, s1, lo + k, hi + k, sum + k);
    }
    return finite;
}

// The check over the call (see above) for the first n columns, in column order again: a group of
// 16 columns that fails it is summed again by the scalar definition, from a fresh start.
STB_AVX2 bool redoInexact(const std::byte *p, std::size_t rowBytes, std::size_t rows, std::size_t n, float *lo,
    float *hi, double *sum, const __m256i *lowest)
{
    int bits = 0; // 2^bits >= rows
    while ((std::size_t(1) << bits) < rows)
        ++bits;
    const __m256i limit = _mm256_set1_epi32(45 - bits);
    bool finite = true;
    for (std::size_t k = 0; k < n; k += 16) {
        __m256i over = _mm256_setzero_si256();
        for (int half = 0; half < 2; ++half) {
            const __m256 largest = _mm256_max_ps(
                _mm256_loadu_ps(hi + k + 8 * half), _mm256_xor_ps(_mm256_loadu_ps(lo + k + 8 * half), _mm256_set1_ps(-0.0f)));
            const __m256i bigExp = _mm256_max_epi32(
                _mm256_srli_epi32(_mm256_slli_epi32(_mm256_castps_si256(largest), 1), 24), _mm256_set1_epi32(1));
            const __m128i low16 = half == 0 ? _mm256_castsi256_si128(lowest[k / 16])
                                            : _mm256_extracti128_si256(lowest[k / 16], 1);
            const __m256i smallExp = _mm256_srli_epi32(_mm256_cvtepu16_epi32(low16), 8);
            over = _mm256_or_si256(over, _mm256_cmpgt_epi32(_mm256_sub_epi32(bigExp, smallExp), limit));
        }
        if (_mm256_testz_si256(over, over))
            continue;
        startColumns(16, lo + k, hi + k, sum + k);
        finite &= addRowsToColumnsScalar(DType::BF16, p + 2 * k, rowBytes, rows, 16, lo + k, hi + k, sum + k);
    }
    return finite;
}

// addRowsInBlocks (rowblocks.h) with addBlockFast for a fresh BF16 call.
STB_AVX2 bool addRowsFast(
    const std::byte *p, std::size_t rowBytes, std::size_t rows, std::size_t n, float *lo, float *hi, double *sum)
{
    __m256i lowest[kFastColumns / 16];
    const std::size_t whole = n / 16 * 16;
    bool finite = true;
    for (std::size_t r = 0; r < rows; r += kRowBlock) {
        const std::size_t block = std::min(kRowBlock, rows - r);
        const std::byte *q = p + r * rowBytes;
        const std::byte *next = r + block < rows ? q + block * rowBytes : nullptr;
        finite &= addBlockFast(q, rowBytes, block, whole, lo, hi, sum, lowest, next, r == 0);
    }
    reorder<false>(whole, lo, hi, sum);
    finite &= redoInexact(p, rowBytes, rows, whole, lo, hi, sum, lowest);
    startColumns(n - whole, lo + whole, hi + whole, sum + whole);
    return addRowsToColumnsScalar(DType::BF16, p + 2 * whole, rowBytes, rows, n - whole, lo + whole, hi + whole,
               sum + whole)
        && finite;
}

// The family's kernels, for addRowsInBlocks (rowblocks.h).
struct Lanes {
    static constexpr std::size_t kColumns = 8 * kVectors;
    template<DType D> static constexpr bool interleaved() { return kernels::avx2::interleaved<D>(); }
    template<bool ToInterleaved> STB_AVX2 static void reorder(std::size_t n, float *lo, float *hi, double *sum)
    {
        kernels::avx2::reorder<ToInterleaved>(n, lo, hi, sum);
    }
    template<DType D>
    STB_AVX2 static bool addBlock(const std::byte *p, std::size_t rowBytes, std::size_t rows, std::size_t n, float *lo,
        float *hi, double *sum, const std::byte *next, bool fresh)
    {
        return kernels::avx2::addBlock<D>(p, rowBytes, rows, n, lo, hi, sum, next, fresh);
    }
};

template<DType D>
bool addRowsLanes(const std::byte *p, std::size_t rowBytes, std::size_t rows, std::size_t n, float *lo, float *hi,
    double *sum, bool fresh)
{
    if constexpr (D == DType::BF16) {
        if (fresh && rows != 0 && n <= kFastColumns)
            return addRowsFast(p, rowBytes, rows, n, lo, hi, sum);
    }
    return addRowsInBlocks<Lanes, D>(p, rowBytes, rows, n, lo, hi, sum, fresh);
}

} // namespace

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

#else // not x86-64 with GCC or Clang: never called (enabled() is false)

bool supported()
{
    return false;
}

bool addRowsToColumns(DType dtype, const std::byte *p, std::size_t rowBytes, std::size_t rows, std::size_t n,
    float *lo, float *hi, double *sum, bool fresh)
{
    if (fresh)
        startColumns(n, lo, hi, sum);
    return addRowsToColumnsScalar(dtype, p, rowBytes, rows, n, lo, hi, sum);
}

#endif

bool enabled()
{
    return supported() && enabledFlag().load(std::memory_order_relaxed);
}

void setEnabled(bool on)
{
    enabledFlag() = on;
}

} // namespace stb::kernels::avx2
