#pragma once

#include "core/stats/tensorstats.h"

#include <cstdint>

namespace stb {

// Mergeable running statistics, so a tensor can be cut into chunks, scanned on several threads
// and merged in any grouping. The mean is a compensated (Neumaier) sum divided once; the
// spread is carried as (mean, M2) pairs merged with Chan's formula, which stays accurate when
// the mean is large against the spread.
class StatsAccumulator {
public:
    // One chunk's finite values, summarised around a shift K (a value of the chunk, so that
    // the shifted sums carry no cancellation): n values, sum of (x-K), sum of (x-K)^2.
    void addFiniteBlock(std::uint64_t n, double shift, double shiftedSum, double shiftedSquares);
    void addFinite(double value, std::uint64_t times = 1); // one value, `times` times
    void addNan(std::uint64_t n = 1) { m_count += n, m_nan += n; }
    void addInf(bool negative, std::uint64_t n = 1);
    void addZeros(std::uint64_t n) { m_zeros += n; } // already counted as finite
    void addExtremes(double min, double max, double absMax);
    void merge(const StatsAccumulator &other);

    TensorStats stats() const;
    std::uint64_t finiteCount() const { return m_finite; }

private:
    void addSum(double value);

    std::uint64_t m_count = 0, m_nan = 0, m_posInf = 0, m_negInf = 0, m_zeros = 0, m_finite = 0;
    double m_min = INFINITY, m_max = -INFINITY, m_absMax = 0;
    double m_sum = 0, m_compensation = 0; // Neumaier
    double m_mean = 0, m_m2 = 0;          // Chan
};

} // namespace stb
