#include "ui/charts/axisticks.h"

#include <algorithm>
#include <cmath>

using namespace Qt::StringLiterals;

namespace stb {

namespace {

// The multiple of 1, 2, 5 × 10^k nearest above `raw`.
double roundUpStep(double raw)
{
    const double power = std::pow(10.0, std::floor(std::log10(raw)));
    for (const double m : { 1.0, 2.0, 5.0, 10.0 }) {
        if (raw <= m * power * (1 + 1e-9))
            return m * power;
    }
    return 10 * power;
}

// The next round step after `step` (1 → 2 → 5 → 10).
double nextStep(double step)
{
    return roundUpStep(step * 1.5);
}

// Fewest decimals (up to 6) that write every tick / scale exactly.
int decimalsFor(const AxisTicks &ticks, double scale)
{
    for (int d = 0; d < 6; ++d) {
        const double f = std::pow(10.0, d);
        bool whole = true;
        for (int i = 0; i < ticks.count && whole; ++i) {
            const double x = ticks.value(i) / scale * f;
            whole = std::fabs(x - std::round(x)) <= 1e-6 * std::max(1.0, std::fabs(x));
        }
        if (whole)
            return d;
    }
    return 6;
}

// "2.50" → "2.5", "5.0" → "5": each label as short as its value allows ("2.5k, 5k, 7.5k").
QString withoutTrailingZeros(QString text, const QLocale &locale)
{
    const QString point = locale.decimalPoint();
    if (!text.contains(point))
        return text;
    while (text.endsWith(u'0'))
        text.chop(1);
    if (text.endsWith(point))
        text.chop(point.size());
    return text;
}

} // namespace

AxisTicks niceTicks(double lo, double hi, int maxTicks, double minStep)
{
    if (!std::isfinite(lo))
        return {};
    const double span = hi - lo;
    if (!std::isfinite(hi) || !(span > 0) || !std::isfinite(span))
        return { lo, 0, 1 };
    maxTicks = std::max(2, maxTicks);
    double step = roundUpStep(std::max(span / maxTicks, minStep));
    auto fit = [&](double s) {
        AxisTicks t;
        t.step = s;
        t.first = std::ceil(lo / s - 1e-9) * s;
        t.count = static_cast<int>(std::floor((hi - t.first) / s + 1e-9)) + 1;
        return t;
    };
    AxisTicks ticks = fit(step);
    while (ticks.count > maxTicks)
        ticks = fit(step = nextStep(step));
    // The first tick lands on a round multiple; -0 reads as "-0", so make it 0.
    if (ticks.first == 0)
        ticks.first = 0;
    return ticks;
}

QStringList tickLabels(const AxisTicks &ticks, const QLocale &locale)
{
    QStringList labels;
    double largest = 0;
    for (int i = 0; i < ticks.count; ++i)
        largest = std::max(largest, std::fabs(ticks.value(i)));
    const bool exponent = largest > 0 && largest < 1e-3;
    static const struct {
        double scale;
        char16_t suffix;
    } kSi[] = { { 1e12, u'T' }, { 1e9, u'G' }, { 1e6, u'M' }, { 1e3, u'k' } };
    double scale = 1;
    QString suffix;
    if (largest >= 1e4 && !exponent) {
        for (const auto &si : kSi) {
            if (largest >= si.scale) {
                scale = si.scale;
                suffix = QString(QChar(si.suffix));
                break;
            }
        }
    }
    const int decimals = exponent ? 0 : decimalsFor(ticks, scale);
    for (int i = 0; i < ticks.count; ++i) {
        double v = ticks.value(i);
        if (ticks.step > 0 && std::fabs(v) < ticks.step * 1e-6)
            v = 0; // 0.1 - 0.1 computed as 1e-17
        if (v == 0)
            labels.append(u"0"_s);
        else if (exponent)
            labels.append(QString::number(v, 'g', 3)); // the locale's 'g' writes "1E-05"
        else
            labels.append(withoutTrailingZeros(locale.toString(v / scale, 'f', decimals), locale) + suffix);
    }
    return labels;
}

} // namespace stb
