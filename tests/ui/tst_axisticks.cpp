// Axis ticks every chart uses: round values (1, 2, 5 × 10^k) inside the range, labels with the
// locale's digit grouping, SI suffixes when long, an exponent when tiny, never "-0".
#include "ui/charts/axisticks.h"

#include <QTest>

using namespace Qt::StringLiterals;

namespace stb {

class tst_AxisTicks : public QObject {
    Q_OBJECT
private slots:
    void ticks_data();
    void ticks();
    void labels_data();
    void labels();
};

void tst_AxisTicks::ticks_data()
{
    QTest::addColumn<double>("lo");
    QTest::addColumn<double>("hi");
    QTest::addColumn<int>("maxTicks");
    QTest::addColumn<double>("minStep");
    QTest::addColumn<double>("first");
    QTest::addColumn<double>("step");
    QTest::addColumn<int>("count");

    // The raw ends the issue showed: -0.0967 … 0.0923 became ticks at those very values.
    QTest::newRow("weights") << -0.0967 << 0.0923 << 6 << 0.0 << -0.05 << 0.05 << 3;
    QTest::newRow("weights, room for more") << -0.0967 << 0.0923 << 10 << 0.0 << -0.08 << 0.02 << 9;
    QTest::newRow("counts to 64546") << 0.0 << 64546.0 << 5 << 0.0 << 0.0 << 20000.0 << 4;
    QTest::newRow("counts to 3,000,000") << 0.0 << 3000000.0 << 5 << 0.0 << 0.0 << 1000000.0 << 4;
    QTest::newRow("unit range") << 0.0 << 1.0 << 6 << 0.0 << 0.0 << 0.2 << 6;
    QTest::newRow("negative only") << -730.0 << -120.0 << 6 << 0.0 << -600.0 << 200.0 << 3;
    QTest::newRow("offset range") << 999.5 << 1000.7 << 6 << 0.0 << 999.6 << 0.2 << 6;
    QTest::newRow("tiny") << 0.0 << 3e-6 << 4 << 0.0 << 0.0 << 1e-6 << 4;
    QTest::newRow("blocks 0..93") << 0.0 << 93.0 << 6 << 1.0 << 0.0 << 20.0 << 5;
    QTest::newRow("blocks 0..2: whole steps") << 0.0 << 2.0 << 6 << 1.0 << 0.0 << 1.0 << 3;
    QTest::newRow("integer bins") << -128.5 << 131.5 << 6 << 0.0 << -100.0 << 50.0 << 5;
    QTest::newRow("two ticks at least") << 0.0 << 1.0 << 1 << 0.0 << 0.0 << 1.0 << 2;
    QTest::newRow("empty range") << 5.0 << 5.0 << 6 << 0.0 << 5.0 << 0.0 << 1;
    QTest::newRow("not finite") << 0.0 << qInf() << 6 << 0.0 << 0.0 << 0.0 << 1;
}

void tst_AxisTicks::ticks()
{
    QFETCH(double, lo);
    QFETCH(double, hi);
    QFETCH(int, maxTicks);
    QFETCH(double, minStep);
    QFETCH(double, first);
    QFETCH(double, step);
    QFETCH(int, count);
    const AxisTicks ticks = niceTicks(lo, hi, maxTicks, minStep);
    QCOMPARE(ticks.count, count);
    QVERIFY2(qFuzzyCompare(1 + ticks.step, 1 + step), qPrintable(QString::number(ticks.step)));
    QVERIFY2(qFuzzyCompare(1 + ticks.first, 1 + first), qPrintable(QString::number(ticks.first)));
    if (count > 1) {
        QVERIFY(ticks.value(0) >= lo - 1e-12 && ticks.value(count - 1) <= hi + 1e-12);
        QVERIFY(ticks.count <= std::max(2, maxTicks));
    }
}

void tst_AxisTicks::labels_data()
{
    QTest::addColumn<double>("first");
    QTest::addColumn<double>("step");
    QTest::addColumn<int>("count");
    QTest::addColumn<QStringList>("labels");

    QTest::newRow("weights") << -0.08 << 0.04 << 5 << QStringList { u"-0.08"_s, u"-0.04"_s, u"0"_s, u"0.04"_s, u"0.08"_s };
    QTest::newRow("thousands grouped") << 0.0 << 2500.0 << 4 << QStringList { u"0"_s, u"2,500"_s, u"5,000"_s, u"7,500"_s };
    QTest::newRow("SI from 10,000") << 0.0 << 2500.0 << 5 << QStringList { u"0"_s, u"2.5k"_s, u"5k"_s, u"7.5k"_s, u"10k"_s };
    QTest::newRow("64546 as k") << 0.0 << 20000.0 << 4 << QStringList { u"0"_s, u"20k"_s, u"40k"_s, u"60k"_s };
    QTest::newRow("millions") << 0.0 << 1e6 << 4 << QStringList { u"0"_s, u"1M"_s, u"2M"_s, u"3M"_s };
    QTest::newRow("billions") << 0.0 << 5e8 << 3 << QStringList { u"0"_s, u"0.5G"_s, u"1G"_s };
    QTest::newRow("no -0 from rounding") << -0.3 << 0.1 << 4 << QStringList { u"-0.3"_s, u"-0.2"_s, u"-0.1"_s, u"0"_s };
    QTest::newRow("tiny: exponent") << 0.0 << 1e-5 << 3 << QStringList { u"0"_s, u"1e-05"_s, u"2e-05"_s };
    QTest::newRow("fine steps near one") << 0.9998 << 0.0001 << 3 << QStringList { u"0.9998"_s, u"0.9999"_s, u"1"_s };
    QTest::newRow("negative thousands") << -20000.0 << 10000.0 << 3 << QStringList { u"-20k"_s, u"-10k"_s, u"0"_s };
    QTest::newRow("one tick") << 5.0 << 0.0 << 1 << QStringList { u"5"_s };
}

void tst_AxisTicks::labels()
{
    QFETCH(double, first);
    QFETCH(double, step);
    QFETCH(int, count);
    QFETCH(QStringList, labels);
    QCOMPARE(tickLabels({ first, step, count }, QLocale(QLocale::English, QLocale::UnitedStates)), labels);
}

} // namespace stb

QTEST_GUILESS_MAIN(stb::tst_AxisTicks)
#include "tst_axisticks.moc"
