// The chart widgets themselves, offscreen: what hovering a bin says, drag to zoom and
// double-click to reset (the count axis following), marks on far sparse bins, round tick
// labels, and the message/chart frame all three charts share.
#include "ui/charts/depthchart.h"
#include "ui/charts/histogramchart.h"
#include "ui/charts/overlaychart.h"

#include <QTest>
#include <QToolTip>

#include <cmath>

using namespace Qt::StringLiterals;

namespace stb {

namespace {

// 100 bins over [0, 100): a bulk in bins 0..9 (thousands each), nothing, one value in bin 99.
Histogram withOutlier()
{
    Histogram h { 0, 100, std::vector<std::uint64_t>(100, 0) };
    for (std::size_t i = 0; i < 10; ++i)
        h.counts[i] = 60000 + 500 * i;
    h.counts[99] = 1;
    return h;
}

} // namespace

class tst_HistogramChart : public QObject {
    Q_OBJECT
private slots:
    void initTestCase();
    void toolTipText_data();
    void toolTipText();
    void hoverShowsBin();
    void dragZoomsAndDoubleClickResets();
    void zoomClipsToRange();
    void farSparseBinsMarked();
    void roundTickLabels();
    void overlayToolTipAndZoom();
    void frameShowsMessageOrChart();
};

void tst_HistogramChart::initTestCase()
{
    QLocale::setDefault(QLocale(QLocale::English, QLocale::UnitedStates));
}

void tst_HistogramChart::toolTipText_data()
{
    QTest::addColumn<int>("bin");
    QTest::addColumn<QString>("text");
    QTest::newRow("first") << 0 << u"[0, 1): count 60,000 (9.64%)"_s;
    QTest::newRow("empty bin") << 50 << u"[50, 51): count 0 (0%)"_s;
    QTest::newRow("last, closed") << 99 << u"[99, 100]: count 1 (0.000161%)"_s;
    QTest::newRow("none") << 100 << QString();
    QTest::newRow("negative") << -1 << QString();
}

void tst_HistogramChart::toolTipText()
{
    QFETCH(int, bin);
    QFETCH(QString, text);
    HistogramChart chart;
    chart.setHistogram(withOutlier());
    QCOMPARE(chart.binToolTip(bin), text);
}

void tst_HistogramChart::hoverShowsBin()
{
    HistogramChart chart;
    chart.resize(600, 400);
    chart.setHistogram(withOutlier());
    chart.show();
    QVERIFY(QTest::qWaitForWindowExposed(&chart));
    QTest::mouseMove(chart.canvas(), chart.canvasPoint({ 3.5, 100 }));
    QTRY_COMPARE(QToolTip::text(), chart.binToolTip(3));
    QTest::mouseMove(chart.canvas(), chart.canvasPoint({ 99.5, 100 }));
    QTRY_COMPARE(QToolTip::text(), chart.binToolTip(99));
}

void tst_HistogramChart::dragZoomsAndDoubleClickResets()
{
    HistogramChart chart;
    chart.resize(600, 400);
    chart.setHistogram(withOutlier());
    chart.show();
    QVERIFY(QTest::qWaitForWindowExposed(&chart));
    const double fullTop = chart.countRange().second;
    const QPoint from = chart.canvasPoint({ 20, 100 }), to = chart.canvasPoint({ 100, 100 });
    QTest::mousePress(chart.canvas(), Qt::LeftButton, {}, from);
    QTest::mouseMove(chart.canvas(), (from + to) / 2);
    QTest::mouseMove(chart.canvas(), to);
    QTest::mouseRelease(chart.canvas(), Qt::LeftButton, {}, to);
    QVERIFY(chart.isZoomed());
    const double pixel = 100.0 / chart.canvas()->width() * 2; // a value step per pixel, with room
    QVERIFY2(std::fabs(chart.valueRange().first - 20) < pixel, qPrintable(QString::number(chart.valueRange().first)));
    QVERIFY2(std::fabs(chart.valueRange().second - 100) < pixel, qPrintable(QString::number(chart.valueRange().second)));
    // The count axis fits the bins in view: the one value at 99, not the bulk's 64,500.
    QVERIFY2(chart.countRange().second < 10, qPrintable(QString::number(chart.countRange().second)));
    QVERIFY(chart.countRange().second < fullTop);
    QCOMPARE(chart.seriesCount(), 1);

    // A click is not a zoom.
    const QPoint middle = chart.canvasPoint({ 50, 0.5 });
    QTest::mouseClick(chart.canvas(), Qt::LeftButton, {}, middle);
    QVERIFY(chart.isZoomed());

    QTest::mouseDClick(chart.canvas(), Qt::LeftButton, {}, middle);
    QVERIFY(!chart.isZoomed());
    QCOMPARE(chart.valueRange(), qMakePair(0.0, 100.0));
    QCOMPARE(chart.countRange().second, fullTop);

    // A new histogram shows its whole range.
    chart.zoomTo(10, 20);
    QVERIFY(chart.isZoomed());
    chart.setHistogram(withOutlier());
    QVERIFY(!chart.isZoomed());
}

void tst_HistogramChart::zoomClipsToRange()
{
    HistogramChart chart;
    chart.setHistogram(withOutlier());
    chart.zoomTo(-50, 30);
    QCOMPARE(chart.valueRange(), qMakePair(0.0, 30.0));
    chart.zoomTo(200, 300); // nothing there: unchanged
    QCOMPARE(chart.valueRange(), qMakePair(0.0, 30.0));
    chart.zoomTo(0, 100); // everything: not zoomed
    QVERIFY(!chart.isZoomed());
    chart.resetZoom();
    QCOMPARE(chart.valueRange(), qMakePair(0.0, 100.0));
}

void tst_HistogramChart::farSparseBinsMarked()
{
    HistogramChart chart;
    chart.setHistogram(withOutlier());
    QCOMPARE(chart.markedBins(), std::vector<std::size_t> { 99 });
    QVERIFY2(chart.note().contains(u"far from the bulk"_s), qPrintable(chart.note()));
    QVERIFY2(chart.note().contains(u"Log"_s), qPrintable(chart.note())); // the hint to switch
    chart.setLogarithmic(true);
    QVERIFY(!chart.note().isEmpty());
    QVERIFY(!chart.note().contains(u"Log shows"_s));
    Histogram bulkOnly = withOutlier();
    bulkOnly.counts[99] = 0;
    chart.setHistogram(bulkOnly);
    QVERIFY(chart.markedBins().empty());
    QVERIFY(chart.note().isEmpty());
}

void tst_HistogramChart::roundTickLabels()
{
    HistogramChart chart;
    chart.setHistogram(withOutlier());
    // Counts up to 64,500: SI suffixes, round steps.
    QCOMPARE(chart.countTickLabels(), (QStringList { u"0"_s, u"20k"_s, u"40k"_s, u"60k"_s }));
    QCOMPARE(chart.valueTickLabels(), (QStringList { u"0"_s, u"20"_s, u"40"_s, u"60"_s, u"80"_s, u"100"_s }));
    chart.setLogarithmic(true);
    QCOMPARE(chart.countTickLabels(), (QStringList { u"1"_s, u"10"_s, u"100"_s, u"1,000"_s, u"10k"_s, u"100k"_s }));
    QCOMPARE(chart.countRange().first, 0.5);
    // Integer bins (edges at k - 0.5): ticks stay on whole values.
    chart.setHistogram({ -128.5, 131.5, std::vector<std::uint64_t>(10, 26) });
    QCOMPARE(chart.valueTickLabels(), (QStringList { u"-100"_s, u"-50"_s, u"0"_s, u"50"_s, u"100"_s }));
}

void tst_HistogramChart::overlayToolTipAndZoom()
{
    OverlayChart chart;
    chart.setSeries({ { u"A"_s, Qt::blue, { 0, 4, { 1, 2, 3, 4 } } }, { u"B"_s, Qt::red, { 0, 4, { 4, 3, 2, 1 } } } });
    QCOMPARE(chart.seriesCount(), 2);
    QCOMPARE(chart.toolTipAt(2.5), u"A: [2, 3): 3\nB: [2, 3): 2"_s);
    QCOMPARE(chart.toolTipAt(9), QString());
    chart.zoomTo(1, 3);
    QCOMPARE(chart.valueRange(), qMakePair(1.0, 3.0));
    chart.resetZoom();
    QCOMPARE(chart.valueRange(), qMakePair(0.0, 4.0));
}

// One frame for all three: a message in place of the chart, and back.
void tst_HistogramChart::frameShowsMessageOrChart()
{
    DepthChart depth;
    depth.showMessage(u"select a repeat"_s);
    QCOMPARE(depth.message(), u"select a repeat"_s);
    depth.setData(u"rms"_s, { 0, 1, 2 }, { { u"q"_s, { 1.0, 2.0, 3.0 }, true } }, {});
    QCOMPARE(depth.message(), QString());
    depth.setData(u"rms"_s, { 0, 1, 2 }, { { u"q"_s, { NAN, NAN, NAN }, true } }, {});
    QVERIFY(!depth.message().isEmpty());

    OverlayChart overlay;
    overlay.setTitle(u"A ↔ B"_s);
    overlay.showMessage(u"computing…"_s);
    QCOMPARE(overlay.message(), u"computing…"_s);
    QCOMPARE(overlay.seriesCount(), 0);
    overlay.setSeries({});
    QCOMPARE(overlay.message(), u"No finite values to draw."_s);
}

} // namespace stb

QTEST_MAIN(stb::tst_HistogramChart)
#include "tst_histogramchart.moc"
