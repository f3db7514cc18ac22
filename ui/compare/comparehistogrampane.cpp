#include "ui/compare/comparehistogrampane.h"

#include "ui/charts/chartpalette.h"
#include "ui/charts/histogramchart.h"
#include "ui/charts/overlaychart.h"
#include "ui/common/qtformat.h"

#include <QLabel>
#include <QProgressBar>
#include <QVBoxLayout>

#include <algorithm>

using namespace Qt::StringLiterals;

namespace stb {

namespace {

constexpr unsigned kBins = 64;

// A side's bytes when the file holds all of them; a missing or truncated side is left out.
DiffSide sideOf(const Checkpoint &checkpoint, const Checkpoint::Tensor *tensor)
{
    if (!tensor)
        return {};
    const SafetensorsFile *file = checkpoint.fileOf(*tensor);
    if (!file || !file->fullyReadable(*tensor->info))
        return {};
    return { tensor->info->dtype, file->tensorBytes(*tensor->info), *tensor->info->elementCount() };
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
    connect(&m_job, &JobTrackerBase::progressChanged, this, [this](int value) {
        m_progress->setValue(value);
        m_progress->show();
    });
}

void CompareHistogramPane::stop()
{
    m_job.cancel();
    m_progress->hide();
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
    if (!m_result->comparison.pairs[pair].readable) {
        clear(tr("The values cannot be read (see the details)."));
        return;
    }
    m_overlay->showMessage(tr("Reading values…"));
    m_diff->clear();
    // The result holds both checkpoints, so the pair's bytes outlive the job.
    m_job.start(
        [result = m_result, pair](std::stop_token stop, const JobProgress &progress) {
            const TensorPair &p = result->comparison.pairs[pair];
            return diffHistograms(
                sideOf(*result->a, p.a), sideOf(*result->b, p.b), kBins, stop, progress);
        },
        [this, pair](std::optional<DiffHistograms> histograms) {
            m_progress->hide();
            if (!histograms) {
                m_overlay->showMessage(tr("The values could not be read: the file changed on disk."));
                return;
            }
            show(*histograms, m_result->comparison.pairs[pair]);
        });
}

void CompareHistogramPane::show(const DiffHistograms &histograms, const TensorPair &pair)
{
    m_histograms = histograms;
    m_shown = true;
    std::vector<OverlayChart::Series> series;
    if (pair.a)
        series.push_back({ tr("A"), seriesColor(0, palette()), histograms.a });
    if (pair.b)
        series.push_back({ tr("B"), seriesColor(1, palette()), histograms.b });
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
