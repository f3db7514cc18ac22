#pragma once

// The scalar kernels: element loaders and the two passes written once for every dtype, one value
// at a time. They define the results; every vector kernel (portable.h, avx512passes.h) hands the
// blocks it cannot take (NaN, Inf, ragged ends) back to these.
#include "core/stats/statskernels.h"

#include <algorithm>
#include <cmath>
#include <cstring>

namespace stb::kernels {

template<typename T> T load(const std::byte *p)
{
    T v;
    std::memcpy(&v, p, sizeof v);
    return v;
}

// Element loaders: each returns the value statistics see.
struct LoadF32 {
    static constexpr std::size_t size = 4;
    static double get(const std::byte *p) { return load<float>(p); }
};
struct LoadF64 {
    static constexpr std::size_t size = 8;
    static double get(const std::byte *p) { return load<double>(p); }
};
struct LoadI32 {
    static constexpr std::size_t size = 4;
    static double get(const std::byte *p) { return load<std::int32_t>(p); }
};
struct LoadU32 {
    static constexpr std::size_t size = 4;
    static double get(const std::byte *p) { return load<std::uint32_t>(p); }
};
struct LoadI64 {
    static constexpr std::size_t size = 8;
    static double get(const std::byte *p) { return static_cast<double>(load<std::int64_t>(p)); }
};
struct LoadU64 {
    static constexpr std::size_t size = 8;
    static double get(const std::byte *p) { return static_cast<double>(load<std::uint64_t>(p)); }
};
template<DType dtype> struct LoadHalf {
    static constexpr std::size_t size = 2;
    static double get(const std::byte *p) { return decodeCode(dtype, load<std::uint16_t>(p)); }
};
using LoadBF16 = LoadHalf<DType::BF16>;
using LoadF16 = LoadHalf<DType::F16>;
struct LoadC64 {
    static constexpr std::size_t size = 8;
    static double get(const std::byte *p)
    {
        const double re = load<float>(p), im = load<float>(p + 4);
        if (std::isnan(re) || std::isnan(im))
            return NAN;
        return std::hypot(re, im);
    }
};

// Eight independent lanes keep the loop free of a serial dependency chain, so the compiler can
// keep them in vector registers.
constexpr int kLanes = 8;

// The shift of a chunk's sums: its first finite value (sums of x - shift carry no cancellation).
template<typename Loader>
double firstFinite(const std::byte *p, std::uint64_t n)
{
    for (std::uint64_t i = 0; i < n; ++i) {
        const double v = Loader::get(p + i * Loader::size);
        if (std::isfinite(v))
            return v;
    }
    return 0;
}

template<typename Loader>
void scan(const std::byte *data, std::uint64_t first, std::uint64_t n, StatsAccumulator &acc)
{
    const std::byte *p = data + first * Loader::size;
    const double shift = firstFinite<Loader>(p, n);
    double sum[kLanes] = {}, squares[kLanes] = {}, lo[kLanes], hi[kLanes], abs[kLanes] = {};
    std::uint64_t finite[kLanes] = {}, zeros[kLanes] = {};
    for (int k = 0; k < kLanes; ++k)
        lo[k] = INFINITY, hi[k] = -INFINITY;
    std::uint64_t nan = 0, posInf = 0, negInf = 0;
    for (std::uint64_t j = 0; j < n; j += kLanes) {
        const std::uint64_t lanes = std::min<std::uint64_t>(kLanes, n - j);
        for (std::uint64_t k = 0; k < lanes; ++k) {
            const double v = Loader::get(p + (j + k) * Loader::size);
            if (!std::isfinite(v)) [[unlikely]] {
                if (std::isnan(v))
                    ++nan;
                else if (v > 0)
                    ++posInf;
                else
                    ++negInf;
                continue;
            }
            const double d = v - shift;
            sum[k] += d;
            squares[k] += d * d;
            lo[k] = std::min(lo[k], v);
            hi[k] = std::max(hi[k], v);
            abs[k] = std::max(abs[k], std::fabs(v));
            finite[k] += 1;
            zeros[k] += v == 0;
        }
    }
    StatsAccumulator chunk;
    double s = 0, q = 0, mn = INFINITY, mx = -INFINITY, am = 0;
    std::uint64_t f = 0, z = 0;
    for (int k = 0; k < kLanes; ++k) {
        s += sum[k];
        q += squares[k];
        mn = std::min(mn, lo[k]);
        mx = std::max(mx, hi[k]);
        am = std::max(am, abs[k]);
        f += finite[k];
        z += zeros[k];
    }
    chunk.addFiniteBlock(f, shift, s, q);
    if (f)
        chunk.addExtremes(mn, mx, am);
    chunk.addZeros(z);
    chunk.addNan(nan);
    chunk.addInf(false, posInf);
    chunk.addInf(true, negInf);
    acc.merge(chunk);
}

template<typename Loader>
void bin(const std::byte *data, std::uint64_t first, std::uint64_t n, const BinPlan &plan,
    std::uint64_t *bins, std::uint64_t &outliers)
{
    const std::byte *p = data + first * Loader::size;
    std::uint64_t far = 0;
    for (std::uint64_t i = 0; i < n; ++i) {
        const double v = Loader::get(p + i * Loader::size);
        const int b = binIndex(plan, v);
        if (b >= 0)
            ++bins[b];
        far += std::fabs(v - plan.mean) > plan.outlierDistance && std::isfinite(v);
    }
    outliers += far;
}

} // namespace stb::kernels
