// The value views' kernels: the scalar definitions, the portable family (8 floats at a time in
// GCC vectors) and the choice between it and the AVX-512 family. See valuescan.h.
#include "core/stats/kernels/valuescan.h"

#include "core/stats/kernels/avx512.h"
#include "core/stats/kernels/prefetch.h"

#include <algorithm>
#include <cmath>
#include <cstring>

namespace stb::kernels {

namespace {

typedef float F8 __attribute__((vector_size(32)));
typedef double D4 __attribute__((vector_size(32)));
typedef std::int32_t I8 __attribute__((vector_size(32)));
typedef std::uint32_t U8 __attribute__((vector_size(32)));
typedef std::uint16_t H8 __attribute__((vector_size(16)));

#if defined(__x86_64__) && defined(__GNUC__)
#define STB_VECTOR_CLONES __attribute__((target_clones("avx2", "avx", "default")))
#else
#define STB_VECTOR_CLONES
#endif
// Helpers inlined into each clone; vectors go by reference (clang refuses a 32-byte vector
// argument by value where AVX is off, as it changes the ABI).
#define STB_LANES inline __attribute__((always_inline))

constexpr std::int32_t kExponent = 0x7F800000; // a float is finite when these bits are not all set

// 8 contiguous values at p, each widened exactly to float. F16 by the bits: the exponent is
// rebased, subnormals renormalised by a float subtraction and Inf/NaN given the float's top
// exponent (exact for every code; tst_valuessummary checks all 65,536).
template<DType D> STB_LANES void load8(const std::byte *p, F8 &x)
{
    if constexpr (D == DType::F32) {
        std::memcpy(&x, p, sizeof x);
    } else {
        H8 h;
        std::memcpy(&h, p, sizeof h);
        const I8 w = __builtin_convertvector(h, I8);
        if constexpr (D == DType::BF16) {
            x = reinterpret_cast<F8>(w << 16);
        } else {
            I8 o = (w & 0x7FFF) << 13;
            const I8 exponent = o & (0x7C00 << 13);
            o += (127 - 15) << 23;
            o += (exponent == (0x7C00 << 13)) & ((128 - 16) << 23); // Inf/NaN: the top exponent
            const I8 subnormal = exponent == 0;
            // Only subnormal lanes keep this; in Inf/NaN lanes the addition passes 2^31, so it is
            // done unsigned (signed overflow is undefined: UBSan stopped tst_valuessummary).
            const F8 renormalised
                = reinterpret_cast<F8>(reinterpret_cast<U8>(o) + (1u << 23)) - 1.0f / 16384.0f;
            o = subnormal ? reinterpret_cast<I8>(renormalised) : o;
            x = reinterpret_cast<F8>(o | ((w & 0x8000) << 16));
        }
    }
}

template<DType D> STB_LANES bool finiteRangeLanes(const std::byte *p, std::size_t n, float &lo, float &hi)
{
    constexpr std::size_t size = D == DType::F32 ? 4 : 2;
    F8 mn = F8 {} + INFINITY, mx = F8 {} - INFINITY;
    I8 special = {};
    std::size_t i = 0;
    for (; i + 8 <= n; i += 8) {
        if (i % 64 == 0)
            prefetchAhead(p + size * i, 64 * size);
        F8 x;
        load8<D>(p + size * i, x);
        special |= (reinterpret_cast<I8>(x) & kExponent) == kExponent;
        mn = x < mn ? x : mn;
        mx = x > mx ? x : mx;
    }
    bool finite = finiteRangeScalar(D, p + size * i, n - i, lo, hi);
    for (int l = 0; l < 8; ++l) {
        finite &= special[l] == 0;
        lo = mn[l] < lo ? mn[l] : lo;
        hi = mx[l] > hi ? mx[l] : hi;
    }
    return finite;
}

template<DType D>
STB_LANES bool addRowsLanes(const std::byte *p, std::size_t rowBytes, std::size_t rows, std::size_t n, float *lo,
    float *hi, double *sum, const std::byte *next)
{
    constexpr std::size_t size = D == DType::F32 ? 4 : 2;
    I8 special = {};
    BlockPrefetch prefetch(next, rowBytes, size * n, kRowBlock, n / 8);
    std::size_t k = 0;
    for (; k + 8 <= n; k += 8) {
        F8 l, h;
        D4 s0, s1;
        std::memcpy(&l, lo + k, sizeof l);
        std::memcpy(&h, hi + k, sizeof h);
        std::memcpy(&s0, sum + k, sizeof s0);
        std::memcpy(&s1, sum + k + 4, sizeof s1);
        const std::byte *row = p + size * k;
        prefetch.step();
        for (std::size_t r = 0; r < rows; ++r, row += rowBytes) {
            F8 x;
            load8<D>(row, x);
            const I8 finite = (reinterpret_cast<I8>(x) & kExponent) != kExponent;
            special |= ~finite;
            l = (finite & (x < l)) ? x : l;
            h = (finite & (x > h)) ? x : h;
            // A value left out adds +0, which changes no sum (a sum from +0 is never -0).
            const F8 kept = reinterpret_cast<F8>(reinterpret_cast<I8>(x) & finite);
            s0 += __builtin_convertvector(__builtin_shufflevector(kept, kept, 0, 1, 2, 3), D4);
            s1 += __builtin_convertvector(__builtin_shufflevector(kept, kept, 4, 5, 6, 7), D4);
        }
        std::memcpy(lo + k, &l, sizeof l);
        std::memcpy(hi + k, &h, sizeof h);
        std::memcpy(sum + k, &s0, sizeof s0);
        std::memcpy(sum + k + 4, &s1, sizeof s1);
    }
    bool finite = addRowsToColumnsScalar(D, p + size * k, rowBytes, rows, n - k, lo + k, hi + k, sum + k);
    for (int l = 0; l < 8; ++l)
        finite &= special[l] == 0;
    return finite;
}

STB_VECTOR_CLONES
bool finiteRangePortable(DType dtype, const std::byte *p, std::size_t n, float &lo, float &hi)
{
    switch (dtype) {
    case DType::F32:
        return finiteRangeLanes<DType::F32>(p, n, lo, hi);
    case DType::BF16:
        return finiteRangeLanes<DType::BF16>(p, n, lo, hi);
    default:
        return finiteRangeLanes<DType::F16>(p, n, lo, hi);
    }
}

STB_VECTOR_CLONES
bool addRowsPortable(DType dtype, const std::byte *p, std::size_t rowBytes, std::size_t rows, std::size_t n,
    float *lo, float *hi, double *sum, const std::byte *next)
{
    switch (dtype) {
    case DType::F32:
        return addRowsLanes<DType::F32>(p, rowBytes, rows, n, lo, hi, sum, next);
    case DType::BF16:
        return addRowsLanes<DType::BF16>(p, rowBytes, rows, n, lo, hi, sum, next);
    default:
        return addRowsLanes<DType::F16>(p, rowBytes, rows, n, lo, hi, sum, next);
    }
}

} // namespace

bool scansFloats(DType dtype)
{
    return dtype == DType::F32 || dtype == DType::BF16 || dtype == DType::F16;
}

float floatAt(DType dtype, const std::byte *p, std::size_t i)
{
    if (dtype == DType::F32) {
        float f;
        std::memcpy(&f, p + 4 * i, 4);
        return f;
    }
    std::uint16_t code;
    std::memcpy(&code, p + 2 * i, 2);
    if (dtype == DType::BF16) {
        const std::uint32_t bits = std::uint32_t(code) << 16;
        float f;
        std::memcpy(&f, &bits, 4);
        return f;
    }
    return static_cast<float>(decodeCode(dtype, code));
}

bool finiteRangeScalar(DType dtype, const std::byte *p, std::size_t n, float &lo, float &hi)
{
    lo = INFINITY, hi = -INFINITY;
    bool finite = true;
    for (std::size_t i = 0; i < n; ++i) {
        const float x = floatAt(dtype, p, i);
        finite &= std::isfinite(x);
        lo = x < lo ? x : lo;
        hi = x > hi ? x : hi;
    }
    return finite;
}

bool addRowToColumnsScalar(DType dtype, const std::byte *p, std::size_t n, float *lo, float *hi, double *sum)
{
    bool finite = true;
    for (std::size_t k = 0; k < n; ++k) {
        const float x = floatAt(dtype, p, k);
        if (!std::isfinite(x)) {
            finite = false;
            continue;
        }
        lo[k] = x < lo[k] ? x : lo[k];
        hi[k] = x > hi[k] ? x : hi[k];
        sum[k] += double(x);
    }
    return finite;
}

bool addRowsToColumnsScalar(DType dtype, const std::byte *p, std::size_t rowBytes, std::size_t rows, std::size_t n,
    float *lo, float *hi, double *sum)
{
    bool finite = true;
    for (std::size_t r = 0; r < rows; ++r)
        finite &= addRowToColumnsScalar(dtype, p + r * rowBytes, n, lo, hi, sum);
    return finite;
}

bool finiteRange(DType dtype, const std::byte *p, std::size_t n, float &lo, float &hi)
{
    if (avx512::enabled())
        return avx512::finiteRange(dtype, p, n, lo, hi);
    return finiteRangePortable(dtype, p, n, lo, hi);
}

void startColumns(std::size_t n, float *lo, float *hi, double *sum)
{
    std::fill(lo, lo + n, INFINITY);
    std::fill(hi, hi + n, -INFINITY);
    std::fill(sum, sum + n, 0.0);
}

bool addRowsToColumns(DType dtype, const std::byte *p, std::size_t rowBytes, std::size_t rows, std::size_t n,
    float *lo, float *hi, double *sum, bool fresh)
{
    if (avx512::enabled())
        return avx512::addRowsToColumns(dtype, p, rowBytes, rows, n, lo, hi, sum, fresh);
    if (avx2::enabled())
        return avx2::addRowsToColumns(dtype, p, rowBytes, rows, n, lo, hi, sum, fresh);
    if (fresh)
        startColumns(n, lo, hi, sum);
    bool finite = true;
    for (std::size_t r = 0; r < rows; r += kRowBlock) {
        const std::size_t block = std::min(kRowBlock, rows - r);
        const std::byte *q = p + r * rowBytes;
        // The next block's rows, asked for while this one is read: each row is its own stream, and
        // a row's bytes for one tile of columns are too few for the hardware prefetchers to start.
        const std::byte *next = r + block < rows ? q + block * rowBytes : nullptr;
        finite &= addRowsPortable(dtype, q, rowBytes, block, n, lo, hi, sum, next);
    }
    return finite;
}

} // namespace stb::kernels
