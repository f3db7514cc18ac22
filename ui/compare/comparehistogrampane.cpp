#include "ui/compare/comparehistogrampane.h"

#include "ui/charts/histogramchart.h"
#include "ui/charts/overlaychart.h"
#include "ui/common/qtformat.h"

#include <QFutureWatcher>
#include <QLabel>
#include <QProgressBar>
#include <QPromise>
#include <QVBoxLayout>
#include <QtConcurrent>

#include <algorithm>

using namespace Qt::StringLiterals;

namespace stb {

namespace {

constexpr unsigned kBins = 64;
using Watcher = QFutureWatcher<DiffHistograms>;

// A side's bytes when the file holds all of them; a missing or truncated side is left out.
DiffSide sideOf(const Checkpoint &checkpoint, const Checkpoint::Tensor *tensor)
{
    if (!tensor)
        return {};
    const SafetensorsFile *file = checkpoint.fileOf(*tensor);
    const auto expected = tensor->info->expectedBytes();
    if (!file || !expected || !file->complete(*tensor->info))
        return {};
    const auto bytes = file->tensorBytes(*tensor->info);
    if (bytes.size() != *expected)
        return {};
    return { tensor->info->dtype, bytes, tensor->info->elementCount().value_or(0) };
}

void histogramJob(
    QPromise<DiffHistograms> &promise, std::shared_ptr<const CompareResult> result, std::size_t index)
{
    promise.setProgressRange(0, 1000);
    const TensorPair &pair = result->comparison.pairs[index];
    std::atomic<bool> cancel { false };
    int last = -1;
    const auto progress = [&](std::uint64_t done, std::uint64_t total) {
        if (promise.isCanceled())
            cancel.store(true, std::memory_order_relaxed);
        const int permille
            = total ? static_cast<int>(1000 * std::min<double>(1.0, double(done) / double(total))) : 0;
        if (permille > last)
            promise.setProgressValue(last = permille);
    };
    auto histograms
        = diffHistograms(sideOf(*result->a, pair.a), sideOf(*result->b, pair.b), kBins, &cancel, progress);
    if (histograms && !promise.isCanceled())
        promise.addResult(std::move(*histograms));
}

} // namespace

CompareHistogramPane::CompareHistogramPane(QWidget *parent)
    : QWidget(parent)
    , m_overlay(new OverlayChart(this))
    , m_diff(new HistogramChart(this))
    , m_diffCaption(new QLabel(this))
    , m_progress(new QProgressBar(this))
{
    auto *layout = new QVBoxLayout(this);
    layout->setContentsMargins(4, 4, 4, 4);
    m_overlay->setTitle(tr("Values of A and B"));
    m_progress->setRange(0, 1000);
    m_progress->setTextVisible(false);
    m_progress->setMaximumHeight(6);
    m_progress->hide();
    m_diffCaption->setWordWrap(true);
    layout->addWidget(m_progress);
    layout->addWidget(m_overlay, 1);
    layout->addWidget(m_diffCaption);
    layout->addWidget(m_diff, 1);
    clear(tr("Select a tensor to see its values."));
}

CompareHistogramPane::~CompareHistogramPane()
{
    stop();
    for (auto *watcher : findChildren<Watcher *>())
        watcher->waitForFinished();
}

void CompareHistogramPane::stop()
{
    ++m_generation;
    m_computing = false;
    m_progress->hide();
    for (auto *watcher : findChildren<Watcher *>())
        watcher->cancel();
}

void CompareHistogramPane::clear(const QString &text)
{
    stop();
    m_shown = false;
    m_overlay->showMessage(text);
    m_diff->clear();
    m_diffCaption->setText(tr("<b>a − b</b>"));
}

void CompareHistogramPane::showPair(std::shared_ptr<const CompareResult> result, std::size_t pair)
{
    stop();
    m_result = std::move(result);
    m_shown = false;
    m_computing = true;
    m_overlay->showMessage(tr("Reading values…"));
    m_diff->clear();
    const quint64 generation = m_generation;
    auto *watcher = new Watcher(this);
    connect(watcher, &Watcher::progressValueChanged, this, [this, generation](int value) {
        if (generation != m_generation)
            return;
        m_progress->setValue(value);
        m_progress->show();
    });
    connect(watcher, &Watcher::finished, this, [this, watcher, generation, pair] {
        watcher->deleteLater();
        if (generation != m_generation)
            return;
        m_computing = false;
        m_progress->hide();
        if (watcher->future().resultCount() == 0) {
            m_overlay->showMessage(tr("The values could not be read: the file changed on disk."));
            return;
        }
        show(watcher->future().result(), m_result->comparison.pairs[pair]);
    });
    watcher->setFuture(QtConcurrent::run(&histogramJob, m_result, pair));
}

void CompareHistogramPane::show(const DiffHistograms &histograms, const TensorPair &pair)
{
    m_histograms = histograms;
    m_shown = true;
    std::vector<OverlayChart::Series> series;
    if (pair.a)
        series.push_back({ tr("A"), QColor(0x4a, 0x86, 0xc5), histograms.a });
    if (pair.b)
        series.push_back({ tr("B"), QColor(0xe6, 0x7e, 0x22), histograms.b });
    m_overlay->setSeries(series);
    // a − b only means something element by element when the shapes agree (core measured it).
    if (!pair.metrics || histograms.diffCount == 0) {
        m_diffCaption->setText(tr("<b>a − b</b>: only defined for two tensors of the same shape."));
        m_diff->clear();
    } else {
        m_diffCaption->setText(
            tr("<b>a − b</b> over %1 elements finite on both sides").arg(countText(histograms.diffCount)));
        m_diff->setHistogram(histograms.diff);
    }
    emit histogramsShown();
}

QString CompareHistogramPane::diffCaption() const
{
    return m_diffCaption->text();
}

} // namespace stb
