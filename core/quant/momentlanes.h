#pragma once

// The eight lanes of counted moments (dequantruns.h: countedMomentsRun): what a lane adds for a
// (value, count) pair, and the fixed order the lanes are added in at the end. The portable body
// and the AVX2 kernel share them, so that both give the same sums bit for bit.
#include "core/quant/dequantruns.h"

#include <cmath>
#include <cstddef>
#include <cstdint>

namespace stb::quant {

struct MomentLanes {
    static constexpr std::size_t kLanes = 8;
    double finite[kLanes] = {}, zeros[kLanes] = {}, nan[kLanes] = {}, posInf[kLanes] = {},
           negInf[kLanes] = {}, sum[kLanes] = {}, squares[kLanes] = {};
    float lo[kLanes] = { INFINITY, INFINITY, INFINITY, INFINITY, INFINITY, INFINITY, INFINITY, INFINITY };
    float hi[kLanes]
        = { -INFINITY, -INFINITY, -INFINITY, -INFINITY, -INFINITY, -INFINITY, -INFINITY, -INFINITY };

    [[gnu::always_inline]] inline void add(std::size_t j, float v, std::uint32_t count, double shift)
    {
        const double c = static_cast<double>(count);
        const bool isFinite = (v - v) == 0.0f; // false for NaN and ±Inf
        const double cf = isFinite ? c : 0.0, d = isFinite ? static_cast<double>(v) - shift : 0.0;
        finite[j] += cf;
        sum[j] += cf * d;
        squares[j] += cf * d * d;
        zeros[j] += v == 0.0f ? c : 0.0;
        nan[j] += v != v ? c : 0.0;
        posInf[j] += v == INFINITY ? c : 0.0;
        negInf[j] += v == -INFINITY ? c : 0.0;
        const bool seen = isFinite && count != 0;
        lo[j] = seen && v < lo[j] ? v : lo[j];
        hi[j] = seen && v > hi[j] ? v : hi[j];
    }

    [[gnu::always_inline]] inline void finish(CountedMoments &m) const
    {
        for (std::size_t j = 0; j < kLanes; ++j) {
            m.finite += finite[j];
            m.zeros += zeros[j];
            m.nan += nan[j];
            m.posInf += posInf[j];
            m.negInf += negInf[j];
            m.sum += sum[j];
            m.squares += squares[j];
            m.lo = lo[j] < m.lo ? lo[j] : m.lo;
            m.hi = hi[j] > m.hi ? hi[j] : m.hi;
        }
    }
};

} // namespace stb::quant
