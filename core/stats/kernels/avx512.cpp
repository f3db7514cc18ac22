#include "core/stats/kernels/avx512.h"

#include "core/format/dtype.h"
#include "core/stats/kernels/kernelchoice.h"

#include <algorithm>
#include <array>
#include <atomic>
#include <cstring>
#include <utility>

#if defined(__x86_64__) && defined(__GNUC__)
#include <immintrin.h>
#define STB_HAVE_AVX512 1
#define STB_AVX512 __attribute__((target("avx512f,avx512bw,avx512dq,avx512vl,popcnt")))
#endif

namespace stb::kernels::avx512 {

#ifdef STB_HAVE_AVX512

bool supported()
{
    static const bool has = __builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512bw")
        && __builtin_cpu_supports("avx512dq") && __builtin_cpu_supports("avx512vl")
        && __builtin_cpu_supports("popcnt"); // (vcvtph2ps on zmm is AVX-512F)
    return has;
}

namespace {

// Starts as STB_KERNELS asks (kernels/kernelchoice.h), read on first use; tests switch it.
std::atomic<bool> &enabledFlag()
{
    static std::atomic<bool> flag { avx512WantedAtStart(supported()) };
    return flag;
}

// Prefetch distance in bytes. The mapping is in 4 KiB pages and the hardware prefetchers stop at
// page boundaries, so without it every page starts with a wait for memory: prefetching a page
// ahead took the audit from 120 to 81 ms (bench_audit, 2 threads).
constexpr std::size_t kAhead = 4096;

STB_AVX512 inline void prefetchAhead(const void *p, int lines)
{
    for (int l = 0; l < lines; ++l)
        _mm_prefetch(static_cast<const char *>(p) + kAhead + 64 * l, _MM_HINT_T0);
}

// ---- pass 1 ----------------------------------------------------------------------------------

struct DoubleSums {
    __m512d sum[4], squares[4];
};

STB_AVX512 inline void addFloats(DoubleSums &s, int lane, __m512 x, __m512d shift)
{
    // Each float widens exactly to double; x - shift and its square are then summed in double.
    const __m512d lo = _mm512_sub_pd(_mm512_cvtps_pd(_mm512_castps512_ps256(x)), shift);
    const __m512d hi = _mm512_sub_pd(_mm512_cvtps_pd(_mm256_castpd_ps(_mm512_extractf64x4_pd(_mm512_castps_pd(x), 1))), shift);
    s.sum[lane] = _mm512_add_pd(s.sum[lane], lo);
    s.sum[lane + 1] = _mm512_add_pd(s.sum[lane + 1], hi);
    s.squares[lane] = _mm512_fmadd_pd(lo, lo, s.squares[lane]);
    s.squares[lane + 1] = _mm512_fmadd_pd(hi, hi, s.squares[lane + 1]);
}

STB_AVX512 inline void finishSums(const DoubleSums &s, Moments &out)
{
    const __m512d sum = _mm512_add_pd(_mm512_add_pd(s.sum[0], s.sum[1]), _mm512_add_pd(s.sum[2], s.sum[3]));
    const __m512d squares
        = _mm512_add_pd(_mm512_add_pd(s.squares[0], s.squares[1]), _mm512_add_pd(s.squares[2], s.squares[3]));
    out.sum = _mm512_reduce_add_pd(sum);
    out.squares = _mm512_reduce_add_pd(squares);
}

STB_AVX512 bool momentsF32(const std::byte *data, std::size_t n, double shift, Moments &out)
{
    const auto *p = reinterpret_cast<const float *>(data);
    const __m512d k = _mm512_set1_pd(shift);
    const __m512i magnitude = _mm512_set1_epi32(0x7FFFFFFF);
    DoubleSums s;
    for (int l = 0; l < 4; ++l)
        s.sum[l] = s.squares[l] = _mm512_setzero_pd();
    __m512 mn = _mm512_set1_ps(__builtin_inff()), mx = _mm512_set1_ps(-__builtin_inff());
    std::uint64_t zeros = 0;
    for (std::size_t i = 0; i < n; i += 32) {
        prefetchAhead(p + i, 2);
        const __m512 a = _mm512_loadu_ps(p + i), b = _mm512_loadu_ps(p + i + 16);
        mn = _mm512_min_ps(mn, _mm512_min_ps(a, b));
        mx = _mm512_max_ps(mx, _mm512_max_ps(a, b));
        const std::uint32_t z = _cvtmask16_u32(_mm512_testn_epi32_mask(_mm512_castps_si512(a), magnitude))
            | (_cvtmask16_u32(_mm512_testn_epi32_mask(_mm512_castps_si512(b), magnitude)) << 16);
        zeros += static_cast<std::uint64_t>(__builtin_popcount(z));
        addFloats(s, 0, a, k);
        addFloats(s, 2, b, k);
    }
    finishSums(s, out);
    // A NaN or an infinity makes the sum NaN or infinite (finite floats cannot overflow it).
    if (!__builtin_isfinite(out.sum))
        return false;
    const float lo = _mm512_reduce_min_ps(mn), hi = _mm512_reduce_max_ps(mx);
    out.min = lo;
    out.max = hi;
    // Keys that bound every value: a zero extreme may stand for -0 (key -1) or +0 (key 0).
    std::uint32_t bits;
    std::memcpy(&bits, &lo, sizeof bits);
    out.minKey = lo == 0 ? -1 : orderKey32(bits);
    std::memcpy(&bits, &hi, sizeof bits);
    out.maxKey = hi == 0 ? 0 : orderKey32(bits);
    out.zeros = zeros;
    return true;
}

// BF16 or F16 values -> order keys (16 bits) and floats.
template<Format format> STB_AVX512 inline __m512i keys16(__m512i x)
{
    return _mm512_xor_si512(x, _mm512_and_si512(_mm512_srai_epi16(x, 15), _mm512_set1_epi16(0x7FFF)));
}

template<Format format> STB_AVX512 inline void floats16(__m512i x, __m512 &a, __m512 &b)
{
    if constexpr (format == Format::BF16) {
        // A BF16 is the top half of a float: interleaving zeros below gives the floats (in an
        // order the sums do not care about).
        a = _mm512_castsi512_ps(_mm512_unpacklo_epi16(_mm512_setzero_si512(), x));
        b = _mm512_castsi512_ps(_mm512_unpackhi_epi16(_mm512_setzero_si512(), x));
    } else {
        a = _mm512_cvtph_ps(_mm512_castsi512_si256(x));
        b = _mm512_cvtph_ps(_mm512_extracti64x4_epi64(x, 1));
    }
}

inline double valueOfKey16(Format format, std::int32_t key)
{
    return decodeCode(format == Format::BF16 ? DType::BF16 : DType::F16, bitsOfKey16(key));
}

template<Format format> STB_AVX512 bool moments16(const std::byte *data, std::size_t n, double shift, Moments &out)
{
    const auto *p = reinterpret_cast<const std::uint16_t *>(data);
    const __m512d k = _mm512_set1_pd(shift);
    const __m512i magnitude = _mm512_set1_epi16(0x7FFF);
    DoubleSums s;
    for (int l = 0; l < 4; ++l)
        s.sum[l] = s.squares[l] = _mm512_setzero_pd();
    __m512i mn = _mm512_set1_epi16(0x7FFF), mx = _mm512_set1_epi16(-0x8000);
    std::uint64_t zeros = 0;
    for (std::size_t i = 0; i < n; i += 64) {
        prefetchAhead(p + i, 2);
        const __m512i x = _mm512_loadu_si512(p + i), y = _mm512_loadu_si512(p + i + 32);
        const __m512i kx = keys16<format>(x), ky = keys16<format>(y);
        mn = _mm512_min_epi16(mn, _mm512_min_epi16(kx, ky));
        mx = _mm512_max_epi16(mx, _mm512_max_epi16(kx, ky));
        zeros += static_cast<std::uint64_t>(__builtin_popcountll(_cvtmask64_u64(_mm512_kunpackd(
            _mm512_testn_epi16_mask(y, magnitude), _mm512_testn_epi16_mask(x, magnitude)))));
        __m512 a, b;
        floats16<format>(x, a, b);
        addFloats(s, 0, a, k);
        addFloats(s, 2, b, k);
        floats16<format>(y, a, b);
        addFloats(s, 0, a, k);
        addFloats(s, 2, b, k);
    }
    // The extremes as keys decide finiteness: NaN and infinities are the outermost keys.
    alignas(64) std::int16_t lo[32], hi[32];
    _mm512_store_si512(lo, mn);
    _mm512_store_si512(hi, mx);
    const std::int32_t minKey = *std::min_element(lo, lo + 32), maxKey = *std::max_element(hi, hi + 32);
    const std::int32_t maxFinite = format == Format::BF16 ? 0x7F7F : 0x7BFF;
    if (maxKey > maxFinite || minKey < -1 - maxFinite)
        return false;
    finishSums(s, out);
    out.min = valueOfKey16(format, minKey);
    out.max = valueOfKey16(format, maxKey);
    out.minKey = minKey;
    out.maxKey = maxKey;
    out.zeros = zeros;
    return true;
}

// ---- pass 2 ----------------------------------------------------------------------------------

// One compare per threshold and 16 or 32 values, a popcount per 64: counters stay in general
// registers and the vector units only compare.
template<unsigned Count> STB_AVX512 void countF32(const std::byte *data, std::size_t n, const std::int32_t *keys, std::uint64_t *counts)
{
    const auto *p = reinterpret_cast<const float *>(data);
    __m512 at[Count];
    std::uint64_t c[Count] = {};
    for (unsigned t = 0; t < Count; ++t) {
        const std::uint32_t bits = bitsOfKey32(keys[t]);
        float f;
        std::memcpy(&f, &bits, sizeof f);
        at[t] = _mm512_set1_ps(f);
    }
    for (std::size_t i = 0; i < n; i += 64) {
        prefetchAhead(p + i, 4);
        const __m512 a = _mm512_loadu_ps(p + i), b = _mm512_loadu_ps(p + i + 16);
        const __m512 d = _mm512_loadu_ps(p + i + 32), e = _mm512_loadu_ps(p + i + 48);
        for (unsigned t = 0; t < Count; ++t) {
            const std::uint64_t m = std::uint64_t(_cvtmask16_u32(_mm512_cmp_ps_mask(a, at[t], _CMP_GE_OQ)))
                | (std::uint64_t(_cvtmask16_u32(_mm512_cmp_ps_mask(b, at[t], _CMP_GE_OQ))) << 16)
                | (std::uint64_t(_cvtmask16_u32(_mm512_cmp_ps_mask(d, at[t], _CMP_GE_OQ))) << 32)
                | (std::uint64_t(_cvtmask16_u32(_mm512_cmp_ps_mask(e, at[t], _CMP_GE_OQ))) << 48);
            c[t] += static_cast<std::uint64_t>(__builtin_popcountll(m));
        }
    }
    for (unsigned t = 0; t < Count; ++t)
        counts[t] += c[t];
}

template<Format format, unsigned Count>
STB_AVX512 void count16(const std::byte *data, std::size_t n, const std::int32_t *keys, std::uint64_t *counts)
{
    const auto *p = reinterpret_cast<const std::uint16_t *>(data);
    __m512i at[Count];
    std::uint64_t c[Count] = {};
    for (unsigned t = 0; t < Count; ++t)
        at[t] = _mm512_set1_epi16(static_cast<std::int16_t>(keys[t]));
    for (std::size_t i = 0; i < n; i += 64) {
        prefetchAhead(p + i, 2);
        const __m512i x = keys16<format>(_mm512_loadu_si512(p + i));
        const __m512i y = keys16<format>(_mm512_loadu_si512(p + i + 32));
        for (unsigned t = 0; t < Count; ++t) {
            const __mmask64 m = _mm512_kunpackd(_mm512_cmpge_epi16_mask(y, at[t]), _mm512_cmpge_epi16_mask(x, at[t]));
            c[t] += static_cast<std::uint64_t>(__builtin_popcountll(_cvtmask64_u64(m)));
        }
    }
    for (unsigned t = 0; t < Count; ++t)
        counts[t] += c[t];
}

STB_AVX512 std::size_t binIndicesF32(const float *p, std::size_t n, float lo, float hi, float scale, unsigned bins,
    std::uint32_t *index, std::uint32_t *slow)
{
    const __m512 vlo = _mm512_set1_ps(lo), vhi = _mm512_set1_ps(hi), vscale = _mm512_set1_ps(scale);
    const __m512 vbins = _mm512_set1_ps(static_cast<float>(bins));
    const __m512 nearLow = _mm512_set1_ps(1.0f / 256), nearHigh = _mm512_set1_ps(1.0f - 1.0f / 256);
    const __m512i top = _mm512_set1_epi32(static_cast<int>(bins) - 1), trash = _mm512_set1_epi32(static_cast<int>(bins));
    std::size_t slowCount = 0;
    for (std::size_t i = 0; i < n; i += 16) {
        prefetchAhead(p + i, 1);
        const __m512 x = _mm512_loadu_ps(p + i);
        const __m512 t = _mm512_mul_ps(_mm512_sub_ps(x, vlo), vscale);
        const __m512 fraction = _mm512_sub_ps(t, _mm512_roundscale_ps(t, _MM_FROUND_TO_NEG_INF | _MM_FROUND_NO_EXC));
        // In range (NaN fails), t below bins (an overflow fails), not near an edge.
        const __mmask16 ok = _mm512_cmp_ps_mask(x, vlo, _CMP_GE_OQ) & _mm512_cmp_ps_mask(x, vhi, _CMP_LE_OQ)
            & _mm512_cmp_ps_mask(t, vbins, _CMP_LT_OQ) & _mm512_cmp_ps_mask(fraction, nearLow, _CMP_GE_OQ)
            & _mm512_cmp_ps_mask(fraction, nearHigh, _CMP_LE_OQ);
        const __m512i e = _mm512_max_epi32(_mm512_min_epi32(_mm512_cvttps_epi32(t), top), _mm512_setzero_si512());
        _mm512_storeu_si512(index + i, _mm512_mask_blend_epi32(ok, trash, e));
        for (std::uint32_t bits = ~_cvtmask16_u32(ok) & 0xFFFF; bits; bits &= bits - 1)
            slow[slowCount++] = static_cast<std::uint32_t>(i + static_cast<unsigned>(__builtin_ctz(bits)));
    }
    return slowCount;
}

// The counters and thresholds live in registers, so their number is a template parameter:
// one instance per count, picked from a table.
using CountFn = void (*)(const std::byte *, std::size_t, const std::int32_t *, std::uint64_t *);

template<Format format, unsigned... I> constexpr std::array<CountFn, sizeof...(I)> countTable(std::integer_sequence<unsigned, I...>)
{
    if constexpr (format == Format::F32)
        return { &countF32<I + 1>... };
    else
        return { &count16<format, I + 1>... };
}

template<Format format> CountFn countFunction(unsigned count)
{
    static constexpr auto table = countTable<format>(std::make_integer_sequence<unsigned, kMaxKeys>());
    return table[count - 1];
}

} // namespace

bool enabled()
{
    return supported() && enabledFlag().load(std::memory_order_relaxed);
}

void setEnabled(bool on)
{
    enabledFlag() = on;
}

bool moments(Format format, const std::byte *data, std::size_t n, double shift, Moments &out)
{
    switch (format) {
    case Format::F32:
        return momentsF32(data, n, shift, out);
    case Format::BF16:
        return moments16<Format::BF16>(data, n, shift, out);
    case Format::F16:
        return moments16<Format::F16>(data, n, shift, out);
    }
    return false;
}

void countAtOrAbove(Format format, const std::byte *data, std::size_t n, const std::int32_t *keys, unsigned count,
    std::uint64_t *counts)
{
    if (count == 0)
        return;
    switch (format) {
    case Format::F32:
        return countFunction<Format::F32>(count)(data, n, keys, counts);
    case Format::BF16:
        return countFunction<Format::BF16>(count)(data, n, keys, counts);
    case Format::F16:
        return countFunction<Format::F16>(count)(data, n, keys, counts);
    }
}

std::size_t binIndices(const std::byte *data, std::size_t n, float lo, float hi, float scale, unsigned bins,
    std::uint32_t *index, std::uint32_t *slow)
{
    return binIndicesF32(reinterpret_cast<const float *>(data), n, lo, hi, scale, bins, index, slow);
}

#else // not x86-64 with GCC or Clang: the portable kernels only

bool supported() { return false; }
bool enabled()
{
    static const bool checked = avx512WantedAtStart(false); // prints STB_KERNELS' message, if any
    return checked;
}
void setEnabled(bool) { }
bool moments(Format, const std::byte *, std::size_t, double, Moments &) { return false; }
void countAtOrAbove(Format, const std::byte *, std::size_t, const std::int32_t *, unsigned, std::uint64_t *) { }
std::size_t binIndices(const std::byte *, std::size_t, float, float, float, unsigned, std::uint32_t *, std::uint32_t *)
{
    return 0;
}

#endif

} // namespace stb::kernels::avx512
