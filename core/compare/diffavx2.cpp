// The AVX2 loop of diffavx2.h: eight elements a round in two steps of four, the sums' four lanes
// (diffsums.h) in one vector per sum, the counters in vectors, one finiteness test per round on
// the floats before they are widened, the maximum's in-order update only where a value passes it. No FMA: the
// target is plain "avx2", so each product is rounded before its addition, as in the scalar loop.
#include "core/compare/diffavx2.h"

#if defined(__x86_64__) && defined(__GNUC__)
#include <immintrin.h>
// F16C for F16 codes (kernels::avx2::supported() requires it); not FMA.
#define STB_DIFF_AVX2 __attribute__((target("avx2,f16c")))
#endif

namespace stb::diff::avx2 {

#ifdef STB_DIFF_AVX2

namespace {

// Elements [i, i + 4) as doubles, and [i, i + 8) as floats, exactly as F32Values, BF16Values and
// F16Values give them (vcvtph2ps is exact for every F16 code).
struct F32Lanes {
    STB_DIFF_AVX2 static __m256d load(const std::byte *p, std::uint64_t i)
    {
        return _mm256_cvtps_pd(_mm_loadu_ps(reinterpret_cast<const float *>(p + 4 * i)));
    }
    STB_DIFF_AVX2 static __m256 load8(const std::byte *p, std::uint64_t i)
    {
        return _mm256_loadu_ps(reinterpret_cast<const float *>(p + 4 * i));
    }
    using Values = F32Values;
};
struct BF16Lanes {
    STB_DIFF_AVX2 static __m256d load(const std::byte *p, std::uint64_t i)
    {
        const __m128i codes = _mm_loadl_epi64(reinterpret_cast<const __m128i *>(p + 2 * i));
        const __m128i bits = _mm_slli_epi32(_mm_cvtepu16_epi32(codes), 16);
        return _mm256_cvtps_pd(_mm_castsi128_ps(bits));
    }
    STB_DIFF_AVX2 static __m256 load8(const std::byte *p, std::uint64_t i)
    {
        const __m128i codes = _mm_loadu_si128(reinterpret_cast<const __m128i *>(p + 2 * i));
        return _mm256_castsi256_ps(_mm256_slli_epi32(_mm256_cvtepu16_epi32(codes), 16));
    }
    using Values = BF16Values;
};
struct F16Lanes {
    STB_DIFF_AVX2 static __m256d load(const std::byte *p, std::uint64_t i)
    {
        return _mm256_cvtps_pd(_mm_cvtph_ps(_mm_loadl_epi64(reinterpret_cast<const __m128i *>(p + 2 * i))));
    }
    STB_DIFF_AVX2 static __m256 load8(const std::byte *p, std::uint64_t i)
    {
        return _mm256_cvtph_ps(_mm_loadu_si128(reinterpret_cast<const __m128i *>(p + 2 * i)));
    }
    using Values = F16Values;
};

// Whether any of 8 floats of either side is NaN or infinite: x - x is 0 for a finite x and NaN
// otherwise, and a NaN stays NaN through the addition.
STB_DIFF_AVX2 inline bool anyNonFinite(__m256 a, __m256 b)
{
    const __m256 check = _mm256_add_ps(_mm256_sub_ps(a, a), _mm256_sub_ps(b, b));
    return _mm256_movemask_ps(_mm256_cmp_ps(check, check, _CMP_UNORD_Q)) != 0;
}

// The maximum's update in element order: each finite lane of `diff` (elements i to i + 3) above it.
STB_DIFF_AVX2 inline void raiseMaximum(__m256d diff, unsigned finiteLanes, std::uint64_t i, DiffSums &t)
{
    alignas(32) double d[4];
    _mm256_store_pd(d, diff);
    for (int k = 0; k < 4; ++k) {
        if ((finiteLanes >> k & 1) && d[k] > t.maxAbs)
            t.maxAbs = d[k], t.argmax = i + static_cast<std::uint64_t>(k);
    }
}

// The sums' kSumLanes lanes as named registers (arrays of them were kept on the stack), and
// the finite pairs' counters. (Eight lanes in two vectors per sum needed more than AVX2's 16
// registers, and with four the additions no longer wait on each other.)
struct Sums {
    __m256d sumAbs, sumSqDiff, sumSqA, sumSqB, dot;
};
struct Counters {
    __m256i different, outOfTolerance;
    std::uint64_t compared = 0;
};

// Four elements at i (lanes 0 to 3), whose values are ar and br, into `h`; returns their |a - b|
// (0 where masked). Masked: some pair is NaN or infinite; those add nothing to the sums (addPair
// counts them, one at a time) and the others are masked, and the maximum is raised here (the
// caller raises it otherwise, for two steps at once). A masked term is +0.0, which leaves a sum
// unchanged: starting at +0.0, a sum is never -0.0. Without Tolerance (atol and rtol 0) a finite
// pair is out of tolerance exactly when it differs: counted once, at the end.
template<typename Lanes, bool Masked, bool Tolerance>
[[gnu::always_inline]] STB_DIFF_AVX2 inline __m256d step(const std::byte *a, const std::byte *b,
    std::uint64_t i, __m256d ar, __m256d br, __m256d atols, __m256d rtols, double atol, double rtol, Sums &h,
    Counters &c, DiffSums &t)
{
    const __m256d absMask = _mm256_castsi256_pd(_mm256_set1_epi64x(0x7FFFFFFFFFFFFFFFll));
    const __m256d magB = _mm256_and_pd(br, absMask);
    const __m256d dr = _mm256_sub_pd(ar, br);
    __m256d diff = _mm256_and_pd(dr, absMask);
    __m256d finite = _mm256_castsi256_pd(_mm256_set1_epi64x(-1));
    unsigned finiteLanes = 0xF;
    if constexpr (Masked) {
        const __m256d largest = _mm256_set1_pd(1.7976931348623157e308);
        finite = _mm256_and_pd(_mm256_cmp_pd(_mm256_and_pd(ar, absMask), largest, _CMP_LE_OQ),
            _mm256_cmp_pd(magB, largest, _CMP_LE_OQ));
        finiteLanes = static_cast<unsigned>(_mm256_movemask_pd(finite));
        for (unsigned rest = ~finiteLanes & 0xF; rest; rest &= rest - 1) {
            const std::uint64_t k = i + static_cast<unsigned>(__builtin_ctz(rest));
            addPair(Lanes::Values::at(a, k), 0.0, Lanes::Values::at(b, k), 0.0, k, atol, rtol, t);
        }
        diff = _mm256_and_pd(diff, finite);
    }
    c.compared += static_cast<unsigned>(__builtin_popcount(finiteLanes));
    c.different = _mm256_sub_epi64(
        c.different, _mm256_castpd_si256(_mm256_cmp_pd(diff, _mm256_setzero_pd(), _CMP_NEQ_OQ)));
    if constexpr (Tolerance) {
        const __m256d bound = _mm256_add_pd(atols, _mm256_mul_pd(rtols, magB));
        __m256d out = _mm256_cmp_pd(diff, bound, _CMP_GT_OQ);
        if constexpr (Masked)
            out = _mm256_and_pd(out, finite);
        c.outOfTolerance = _mm256_sub_epi64(c.outOfTolerance, _mm256_castpd_si256(out));
    }
    if constexpr (Masked) {
        if (_mm256_movemask_pd(_mm256_cmp_pd(diff, _mm256_set1_pd(t.maxAbs), _CMP_GT_OQ)))
            raiseMaximum(diff, finiteLanes, i, t);
    }
    __m256d sqDiff = _mm256_mul_pd(dr, dr), sqA = _mm256_mul_pd(ar, ar), sqB = _mm256_mul_pd(br, br),
            dot = _mm256_mul_pd(ar, br);
    if constexpr (Masked) {
        sqDiff = _mm256_and_pd(sqDiff, finite), sqA = _mm256_and_pd(sqA, finite);
        sqB = _mm256_and_pd(sqB, finite), dot = _mm256_and_pd(dot, finite);
    }
    h.sumAbs = _mm256_add_pd(h.sumAbs, diff);
    h.sumSqDiff = _mm256_add_pd(h.sumSqDiff, sqDiff);
    h.sumSqA = _mm256_add_pd(h.sumSqA, sqA);
    h.sumSqB = _mm256_add_pd(h.sumSqB, sqB);
    h.dot = _mm256_add_pd(h.dot, dot);
    return diff;
}

// The sums into their lanes.
STB_DIFF_AVX2 inline void spill(const Sums &h, DiffSums *lanes)
{
    alignas(32) double x[5][4];
    _mm256_store_pd(x[0], h.sumAbs);
    _mm256_store_pd(x[1], h.sumSqDiff);
    _mm256_store_pd(x[2], h.sumSqA);
    _mm256_store_pd(x[3], h.sumSqB);
    _mm256_store_pd(x[4], h.dot);
    for (int k = 0; k < 4; ++k) {
        lanes[k].sumAbs = x[0][k], lanes[k].sumSqDiff = x[1][k], lanes[k].sumSqA = x[2][k];
        lanes[k].sumSqB = x[3][k], lanes[k].dot = x[4][k];
    }
}

// The counters into t (outOfTolerance: `different` without Tolerance).
template<bool Tolerance> STB_DIFF_AVX2 inline void addCounters(const Counters &c, DiffSums &t)
{
    alignas(32) std::uint64_t x[2][4];
    _mm256_store_si256(reinterpret_cast<__m256i *>(x[0]), c.different);
    _mm256_store_si256(reinterpret_cast<__m256i *>(x[1]), Tolerance ? c.outOfTolerance : c.different);
    t.different += (x[0][0] + x[0][1]) + (x[0][2] + x[0][3]);
    t.outOfTolerance += (x[1][0] + x[1][1]) + (x[1][2] + x[1][3]);
    t.compared += c.compared;
}

template<typename Lanes, bool Tolerance>
STB_DIFF_AVX2 void measure(const std::byte *a, const std::byte *b, std::uint64_t first, std::uint64_t count,
    double atol, double rtol, DiffSums &s)
{
    const __m256d atols = _mm256_set1_pd(atol), rtols = _mm256_set1_pd(rtol);
    const __m256d zero = _mm256_setzero_pd();
    Sums sums { zero, zero, zero, zero, zero };
    Counters c { _mm256_setzero_si256(), _mm256_setzero_si256() };
    DiffSums t; // the vector steps' maximum and their non-finite pairs' counters
    const std::uint64_t end = first + count;
    std::uint64_t i = first;
    // Eight elements a round, two steps into the same four lanes (so in the lanes' order): one
    // finiteness test on the 8 floats of each side, one test of the maximum.
    __m256d best = _mm256_set1_pd(t.maxAbs);
    for (; i + 2 * kSumLanes <= end; i += 2 * kSumLanes) {
        const __m256 fa = Lanes::load8(a, i), fb = Lanes::load8(b, i);
        const __m256d a0 = _mm256_cvtps_pd(_mm256_castps256_ps128(fa)),
                      a1 = _mm256_cvtps_pd(_mm256_extractf128_ps(fa, 1));
        const __m256d b0 = _mm256_cvtps_pd(_mm256_castps256_ps128(fb)),
                      b1 = _mm256_cvtps_pd(_mm256_extractf128_ps(fb, 1));
        if (!anyNonFinite(fa, fb)) [[likely]] {
            const __m256d d0
                = step<Lanes, false, Tolerance>(a, b, i, a0, b0, atols, rtols, atol, rtol, sums, c, t);
            const __m256d d1
                = step<Lanes, false, Tolerance>(a, b, i + 4, a1, b1, atols, rtols, atol, rtol, sums, c, t);
            if (_mm256_movemask_pd(_mm256_cmp_pd(_mm256_max_pd(d0, d1), best, _CMP_GT_OQ))) [[unlikely]] {
                raiseMaximum(d0, 0xF, i, t);
                raiseMaximum(d1, 0xF, i + 4, t);
                best = _mm256_set1_pd(t.maxAbs);
            }
        } else {
            step<Lanes, true, Tolerance>(a, b, i, a0, b0, atols, rtols, atol, rtol, sums, c, t);
            step<Lanes, true, Tolerance>(a, b, i + 4, a1, b1, atols, rtols, atol, rtol, sums, c, t);
            best = _mm256_set1_pd(t.maxAbs);
        }
    }
    if (i + kSumLanes <= end) { // four more
        const __m256d a0 = Lanes::load(a, i), b0 = Lanes::load(b, i);
        step<Lanes, true, Tolerance>(a, b, i, a0, b0, atols, rtols, atol, rtol, sums, c, t);
        i += kSumLanes;
    }
    // The vectors' lanes, then the last elements into theirs, folded as the scalar loop folds.
    DiffSums lanes[kSumLanes];
    spill(sums, lanes);
    addCounters<Tolerance>(c, t);
    addToLanes<typename Lanes::Values>(a, b, first, i, end, atol, rtol, lanes);
    foldLanes(lanes, s);
    s.merge(t);
}

} // namespace

void measureF32(const std::byte *a, const std::byte *b, std::uint64_t first, std::uint64_t count, double atol,
    double rtol, DiffSums &s)
{
    if (atol == 0 && rtol == 0)
        return measure<F32Lanes, false>(a, b, first, count, atol, rtol, s);
    measure<F32Lanes, true>(a, b, first, count, atol, rtol, s);
}

void measureBF16(const std::byte *a, const std::byte *b, std::uint64_t first, std::uint64_t count, double atol,
    double rtol, DiffSums &s)
{
    if (atol == 0 && rtol == 0)
        return measure<BF16Lanes, false>(a, b, first, count, atol, rtol, s);
    measure<BF16Lanes, true>(a, b, first, count, atol, rtol, s);
}

void measureF16(const std::byte *a, const std::byte *b, std::uint64_t first, std::uint64_t count, double atol,
    double rtol, DiffSums &s)
{
    if (atol == 0 && rtol == 0)
        return measure<F16Lanes, false>(a, b, first, count, atol, rtol, s);
    measure<F16Lanes, true>(a, b, first, count, atol, rtol, s);
}

#else

// Never called without AVX2 (kernels::avx2::enabled() is false there): the scalar loop.
void measureF32(const std::byte *a, const std::byte *b, std::uint64_t first, std::uint64_t count, double atol,
    double rtol, DiffSums &s)
{
    measureReal<F32Values>(a, b, first, count, atol, rtol, s);
}

void measureBF16(const std::byte *a, const std::byte *b, std::uint64_t first, std::uint64_t count, double atol,
    double rtol, DiffSums &s)
{
    measureReal<BF16Values>(a, b, first, count, atol, rtol, s);
}

void measureF16(const std::byte *a, const std::byte *b, std::uint64_t first, std::uint64_t count, double atol,
    double rtol, DiffSums &s)
{
    measureReal<F16Values>(a, b, first, count, atol, rtol, s);
}

#endif

} // namespace stb::diff::avx2
