#pragma once

// The running sums of a diff's pass 2 per chunk, and the one body that adds a pair of values to
// them: shared by the general loop (comparison.cpp) and the AVX2 loop over F32 and BF16
// (diffavx2.cpp), which must give the same sums bit for bit.
#include "core/compare/comparison.h"

#include <algorithm>
#include <bit>
#include <cmath>
#include <cstdint>
#include <cstring>

namespace stb::diff {

// Mergeable per-chunk sums behind DiffMetrics.
struct DiffSums {
    std::uint64_t compared = 0, different = 0, nanA = 0, nanB = 0, infA = 0, infB = 0, outOfTolerance = 0;
    double maxAbs = -1;
    std::uint64_t argmax = 0;
    double sumAbs = 0, sumSqDiff = 0, sumSqA = 0, sumSqB = 0, dot = 0;

    // Another range's sums, or another lane's (kSumLanes below): counters added, the larger
    // maximum kept (the earlier element on a tie, as one loop in element order would).
    void merge(const DiffSums &o)
    {
        compared += o.compared, different += o.different, nanA += o.nanA, nanB += o.nanB;
        infA += o.infA, infB += o.infB, outOfTolerance += o.outOfTolerance;
        if (o.maxAbs > maxAbs || (o.maxAbs == maxAbs && o.argmax < argmax))
            maxAbs = o.maxAbs, argmax = o.argmax;
        sumAbs += o.sumAbs, sumSqDiff += o.sumSqDiff, sumSqA += o.sumSqA, sumSqB += o.sumSqB, dot += o.dot;
    }

    DiffMetrics metrics() const
    {
        DiffMetrics m;
        m.compared = compared, m.different = different, m.nanA = nanA, m.nanB = nanB, m.infA = infA,
        m.infB = infB;
        m.outOfTolerance = outOfTolerance;
        if (compared) {
            m.maxAbsDiff = std::max(0.0, maxAbs);
            m.argmax = maxAbs >= 0 ? argmax : 0;
            m.meanAbsDiff = sumAbs / static_cast<double>(compared);
            m.relL2 = sumSqA > 0 ? std::sqrt(sumSqDiff) / std::sqrt(sumSqA) : (sumSqDiff == 0 ? 0.0 : NAN);
            m.cosine = sumSqA > 0 && sumSqB > 0 ? dot / (std::sqrt(sumSqA) * std::sqrt(sumSqB)) : NAN;
        }
        return m;
    }
};

// One pair of values (real and imaginary parts) at `index` into `s`. Inline in both loops below,
// so that with literal zero imaginary parts the compiler drops what they cannot change.
[[gnu::always_inline]] inline void addPair(double ar, double ai, double br, double bi, std::uint64_t index,
    double atol, double rtol, DiffSums &s)
{
    const bool nanA = std::isnan(ar) || std::isnan(ai), nanB = std::isnan(br) || std::isnan(bi);
    const bool finA = std::isfinite(ar) && std::isfinite(ai), finB = std::isfinite(br) && std::isfinite(bi);
    if (!finA || !finB) [[unlikely]] {
        s.nanA += nanA, s.nanB += nanB;
        s.infA += !finA && !nanA, s.infB += !finB && !nanB;
        const bool same = (nanA && nanB) || (!nanA && !nanB && ar == br && ai == bi);
        s.different += !same;
        s.outOfTolerance += !same;
        return;
    }
    const double dr = ar - br, di = ai - bi;
    const double diff = di == 0 ? std::fabs(dr) : std::hypot(dr, di);
    ++s.compared;
    s.different += diff != 0;
    const double magB = bi == 0 ? std::fabs(br) : std::hypot(br, bi);
    s.outOfTolerance += diff > atol + rtol * magB;
    if (diff > s.maxAbs)
        s.maxAbs = diff, s.argmax = index;
    s.sumAbs += diff;
    s.sumSqDiff += dr * dr + di * di;
    s.sumSqA += ar * ar + ai * ai;
    s.sumSqB += br * br + bi * bi;
    s.dot += ar * br + ai * bi;
}

// A range's elements are added in kSumLanes interleaved lanes (element first + k to lane
// k % kSumLanes), each lane in element order, and the lanes folded pairwise at the end
// (0+1)+(2+3) into the running sums. One order for every loop, so they agree bit for bit: the
// AVX2 loop keeps the lanes in one vector per sum, where sums in element order made each
// addition wait for the one before (3 cycles an element, most of a diff's CPU).
inline constexpr unsigned kSumLanes = 4;

inline void foldLanes(DiffSums (&lanes)[kSumLanes], DiffSums &s)
{
    for (unsigned width = 1; width < kSumLanes; width *= 2) {
        for (unsigned k = 0; k < kSumLanes; k += 2 * width)
            lanes[k].merge(lanes[k + width]);
    }
    s.merge(lanes[0]);
}

// The values of F32, BF16 and F16 elements, exactly as decodeBatch gives them.
struct F32Values {
    static double at(const std::byte *p, std::uint64_t i)
    {
        float v;
        std::memcpy(&v, p + 4 * i, 4);
        return v;
    }
};
struct BF16Values {
    static double at(const std::byte *p, std::uint64_t i)
    {
        std::uint16_t code;
        std::memcpy(&code, p + 2 * i, 2);
        const std::uint32_t bits = std::uint32_t(code) << 16;
        float v;
        std::memcpy(&v, &bits, 4);
        return v;
    }
};
struct F16Values {
    static double at(const std::byte *p, std::uint64_t i)
    {
        std::uint16_t code;
        std::memcpy(&code, p + 2 * i, 2);
        // The magnitude's bits in a float's place are the value times 2^-112, subnormal codes
        // included; the product is exact. (decodeCode's general path ran the scalar loop at
        // 0.8 GB/s.)
        const std::uint32_t magnitude = code & 0x7FFFu;
        float v = std::bit_cast<float>(magnitude << 13) * 0x1p112f;
        if (magnitude >= 0x7C00u)
            v = magnitude == 0x7C00u ? INFINITY : NAN;
        return code & 0x8000u ? -v : v;
    }
};

// Elements [from, to) of a pair of F32, BF16 or F16 tensors whose range starts at `first`, each into
// its lane; and a whole range into `s` (the scalar loop of a changed pair). Straight from the
// bytes: perf found decoding into four buffers of doubles (two of them zero imaginary parts) and
// reading them back at over half of pass 2's time.
template<typename Values>
void addToLanes(const std::byte *a, const std::byte *b, std::uint64_t first, std::uint64_t from,
    std::uint64_t to, double atol, double rtol, DiffSums (&lanes)[kSumLanes])
{
    for (std::uint64_t i = from; i < to; ++i)
        addPair(Values::at(a, i), 0.0, Values::at(b, i), 0.0, i, atol, rtol, lanes[(i - first) % kSumLanes]);
}
template<typename Values>
void measureReal(const std::byte *a, const std::byte *b, std::uint64_t first, std::uint64_t count,
    double atol, double rtol, DiffSums &s)
{
    DiffSums lanes[kSumLanes];
    addToLanes<Values>(a, b, first, first, first + count, atol, rtol, lanes);
    foldLanes(lanes, s);
}

} // namespace stb::diff
