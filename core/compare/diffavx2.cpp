// The AVX2 loop of diffavx2.h: eight elements a step, the sums' eight lanes (diffsums.h) in two
// vectors per sum, the counters in vectors, the maximum's in-order update only where a value
// passes it. No FMA: the target is plain "avx2", so each product is rounded before its addition,
// as in the scalar loop.
#include "core/compare/diffavx2.h"

#if defined(__x86_64__) && defined(__GNUC__)
#include <immintrin.h>
#define STB_DIFF_AVX2 __attribute__((target("avx2")))
#endif

namespace stb::diff::avx2 {

#ifdef STB_DIFF_AVX2

namespace {

// Elements [i, i + 4) as doubles, exactly as F32Values / BF16Values give them.
struct F32Lanes {
    STB_DIFF_AVX2 static __m256d load(const std::byte *p, std::uint64_t i)
    {
        return _mm256_cvtps_pd(_mm_loadu_ps(reinterpret_cast<const float *>(p + 4 * i)));
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
    using Values = BF16Values;
};

STB_DIFF_AVX2 inline unsigned lanesSet(__m256d mask)
{
    return static_cast<unsigned>(__builtin_popcount(static_cast<unsigned>(_mm256_movemask_pd(mask))));
}

STB_DIFF_AVX2 inline std::uint64_t laneTotal(__m256i c)
{
    alignas(32) std::uint64_t x[4];
    _mm256_store_si256(reinterpret_cast<__m256i *>(x), c);
    return (x[0] + x[1]) + (x[2] + x[3]);
}

// The sums' lanes 0-3 (half 0) and 4-7 (half 1) of kSumLanes, the counters of the finite pairs
// and the maximum in element order.
struct VectorSums {
    __m256d sums[5][2]; // |diff|, diff², a², b², a·b
    __m256i different[2], outOfTolerance[2];
    std::uint64_t compared = 0;
};
constexpr double DiffSums::*kSumFields[5]
    = { &DiffSums::sumAbs, &DiffSums::sumSqDiff, &DiffSums::sumSqA, &DiffSums::sumSqB, &DiffSums::dot };

// Four elements at i into half h. Masked: some pair is NaN or infinite; those add nothing to the
// sums (addPair counts them, one at a time) and the others are masked. A masked term is +0.0,
// which leaves a sum unchanged: starting at +0.0, a sum is never -0.0.
template<typename Lanes, bool Masked>
STB_DIFF_AVX2 inline void step(const std::byte *a, const std::byte *b, std::uint64_t i, int h, __m256d atols,
    __m256d rtols, double atol, double rtol, VectorSums &v, DiffSums &t)
{
    const __m256d absMask = _mm256_castsi256_pd(_mm256_set1_epi64x(0x7FFFFFFFFFFFFFFFll));
    const __m256d ar = Lanes::load(a, i), br = Lanes::load(b, i);
    const __m256d magB = _mm256_and_pd(br, absMask);
    const __m256d dr = _mm256_sub_pd(ar, br);
    __m256d diff = _mm256_and_pd(dr, absMask);
    __m256d finite = _mm256_castsi256_pd(_mm256_set1_epi64x(-1));
    if constexpr (Masked) {
        const __m256d largest = _mm256_set1_pd(1.7976931348623157e308);
        finite = _mm256_and_pd(_mm256_cmp_pd(_mm256_and_pd(ar, absMask), largest, _CMP_LE_OQ),
            _mm256_cmp_pd(magB, largest, _CMP_LE_OQ));
        const unsigned lanes = static_cast<unsigned>(_mm256_movemask_pd(finite));
        for (unsigned rest = ~lanes & 0xF; rest; rest &= rest - 1) {
            const std::uint64_t k = i + static_cast<unsigned>(__builtin_ctz(rest));
            addPair(Lanes::Values::at(a, k), 0.0, Lanes::Values::at(b, k), 0.0, k, atol, rtol, t);
        }
        v.compared += static_cast<unsigned>(__builtin_popcount(lanes));
        diff = _mm256_and_pd(diff, finite);
    } else {
        v.compared += 4;
    }
    const __m256d zero = _mm256_setzero_pd();
    v.different[h]
        = _mm256_sub_epi64(v.different[h], _mm256_castpd_si256(_mm256_cmp_pd(diff, zero, _CMP_NEQ_OQ)));
    const __m256d bound = _mm256_add_pd(atols, _mm256_mul_pd(rtols, magB));
    v.outOfTolerance[h] = _mm256_sub_epi64(v.outOfTolerance[h],
        _mm256_castpd_si256(_mm256_and_pd(_mm256_cmp_pd(diff, bound, _CMP_GT_OQ), finite)));
    if (_mm256_movemask_pd(
            _mm256_and_pd(_mm256_cmp_pd(diff, _mm256_set1_pd(t.maxAbs), _CMP_GT_OQ), finite))) {
        alignas(32) double d[4];
        _mm256_store_pd(d, diff);
        const unsigned lanes = static_cast<unsigned>(_mm256_movemask_pd(finite));
        for (int k = 0; k < 4; ++k) {
            if ((lanes >> k & 1) && d[k] > t.maxAbs)
                t.maxAbs = d[k], t.argmax = i + static_cast<std::uint64_t>(k);
        }
    }
    const __m256d terms[5] = { diff, _mm256_mul_pd(dr, dr), _mm256_mul_pd(ar, ar), _mm256_mul_pd(br, br),
        _mm256_mul_pd(ar, br) };
    for (int f = 0; f < 5; ++f)
        v.sums[f][h] = _mm256_add_pd(v.sums[f][h], Masked ? _mm256_and_pd(terms[f], finite) : terms[f]);
}

template <typename Lanes>
STB_DIFF_AVX2 void measure(const std::byte *a, const std::byte *b, std::uint64_t first, std::uint64_t count,
    double atol, double rtol, DiffSums &s)
{
    const __m256d atols = _mm256_set1_pd(atol), rtols = _mm256_set1_pd(rtol);
    VectorSums v;
    for (int h = 0; h < 2; ++h) {
        for (auto &sum : v.sums)
            sum[h] = _mm256_setzero_pd();
        v.different[h] = v.outOfTolerance[h] = _mm256_setzero_si256();
    }
    DiffSums t; // the vector steps' maximum and their non-finite pairs' counters
    const std::uint64_t end = first + count;
    std::uint64_t i = first;
    for (; i + kSumLanes <= end; i += kSumLanes) {
        // Both halves finite (the usual case) without the masks: x - x is 0 for a finite x and
        // NaN for NaN and ±Inf, and a NaN stays NaN through the additions.
        const __m256d a0 = Lanes::load(a, i), b0 = Lanes::load(b, i);
        const __m256d a1 = Lanes::load(a, i + 4), b1 = Lanes::load(b, i + 4);
        const __m256d check = _mm256_add_pd(_mm256_add_pd(_mm256_sub_pd(a0, a0), _mm256_sub_pd(b0, b0)),
            _mm256_add_pd(_mm256_sub_pd(a1, a1), _mm256_sub_pd(b1, b1)));
        if (!_mm256_movemask_pd(_mm256_cmp_pd(check, check, _CMP_UNORD_Q))) [[likely]] {
            step<Lanes, false>(a, b, i, 0, atols, rtols, atol, rtol, v, t);
            step<Lanes, false>(a, b, i + 4, 1, atols, rtols, atol, rtol, v, t);
        } else {
            step<Lanes, true>(a, b, i, 0, atols, rtols, atol, rtol, v, t);
            step<Lanes, true>(a, b, i + 4, 1, atols, rtols, atol, rtol, v, t);
        }
    }
    // The vectors' lanes, then the last elements into theirs, folded as the scalar loop folds.
    DiffSums lanes[kSumLanes];
    alignas(32) double x[4];
    for (int h = 0; h < 2; ++h) {
        for (int f = 0; f < 5; ++f) {
            _mm256_store_pd(x, v.sums[f][h]);
            for (int k = 0; k < 4; ++k)
                lanes[4 * h + k].*kSumFields[f] = x[k];
        }
        t.different += laneTotal(v.different[h]);
        t.outOfTolerance += laneTotal(v.outOfTolerance[h]);
    }
    t.compared += v.compared;
    addToLanes<typename Lanes::Values>(a, b, first, i, end, atol, rtol, lanes);
    foldLanes(lanes, s);
    s.merge(t);
}

} // namespace

void measureF32(const std::byte *a, const std::byte *b, std::uint64_t first, std::uint64_t count, double atol,
    double rtol, DiffSums &s)
{
    measure<F32Lanes>(a, b, first, count, atol, rtol, s);
}

void measureBF16(const std::byte *a, const std::byte *b, std::uint64_t first, std::uint64_t count, double atol,
    double rtol, DiffSums &s)
{
    measure<BF16Lanes>(a, b, first, count, atol, rtol, s);
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

#endif

} // namespace stb::diff::avx2
