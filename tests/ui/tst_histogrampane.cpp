#include "ui/charts/histogramchart.h"
#include "ui/common/qtformat.h"
#include "ui/document/checkpointview.h"
#include "ui/histogram/histogrampane.h"

#include "core/io/checkpoint.h"
#include "core/stats/tensoranalyzer.h"
#include "tests/support/testfiles.h"

#include <QCheckBox>
#include <QComboBox>
#include <QFile>
#include <QSignalSpy>
#include <QStandardPaths>
#include <QTemporaryDir>
#include <QTest>

#include <cmath>
#include <cstring>
#include <limits>
#include <random>

using namespace Qt::StringLiterals;
using namespace stb;

namespace {

std::vector<std::byte> floats(const std::vector<float> &values)
{
    std::vector<std::byte> out(values.size() * sizeof(float));
    std::memcpy(out.data(), values.data(), out.size());
    return out;
}

std::vector<float> normal(std::size_t n, unsigned seed, float sigma = 1.0f)
{
    std::mt19937 engine(seed);
    std::normal_distribution<float> dist(0.0f, sigma);
    std::vector<float> v(n);
    for (auto &x : v)
        x = dist(engine);
    return v;
}

bool same(double a, double b)
{
    return (std::isnan(a) && std::isnan(b)) || a == b;
}

} // namespace

// The Histogram tab: selection to statistics equal to core's, the chart replaced (never
// accumulated), bins, log scale, the cache, broken files, computing only when shown.
class tst_HistogramPane : public QObject {
    Q_OBJECT

private slots:
    void initTestCase();
    void init();
    void groupOrNothingExplains();
    void statisticsEqualCore();
    void selectionChangeReplacesChart();
    void binsChangeRecomputes();
    void goingBackIsACacheHit();
    void logToggle();
    void constantTensorHasNoSpread();
    void brokenTensorIsNotScanned();
    void computesOnlyWhenShown();
    void chartReplacesSeries();
    void screenshot();

private:
    TensorAnalysis expected(const QString &name, unsigned bins) const;
    void waitForAnalysisOf(const QString &name);

    QTemporaryDir m_dir;
    QString m_path;
    QString m_broken;
    std::shared_ptr<const Checkpoint> m_checkpoint;
    std::unique_ptr<CheckpointView> m_view;
    HistogramPane *m_pane = nullptr;
};

void tst_HistogramPane::initTestCase()
{
    QStandardPaths::setTestModeEnabled(true);
    QVERIFY(m_dir.isValid());
    constexpr float nan = std::numeric_limits<float>::quiet_NaN();
    constexpr float inf = std::numeric_limits<float>::infinity();
    std::vector<float> mixed = normal(1000, 2);
    for (int i : { 3, 70, 500 })
        mixed[i] = nan;
    mixed[10] = inf;
    mixed[11] = -inf;
    mixed[12] = -inf;
    for (int i = 100; i < 120; ++i)
        mixed[i] = 0.0f;
    const std::vector<TensorSpec> specs
        = { { "model.a.weight", DType::F32, { 64, 64 } }, { "model.b.mixed", DType::F32, { 1000 } },
              { "model.c.const", DType::F32, { 16 } }, { "model.d.big", DType::F32, { 1 << 21 } } };
    const std::vector<std::vector<std::byte>> data = { floats(normal(4096, 1)), floats(mixed),
        floats(std::vector<float>(16, 3.0f)), floats(normal(1 << 21, 3, 0.02f)) };
    std::string error;
    m_path = m_dir.filePath(u"model.safetensors"_s);
    QVERIFY2(writeFile(m_path.toStdString(), specs, data, {}, error), error.c_str());
    m_checkpoint = Checkpoint::open(m_path.toStdString(), error);
    QVERIFY2(m_checkpoint, error.c_str());

    // The same file cut 1,000 bytes short: the last tensor in the data region lacks its tail.
    m_broken = m_dir.filePath(u"broken.safetensors"_s);
    QVERIFY(QFile::copy(m_path, m_broken));
    QFile broken(m_broken);
    QVERIFY(broken.resize(QFileInfo(m_path).size() - 1000));
}

void tst_HistogramPane::init()
{
    m_view = std::make_unique<CheckpointView>(m_checkpoint, u"model.safetensors"_s);
    m_view->resize(1000, 600);
    m_view->setCurrentPane(CheckpointView::HistogramTab);
    m_view->show();
    m_pane = m_view->histogramPane();
    m_pane->setBins(64);
    m_pane->setLogarithmic(false);
}

TensorAnalysis tst_HistogramPane::expected(const QString &name, unsigned bins) const
{
    for (const auto &t : m_checkpoint->tensors()) {
        if (toQString(t.info->name) == name) {
            const auto bytes = m_checkpoint->fileOf(t)->tensorBytes(*t.info);
            return *analyzeTensor(t.info->dtype, bytes, *t.info->elementCount(), AnalysisOptions { bins, 0 });
        }
    }
    qFatal("no tensor %s", qPrintable(name));
}

void tst_HistogramPane::waitForAnalysisOf(const QString &name)
{
    QVERIFY(m_view->selectPath(name));
    QTRY_VERIFY_WITH_TIMEOUT(m_pane->analysis() && !m_pane->isComputing(), 20'000);
}

void tst_HistogramPane::groupOrNothingExplains()
{
    QVERIFY(!m_pane->analysis());
    QVERIFY(m_pane->messageText().contains(u"Select a tensor"_s));
    QVERIFY(m_view->selectPath(u"model"_s));
    QVERIFY(m_pane->messageText().contains(u"Select a tensor"_s));
    QCOMPARE(m_pane->jobsStarted(), 0);
    QCOMPARE(m_pane->chart()->seriesCount(), 0);
}

void tst_HistogramPane::statisticsEqualCore()
{
    waitForAnalysisOf(u"model.b.mixed"_s);
    const TensorAnalysis want = expected(u"model.b.mixed"_s, 64);
    const TensorAnalysis &got = *m_pane->analysis();
    QCOMPARE(got.stats.count, want.stats.count);
    QCOMPARE(got.stats.nan, 3u);
    QCOMPARE(got.stats.nan, want.stats.nan);
    QCOMPARE(got.stats.posInf, 1u);
    QCOMPARE(got.stats.negInf, 2u);
    QCOMPARE(got.stats.zeros, want.stats.zeros);
    for (auto [a, b] : { std::pair { got.stats.min, want.stats.min }, { got.stats.max, want.stats.max },
             { got.stats.mean, want.stats.mean }, { got.stats.std, want.stats.std },
             { got.stats.absMax, want.stats.absMax } })
        QVERIFY2(same(a, b), qPrintable(u"%1 vs %2"_s.arg(a).arg(b)));
    QCOMPARE(got.histogram.counts, want.histogram.counts);
    QCOMPARE(got.outliers, want.outliers);
    QCOMPARE(got.digest, want.digest);

    QCOMPARE(m_pane->statisticText(HistogramPane::NaNs), countText(3));
    QCOMPARE(m_pane->statisticText(HistogramPane::NegInf), countText(2));
    QCOMPARE(m_pane->statisticText(HistogramPane::Zeros), countText(want.stats.zeros));
    QCOMPARE(m_pane->statisticText(HistogramPane::Max), QLocale().toString(want.stats.max, 'g', 7));
    QCOMPARE(m_pane->statisticText(HistogramPane::Digest), toQString(want.digest->hex()));
    QCOMPARE(m_pane->chart()->barCount(), 64);
    QCOMPARE(m_pane->chart()->seriesCount(), 1);
    QCOMPARE(m_pane->chart()->valueRange().first, want.histogram.lo);
}

void tst_HistogramPane::selectionChangeReplacesChart()
{
    // The big tensor's scan is cancelled by the next selection; its result, if any, is dropped.
    QVERIFY(m_view->selectPath(u"model.d.big"_s));
    QVERIFY(m_pane->isComputing());
    waitForAnalysisOf(u"model.a.weight"_s);
    QCOMPARE(m_pane->jobsStarted(), 2);
    QCOMPARE(m_pane->analysis()->digest, expected(u"model.a.weight"_s, 64).digest);
    // Once the cancelled scan has returned, any straggler of it would have arrived.
    QTRY_VERIFY_WITH_TIMEOUT(m_pane->jobs().isIdle(), 60000);
    QCOMPARE(m_pane->analysis()->digest, expected(u"model.a.weight"_s, 64).digest);
    QCOMPARE(m_pane->chart()->seriesCount(), 1);

    waitForAnalysisOf(u"model.b.mixed"_s);
    QCOMPARE(m_pane->analysis()->stats.count, 1000u);
    QCOMPARE(m_pane->chart()->seriesCount(), 1);
    QCOMPARE(m_pane->chart()->histogram().counts, expected(u"model.b.mixed"_s, 64).histogram.counts);
}

void tst_HistogramPane::binsChangeRecomputes()
{
    waitForAnalysisOf(u"model.a.weight"_s);
    const int jobs = m_pane->jobsStarted();
    m_pane->binsBox()->setCurrentIndex(m_pane->binsBox()->findData(32u));
    QCOMPARE(m_pane->bins(), 32u);
    QTRY_VERIFY(m_pane->analysis() && m_pane->analysis()->histogram.counts.size() == 32);
    QCOMPARE(m_pane->jobsStarted(), jobs + 1);
    QCOMPARE(m_pane->chart()->barCount(), 32);
    QCOMPARE(m_pane->chart()->seriesCount(), 1);
    QCOMPARE(m_pane->analysis()->histogram.counts, expected(u"model.a.weight"_s, 32).histogram.counts);
    m_pane->setBins(1000);
    QTRY_VERIFY(m_pane->analysis() && m_pane->analysis()->histogram.counts.size() == 1000);
    QCOMPARE(m_pane->chart()->barCount(), 1000);
    m_pane->setBins(32); // back: cached
    QVERIFY(m_pane->analysis());
    QCOMPARE(m_pane->jobsStarted(), jobs + 2);
}

void tst_HistogramPane::goingBackIsACacheHit()
{
    waitForAnalysisOf(u"model.a.weight"_s);
    waitForAnalysisOf(u"model.b.mixed"_s);
    const int jobs = m_pane->jobsStarted();
    QSignalSpy shown(m_pane, &HistogramPane::analysisShown);
    QVERIFY(m_view->selectPath(u"model.a.weight"_s));
    QCOMPARE(shown.count(), 1); // at once, no event loop in between
    QVERIFY(!m_pane->isComputing());
    QCOMPARE(m_pane->jobsStarted(), jobs);
    QCOMPARE(m_pane->analysis()->stats.count, 4096u);
    QVERIFY(m_pane->cache().size() >= 2);
}

void tst_HistogramPane::logToggle()
{
    waitForAnalysisOf(u"model.b.mixed"_s);
    const double peak = *std::max_element(
        m_pane->analysis()->histogram.counts.begin(), m_pane->analysis()->histogram.counts.end());
    QCOMPARE(m_pane->chart()->countRange().first, 0.0);
    m_pane->logToggle()->click();
    QVERIFY(m_pane->isLogarithmic());
    QVERIFY(m_pane->chart()->isLogarithmic());
    // Empty bins cannot sit at 0 on a log axis: the floor is half a count, the top above the peak.
    QCOMPARE(m_pane->chart()->countRange().first, 0.5);
    QVERIFY(m_pane->chart()->countRange().second >= peak);
    QCOMPARE(m_pane->chart()->seriesCount(), 1);
    QVERIFY(!m_pane->grab().isNull());
    m_pane->logToggle()->click();
    QVERIFY(!m_pane->chart()->isLogarithmic());
    QCOMPARE(m_pane->chart()->countRange().first, 0.0);
}

void tst_HistogramPane::constantTensorHasNoSpread()
{
    waitForAnalysisOf(u"model.c.const"_s);
    QCOMPARE(m_pane->analysis()->stats.min, 3.0);
    QVERIFY(m_pane->analysis()->histogram.empty());
    QVERIFY2(m_pane->messageText().contains(u"equal"_s), qPrintable(m_pane->messageText()));
    QCOMPARE(m_pane->chart()->seriesCount(), 0);
}

void tst_HistogramPane::brokenTensorIsNotScanned()
{
    std::string error;
    auto broken = Checkpoint::open(m_broken.toStdString(), error);
    QVERIFY2(broken, error.c_str());
    CheckpointView view(broken, u"broken"_s);
    view.setCurrentPane(CheckpointView::HistogramTab);
    // The writer puts tensors in name order within a dtype: the big one is last in the file.
    QVERIFY(view.selectPath(u"model.d.big"_s));
    QVERIFY2(view.histogramPane()->messageText().contains(u"not all in the file"_s),
        qPrintable(view.histogramPane()->messageText()));
    QCOMPARE(view.histogramPane()->jobsStarted(), 0);
    QVERIFY(view.selectPath(u"model.a.weight"_s));
    QTRY_VERIFY(view.histogramPane()->analysis());
}

void tst_HistogramPane::computesOnlyWhenShown()
{
    m_view->setCurrentPane(CheckpointView::OverviewTab);
    QVERIFY(m_view->selectPath(u"model.a.weight"_s));
    QVERIFY(m_view->selectPath(u"model.b.mixed"_s));
    QCOMPARE(m_pane->jobsStarted(), 0);
    m_view->setCurrentPane(CheckpointView::HistogramTab);
    QCOMPARE(m_pane->jobsStarted(), 1);
    QTRY_VERIFY(m_pane->analysis());
    QCOMPARE(m_pane->analysis()->stats.count, 1000u);

    // Leaving the tab mid-scan stops it; coming back starts it again.
    QVERIFY(m_view->selectPath(u"model.d.big"_s));
    QVERIFY(m_pane->isComputing());
    m_view->setCurrentPane(CheckpointView::OverviewTab);
    QVERIFY(!m_pane->isComputing());
    m_view->setCurrentPane(CheckpointView::HistogramTab);
    QTRY_VERIFY_WITH_TIMEOUT(m_pane->analysis() && m_pane->analysis()->stats.count == (1u << 21), 20'000);
}

void tst_HistogramPane::chartReplacesSeries()
{
    HistogramChart chart;
    Histogram h { -1.0, 1.0, { 1, 0, 5, 2 } };
    for (int i = 0; i < 5; ++i) {
        chart.setHistogram(h);
        chart.setLogarithmic(i % 2);
        QCOMPARE(chart.seriesCount(), 1);
    }
    QCOMPARE(chart.barCount(), 4);
    QCOMPARE(chart.valueRange(), qMakePair(-1.0, 1.0));
    chart.clear();
    QCOMPARE(chart.seriesCount(), 0);
}

// STB_SCREENSHOT_DIR=dir saves dir/histogram.png: the pane on a tensor with NaN and Inf.
void tst_HistogramPane::screenshot()
{
    const QString dir = qEnvironmentVariable("STB_SCREENSHOT_DIR");
    if (dir.isEmpty())
        QSKIP("set STB_SCREENSHOT_DIR to save a screenshot");
    m_view->resize(1200, 640);
    waitForAnalysisOf(u"model.b.mixed"_s);
    QTest::qWait(100); // the chart lays its axes out on the next event loop pass
    QVERIFY(m_view->grab().save(dir + u"/histogram.png"_s));
    m_pane->setLogarithmic(true);
    QTest::qWait(100);
    QVERIFY(m_view->grab().save(dir + u"/histogram-log.png"_s));
}

QTEST_MAIN(tst_HistogramPane)
#include "tst_histogrampane.moc"
