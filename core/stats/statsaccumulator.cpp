#include "core/stats/statsaccumulator.h"

#include <algorithm>

namespace stb {

void StatsAccumulator::addSum(double value)
{
    const double t = m_sum + value;
    if (std::fabs(m_sum) >= std::fabs(value))
        m_compensation += (m_sum - t) + value;
    else
        m_compensation += (value - t) + m_sum;
    m_sum = t;
}

void StatsAccumulator::addFiniteBlock(std::uint64_t n, double shift, double shiftedSum, double shiftedSquares)
{
    if (n == 0)
        return;
    const double nb = static_cast<double>(n);
    const double blockMean = shift + shiftedSum / nb;
    const double blockM2 = std::max(0.0, shiftedSquares - shiftedSum * shiftedSum / nb);
    addSum(shift * nb);
    addSum(shiftedSum);
    const std::uint64_t total = m_finite + n;
    const double delta = blockMean - m_mean;
    m_mean += delta * nb / static_cast<double>(total);
    m_m2 += blockM2 + delta * delta * static_cast<double>(m_finite) * nb / static_cast<double>(total);
    m_finite = total;
    m_count += n;
}

void StatsAccumulator::addFinite(double value, std::uint64_t times)
{
    if (times == 0)
        return;
    addFiniteBlock(times, value, 0.0, 0.0);
    addExtremes(value, value, std::fabs(value));
    if (value == 0)
        m_zeros += times;
}

void StatsAccumulator::addInf(bool negative, std::uint64_t n)
{
    m_count += n;
    (negative ? m_negInf : m_posInf) += n;
}

void StatsAccumulator::addExtremes(double min, double max, double absMax)
{
    m_min = std::min(m_min, min);
    m_max = std::max(m_max, max);
    m_absMax = std::max(m_absMax, absMax);
}

void StatsAccumulator::merge(const StatsAccumulator &o)
{
    m_nan += o.m_nan;
    m_posInf += o.m_posInf;
    m_negInf += o.m_negInf;
    m_zeros += o.m_zeros;
    m_count += o.m_count - o.m_finite; // finite values are counted by the block merge below
    if (o.m_finite) {
        const std::uint64_t total = m_finite + o.m_finite;
        const double delta = o.m_mean - m_mean;
        m_mean += delta * static_cast<double>(o.m_finite) / static_cast<double>(total);
        m_m2 += o.m_m2
            + delta * delta * static_cast<double>(m_finite) * static_cast<double>(o.m_finite)
                / static_cast<double>(total);
        addSum(o.m_sum);
        addSum(o.m_compensation);
        m_finite = total;
        m_count += o.m_finite;
        addExtremes(o.m_min, o.m_max, o.m_absMax);
    }
}

TensorStats StatsAccumulator::stats() const
{
    TensorStats s;
    s.count = m_count;
    s.nan = m_nan;
    s.posInf = m_posInf;
    s.negInf = m_negInf;
    s.zeros = m_zeros;
    s.finite = m_finite;
    if (m_finite) {
        s.min = m_min;
        s.max = m_max;
        s.absMax = m_absMax;
        s.mean = (m_sum + m_compensation) / static_cast<double>(m_finite);
        // Never outside the data's range through rounding (when the extremes were given).
        if (m_min <= m_max)
            s.mean = std::clamp(s.mean, m_min, m_max);
        s.std = std::sqrt(m_m2 / static_cast<double>(m_finite));
    }
    return s;
}

} // namespace stb
