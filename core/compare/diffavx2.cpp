// The AVX2 loop of diffavx2.h. perf had the scalar loop at about 50 instructions per element
// (two conversions, a finiteness test per side, three counters, the maximum and five sums, each
// sum stored and reloaded): throughput-bound, not bound by the sums' additions. Here everything
// but the sums and the maximum's in-order update is done for four elements at once. No FMA: the
// target is plain "avx2", so each product is rounded before its addition, as in the generic build.
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

template <typename Lanes>
STB_DIFF_AVX2 void measure(const std::byte *a, const std::byte *b, std::uint64_t first, std::uint64_t count,
    double atol, double rtol, DiffSums &s)
{
    const __m256d absMask = _mm256_castsi256_pd(_mm256_set1_epi64x(0x7FFFFFFFFFFFFFFFll));
    const __m256d largest = _mm256_set1_pd(1.7976931348623157e308);
    const __m256d zero = _mm256_setzero_pd(), atols = _mm256_set1_pd(atol), rtols = _mm256_set1_pd(rtol);
    // Local copies, so the compiler keeps them in registers (the scalar loop stored every sum
    // back through the reference each element).
    DiffSums t = s;
    alignas(32) double terms[5][4];
    const std::uint64_t end = first + count;
    std::uint64_t i = first;
    for (; i + 4 <= end; i += 4) {
        const __m256d ar = Lanes::load(a, i), br = Lanes::load(b, i);
        const __m256d magA = _mm256_and_pd(ar, absMask), magB = _mm256_and_pd(br, absMask);
        const __m256d finite
            = _mm256_and_pd(_mm256_cmp_pd(magA, largest, _CMP_LE_OQ), _mm256_cmp_pd(magB, largest, _CMP_LE_OQ));
        if (_mm256_movemask_pd(finite) != 0xF) [[unlikely]] {
            for (std::uint64_t k = i; k < i + 4; ++k)
                addPair(Lanes::Values::at(a, k), 0.0, Lanes::Values::at(b, k), 0.0, k, atol, rtol, t);
            continue;
        }
        // As addPair with zero imaginary parts: diff = |dr|, magB = |br|, and each square or
        // product plus the imaginary parts' +0.0.
        const __m256d dr = _mm256_sub_pd(ar, br);
        const __m256d diff = _mm256_and_pd(dr, absMask);
        t.compared += 4;
        t.different += lanesSet(_mm256_cmp_pd(diff, zero, _CMP_NEQ_UQ));
        const __m256d bound = _mm256_add_pd(atols, _mm256_mul_pd(rtols, magB));
        t.outOfTolerance += lanesSet(_mm256_cmp_pd(diff, bound, _CMP_GT_OQ));
        _mm256_store_pd(terms[0], diff);
        if (_mm256_movemask_pd(_mm256_cmp_pd(diff, _mm256_set1_pd(t.maxAbs), _CMP_GT_OQ))) {
            for (int k = 0; k < 4; ++k) {
                if (terms[0][k] > t.maxAbs)
                    t.maxAbs = terms[0][k], t.argmax = i + static_cast<std::uint64_t>(k);
            }
        }
        _mm256_store_pd(terms[1], _mm256_add_pd(_mm256_mul_pd(dr, dr), zero));
        _mm256_store_pd(terms[2], _mm256_add_pd(_mm256_mul_pd(ar, ar), zero));
        _mm256_store_pd(terms[3], _mm256_add_pd(_mm256_mul_pd(br, br), zero));
        _mm256_store_pd(terms[4], _mm256_add_pd(_mm256_mul_pd(ar, br), zero));
        for (int k = 0; k < 4; ++k) {
            t.sumAbs += terms[0][k];
            t.sumSqDiff += terms[1][k];
            t.sumSqA += terms[2][k];
            t.sumSqB += terms[3][k];
            t.dot += terms[4][k];
        }
    }
    for (; i < end; ++i)
        addPair(Lanes::Values::at(a, i), 0.0, Lanes::Values::at(b, i), 0.0, i, atol, rtol, t);
    s = t;
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
    for (std::uint64_t i = first; i < first + count; ++i)
        addPair(F32Values::at(a, i), 0.0, F32Values::at(b, i), 0.0, i, atol, rtol, s);
}

void measureBF16(const std::byte *a, const std::byte *b, std::uint64_t first, std::uint64_t count, double atol,
    double rtol, DiffSums &s)
{
    for (std::uint64_t i = first; i < first + count; ++i)
        addPair(BF16Values::at(a, i), 0.0, BF16Values::at(b, i), 0.0, i, atol, rtol, s);
}

#endif

} // namespace stb::diff::avx2
