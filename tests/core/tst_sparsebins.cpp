// Which bins the histogram chart marks: sparse and far from the bulk, never a distribution's own
// tails.
#include "core/stats/sparsebins.h"

#include <QTest>

#include <cmath>
#include <vector>

namespace stb {

namespace {

using Counts = std::vector<std::uint64_t>;
using Bins = std::vector<std::size_t>;

// A bell of `bins` bins around the middle, `total` values in all.
Counts bell(std::size_t bins, double total, double width)
{
    Counts counts(bins);
    for (std::size_t i = 0; i < bins; ++i) {
        const double z = (static_cast<double>(i) - static_cast<double>(bins) / 2) / width;
        counts[i] = static_cast<std::uint64_t>(std::round(total * std::exp(-z * z / 2) / (width * 2.5066)));
    }
    return counts;
}

} // namespace

class tst_SparseBins : public QObject {
    Q_OBJECT
private slots:
    void marked_data();
    void marked();
};

void tst_SparseBins::marked_data()
{
    QTest::addColumn<std::vector<std::uint64_t>>("counts");
    QTest::addColumn<std::vector<std::size_t>>("expected");

    QTest::newRow("empty") << Counts {} << Bins {};
    QTest::newRow("flat") << Counts(10, 5) << Bins {};
    // The bulk in bins 0..9; one value alone at bin 99 (a weight at twenty standard deviations).
    Counts outlier(100, 0);
    for (std::size_t i = 0; i < 10; ++i)
        outlier[i] = 1000;
    outlier[99] = 1;
    QTest::newRow("one far value") << outlier << Bins { 99 };
    // Far values on both sides of a bell, and one close to it (within half the bulk's width).
    Counts sides = bell(200, 1e6, 8);
    sides[0] = 3;
    sides[5] = 1;
    sides[199] = 2;
    sides[140] = 1;
    QTest::newRow("far on both sides") << sides << Bins { 0, 5, 199 };
    // A normal distribution's own tails are not marked, however many bins.
    QTest::newRow("bell, 1000 bins") << bell(1000, 1e7, 100) << Bins {};
    // Far but not sparse: a second mode is data, not an outlier.
    Counts twoModes(100, 0);
    twoModes[5] = 1000;
    twoModes[95] = 800;
    QTest::newRow("two modes") << twoModes << Bins {};
}

void tst_SparseBins::marked()
{
    QFETCH(std::vector<std::uint64_t>, counts);
    QFETCH(std::vector<std::size_t>, expected);
    Histogram h { 0, 1, counts };
    QCOMPARE(sparseFarBins(h), expected);
}

} // namespace stb

QTEST_GUILESS_MAIN(stb::tst_SparseBins)
#include "tst_sparsebins.moc"
