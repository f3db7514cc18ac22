// Where histogram bins lie (layoutBins): integers on whole numbers, narrow floats on their grid,
// wide floats as numpy does; and what a user sees from it: no false dip, no comb.
#include "core/stats/binlayout.h"
#include "core/stats/tensoranalyzer.h"

#include <QTest>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <vector>

namespace stb {

namespace {

// Every finite value of a dtype of at most 16 bits, each once, in code order.
std::vector<double> allValues(DType dtype)
{
    std::vector<double> values;
    for (std::uint64_t code = 0; code < (std::uint64_t(1) << dtypeBits(dtype)); ++code) {
        const double v = decodeCode(dtype, code);
        if (std::isfinite(v))
            values.push_back(v);
    }
    return values;
}

// The codes of the values of `dtype` (16 bits or 8) in [lo, hi], each once, as tensor bytes.
std::vector<std::byte> codesBetween(DType dtype, double lo, double hi, std::uint64_t &elements)
{
    const unsigned bytes = dtypeBits(dtype) / 8;
    std::vector<std::byte> out;
    elements = 0;
    for (std::uint64_t code = 0; code < (std::uint64_t(1) << dtypeBits(dtype)); ++code) {
        const double v = decodeCode(dtype, code);
        if (!(v >= lo && v <= hi) || (v == 0 && std::signbit(v)))
            continue;
        for (unsigned b = 0; b < bytes; ++b)
            out.push_back(static_cast<std::byte>(code >> (8 * b)));
        ++elements;
    }
    return out;
}

TensorAnalysis analyzeBytes(DType dtype, const std::vector<std::byte> &bytes, std::uint64_t elements, unsigned bins)
{
    AnalysisOptions options;
    options.bins = bins;
    options.threads = 1;
    return *analyzeTensor(dtype, bytes, elements, options);
}

} // namespace

class tst_BinLayout : public QObject {
    Q_OBJECT
private slots:
    void layout_data();
    void layout();
    void everyBinHoldsValues_data();
    void everyBinHoldsValues();
    void integerTensorHasNoFalseDip();
    void halfFloatTensorHasNoComb_data();
    void halfFloatTensorHasNoComb();
};

void tst_BinLayout::layout_data()
{
    QTest::addColumn<DType>("dtype");
    QTest::addColumn<double>("min");
    QTest::addColumn<double>("max");
    QTest::addColumn<unsigned>("requested");
    QTest::addColumn<double>("lo");
    QTest::addColumn<double>("hi");
    QTest::addColumn<unsigned>("bins");

    const double big = 9007199254740992.0; // 2^53
    const double h = std::ldexp(1.0, -8), f = std::ldexp(1.0, -12);
    QTest::newRow("I8 full range, 10 bins of 26") << DType::I8 << -128.0 << 127.0 << 10u << -128.5 << 131.5 << 10u;
    QTest::newRow("I8 -3..3, one bin per value") << DType::I8 << -3.0 << 3.0 << 7u << -3.5 << 3.5 << 7u;
    QTest::newRow("U8 0..9 in 64 bins: ten") << DType::U8 << 0.0 << 9.0 << 64u << -0.5 << 9.5 << 10u;
    QTest::newRow("U8 full range, 64 bins of 4") << DType::U8 << 0.0 << 255.0 << 64u << -0.5 << 255.5 << 64u;
    QTest::newRow("BOOL") << DType::BOOL << 0.0 << 1.0 << 10u << -0.5 << 1.5 << 2u;
    QTest::newRow("I16 one bin") << DType::I16 << -7.0 << 300.0 << 1u << -7.5 << 300.5 << 1u;
    QTest::newRow("U16 bins of 2") << DType::U16 << 0.0 << 9.0 << 5u << -0.5 << 9.5 << 5u;
    QTest::newRow("I32 2001 values in 1000 bins of 3")
        << DType::I32 << -1000.0 << 1000.0 << 1000u << -1000.5 << 1000.5 << 667u;
    QTest::newRow("U32 uneven: last bin reaches past max") << DType::U32 << 0.0 << 10.0 << 4u << -0.5 << 11.5 << 4u;
    QTest::newRow("I64 within 2^52") << DType::I64 << -5.0 << 5.0 << 64u << -5.5 << 5.5 << 11u;
    QTest::newRow("I64 beyond 2^52: numpy") << DType::I64 << -big << big << 10u << -big << big << 10u;
    QTest::newRow("U64 beyond 2^52: numpy") << DType::U64 << 0.0 << 4 * big << 64u << 0.0 << 4 * big << 64u;
    QTest::newRow("F32: numpy") << DType::F32 << -0.1 << 0.25 << 1000u << -0.1 << 0.25 << 1000u;
    QTest::newRow("F64: numpy") << DType::F64 << 0.0 << 3.0 << 3u << 0.0 << 3.0 << 3u;
    QTest::newRow("C64 magnitudes: numpy") << DType::C64 << 0.0 << 2.0 << 10u << 0.0 << 2.0 << 10u;
    QTest::newRow("BF16 1..2: one bin per value") << DType::BF16 << 1.0 << 2.0 << 1000u << 1 - h << 2 + h << 129u;
    QTest::newRow("BF16 1..2 in 64 bins of 3") << DType::BF16 << 1.0 << 2.0 << 64u << 1 - h << 1 - h + 43 * 3 * 2 * h << 43u;
    QTest::newRow("F16 -1..1: 820 bins of 5 steps")
        << DType::F16 << -1.0 << 1.0 << 1000u << -1 - f << -1 - f + 820 * 5 * 2 * f << 820u;
    QTest::newRow("F16 few bins") << DType::F16 << -1.0 << 1.0 << 2u << -1 - f << -1 - f + 2 * 2049 * 2 * f << 2u;
    QTest::newRow("F8_E4M3 full range: steps of 32") << DType::F8_E4M3 << -448.0 << 448.0 << 1000u << -464.0 << 464.0 << 29u;
    QTest::newRow("F8_E5M2 0..1") << DType::F8_E5M2 << 0.0 << 1.0 << 64u << -0.0625 << 1.0625 << 9u;
    QTest::newRow("F4 0..6: steps of 2") << DType::F4 << 0.0 << 6.0 << 64u << -1.0 << 7.0 << 4u;
    QTest::newRow("F4 -0.5..0.5: steps of 0.5") << DType::F4 << -0.5 << 0.5 << 64u << -0.75 << 0.75 << 3u;
}

void tst_BinLayout::layout()
{
    QFETCH(DType, dtype);
    QFETCH(double, min);
    QFETCH(double, max);
    QFETCH(unsigned, requested);
    QFETCH(double, lo);
    QFETCH(double, hi);
    QFETCH(unsigned, bins);
    const BinLayout got = layoutBins(dtype, min, max, requested);
    QCOMPARE(got.bins, bins);
    QCOMPARE(got.lo, lo);
    QCOMPARE(got.hi, hi);
    QVERIFY(got.lo <= min && got.hi >= max);
    QVERIFY(got.bins <= requested);
}

void tst_BinLayout::everyBinHoldsValues_data()
{
    QTest::addColumn<DType>("dtype");
    QTest::addColumn<unsigned>("requested");
    for (const DTypeInfo &info : allDTypes()) {
        if (info.kind != DTypeKind::Float || info.bits > 16)
            continue;
        for (unsigned requested : { 10u, 64u, 1000u, 100000u })
            QTest::addRow("%s %u", info.name.data(), requested) << info.dtype << requested;
    }
}

// The promise for narrow floats, over their whole range and a narrow one: never more bins than
// representable values, and every bin holds at least one of them (no comb of empty bins).
void tst_BinLayout::everyBinHoldsValues()
{
    QFETCH(DType, dtype);
    QFETCH(unsigned, requested);
    const std::vector<double> values = allValues(dtype);
    std::vector<double> sorted = values;
    std::sort(sorted.begin(), sorted.end());
    const std::size_t n = sorted.size();
    for (const auto &[min, max] : { std::pair(sorted.front(), sorted.back()), std::pair(sorted[n / 4], sorted[3 * n / 4]),
             std::pair(sorted[n / 2], sorted[n / 2 + 3]) }) {
        const BinLayout layout = layoutBins(dtype, min, max, requested);
        std::vector<int> held(layout.bins, 0);
        std::vector<double> distinct;
        for (double v : values) {
            if (v < min || v > max)
                continue;
            distinct.push_back(v);
            const double t = (v - layout.lo) / (layout.hi - layout.lo) * layout.bins;
            ++held[std::min<std::size_t>(static_cast<std::size_t>(t), layout.bins - 1)];
        }
        std::sort(distinct.begin(), distinct.end());
        distinct.erase(std::unique(distinct.begin(), distinct.end()), distinct.end());
        QVERIFY2(layout.bins <= distinct.size(), qPrintable(QString::number(layout.bins)));
        QVERIFY2(std::count(held.begin(), held.end(), 0) == 0,
            qPrintable(QStringLiteral("empty bins over [%1, %2]").arg(min).arg(max)));
    }
}

// An I8 weight uniform over -20..19 in 64 bins: one bin per value, all equal; no dip at 0.
void tst_BinLayout::integerTensorHasNoFalseDip()
{
    std::vector<std::byte> bytes;
    for (int repeat = 0; repeat < 5; ++repeat) {
        for (int v = -20; v < 20; ++v)
            bytes.push_back(static_cast<std::byte>(static_cast<std::int8_t>(v)));
    }
    const TensorAnalysis a = analyzeBytes(DType::I8, bytes, bytes.size(), 64);
    QCOMPARE(a.histogram.counts, std::vector<std::uint64_t>(40, 5));
    QCOMPARE(a.histogram.lo, -20.5);
    QCOMPARE(a.histogram.hi, 19.5);
    QCOMPARE(a.histogram.binOf(0), 20);
    QCOMPARE(a.histogram.binOf(-1), 19);
    // Ten bins: four integers each.
    const TensorAnalysis ten = analyzeBytes(DType::I8, bytes, bytes.size(), 10);
    QCOMPARE(ten.histogram.counts, std::vector<std::uint64_t>(10, 20));
}

void tst_BinLayout::halfFloatTensorHasNoComb_data()
{
    QTest::addColumn<DType>("dtype");
    QTest::addColumn<double>("lo");
    QTest::addColumn<double>("hi");
    QTest::addColumn<unsigned>("bins");
    for (unsigned bins : { 10u, 64u, 1000u }) {
        QTest::addRow("BF16 [1, 2] %u", bins) << DType::BF16 << 1.0 << 2.0 << bins;
        QTest::addRow("BF16 [-0.1, 0.1] %u", bins) << DType::BF16 << -0.1 << 0.1 << bins;
        QTest::addRow("F16 [-1, 1] %u", bins) << DType::F16 << -1.0 << 1.0 << bins;
        QTest::addRow("F8_E4M3 [-3, 3] %u", bins) << DType::F8_E4M3 << -3.0 << 3.0 << bins;
    }
}

// Each representable value of a range once, through the real scan (counted by code or, for BF16
// and F16 with the AVX-512 kernels and few bins, by thresholds): every bin holds some.
void tst_BinLayout::halfFloatTensorHasNoComb()
{
    QFETCH(DType, dtype);
    QFETCH(double, lo);
    QFETCH(double, hi);
    QFETCH(unsigned, bins);
    std::uint64_t elements = 0;
    const auto bytes = codesBetween(dtype, lo, hi, elements);
    const TensorAnalysis a = analyzeBytes(dtype, bytes, elements, bins);
    const auto &counts = a.histogram.counts;
    QVERIFY(!counts.empty() && counts.size() <= bins);
    QCOMPARE(std::count(counts.begin(), counts.end(), 0u), 0);
}

} // namespace stb

QTEST_GUILESS_MAIN(stb::tst_BinLayout)
#include "tst_binlayout.moc"
