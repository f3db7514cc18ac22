#include "ui/values/heatmappane.h"

#include "core/io/scannedpages.h"
#include "core/quant/quantbadge.h"
#include "ui/common/panetitle.h"
#include "ui/common/qtformat.h"
#include "ui/values/heatmapview.h"
#include "ui/values/planeselector.h"

#include <QCheckBox>
#include <QComboBox>
#include <QEvent>
#include <QHBoxLayout>
#include <QLabel>
#include <QProgressBar>
#include <QToolButton>
#include <QVBoxLayout>

using namespace Qt::StringLiterals;

namespace stb {

namespace {

constexpr int kCacheMegabytes = 256;
constexpr int kSettleMs = 150;

} // namespace

HeatmapPane::HeatmapPane(std::shared_ptr<const Checkpoint> checkpoint, QWidget *parent)
    : QWidget(parent)
    , m_checkpoint(std::move(checkpoint))
    , m_raw(new QCheckBox(tr("Raw codes"), this))
    , m_plane(new PlaneSelector(this))
    , m_title(new PaneTitle(this))
    , m_range(new QComboBox(this))
    , m_zoomOut(new QToolButton(this))
    , m_progress(new QProgressBar(this))
    , m_message(new QLabel(this))
    , m_view(new HeatmapView(this))
    , m_cache(kCacheMegabytes)
{
    auto *layout = new QVBoxLayout(this);
    layout->setContentsMargins(8, 6, 8, 6);
    // The tensor, the controls, and the region each on a line of their own: each one line at any
    // width (a label that wrapped would change the map's height); the name is elided in the
    // middle rather than cut (beside the controls, a 1024 px window left it "model.la…6, 4096]").
    auto *top = new QHBoxLayout;
    auto *second = new QHBoxLayout;
    // Ignored: a long message must not widen the pane (a wider pane means a new summary).
    m_message->setSizePolicy(QSizePolicy::Ignored, QSizePolicy::Preferred);
    second->addWidget(m_message, 1);
    second->addWidget(m_progress);
    m_raw->setToolTip(tr("A quantized weight's stored codes instead of its dequantized values"));
    m_raw->hide();
    top->addWidget(m_raw);
    top->addWidget(new QLabel(tr("Colours:"), this));
    m_range->addItem(tr("Auto"));
    m_range->addItem(tr("Symmetric"), QVariant::fromValue(int(ColourRange::Symmetric)));
    m_range->addItem(tr("Min to max"), QVariant::fromValue(int(ColourRange::MinMax)));
    m_range->addItem(tr("Clip at %1%").arg(kClipPercentile), QVariant::fromValue(int(ColourRange::Clipped)));
    m_range->setToolTip(tr("The range of the colour bar, from the cells' means. Symmetric: ±max |mean| "
                           "around 0 for signed data. Min to max: each side of 0 to its own extreme. "
                           "Clip: the %1th percentile of |mean|, so a few outlying cells do not wash "
                           "the rest out (values beyond take the end colours). Auto clips when "
                           "outliers would wash the picture out, else is symmetric.")
                            .arg(kClipPercentile));
    top->addWidget(m_range);
    m_zoomOut->setText(tr("Zoom Out"));
    m_zoomOut->setToolTip(tr("Back to the view before the last zoom (drag over the map to zoom in)"));
    m_zoomOut->setEnabled(false);
    top->addWidget(m_zoomOut);
    top->addStretch(1);
    layout->addWidget(m_title);
    layout->addLayout(top);
    layout->addLayout(second);
    layout->addWidget(m_plane);
    layout->addWidget(m_view, 1);
    m_progress->setRange(0, 1000);
    m_progress->setMaximumWidth(120);
    m_progress->hide();
    m_refreshTimer.setSingleShot(true);
    m_refreshTimer.setInterval(kSettleMs);

    connect(&m_refreshTimer, &QTimer::timeout, this, &HeatmapPane::refresh);
    connect(m_plane, &PlaneSelector::planeChanged, this, &HeatmapPane::planeChanged);
    connect(m_range, &QComboBox::currentIndexChanged, this, &HeatmapPane::applyRange);
    connect(m_zoomOut, &QToolButton::clicked, this, &HeatmapPane::zoomOut);
    connect(m_raw, &QCheckBox::toggled, this, &HeatmapPane::reload);
    connect(&m_job, &JobTrackerBase::progressChanged, m_progress, &QProgressBar::setValue);
    connect(m_view, &HeatmapView::regionSelected, this,
        [this](std::uint32_t i0, std::uint32_t i1, std::uint32_t j0, std::uint32_t j1) {
            const HeatmapSummary *s = m_view->summary();
            const Region &at = m_regions.back();
            zoomTo(at.r0 + s->rowBegin(i0), at.r0 + s->rowBegin(i1 + 1), at.c0 + s->colBegin(j0),
                at.c0 + s->colBegin(j1 + 1));
        });
    connect(m_view, &HeatmapView::cellClicked, this, [this](std::uint32_t i, std::uint32_t j) {
        const HeatmapSummary *s = m_view->summary();
        const StridedView view = regionView();
        const auto matrix = asMatrix(view);
        if (matrix)
            emit elementActivated(
                view.base + s->rowBegin(i) * matrix->rowStride + s->colBegin(j) * matrix->colStride);
    });
}

HeatmapPane::~HeatmapPane() = default;

void HeatmapPane::showTensor(const Checkpoint::Tensor *tensor)
{
    if (tensor == m_tensor && tensor)
        return;
    m_tensor = tensor;
    reload();
}

void HeatmapPane::setQuantView(std::shared_ptr<const QuantView> view)
{
    m_quant = std::move(view);
    reload();
}

void HeatmapPane::reload()
{
    const Checkpoint::Tensor *tensor = m_tensor;
    m_job.cancel();
    m_dequantized.reset();
    m_raw->hide();
    const SafetensorsFile *file = tensor ? m_checkpoint->fileOf(*tensor) : nullptr;
    if (!file || !file->fullyReadable(*tensor->info)) {
        m_tensor = nullptr;
        m_plane->setShape({});
        m_plane->hide();
        m_regions.clear();
        m_view->clear();
        m_progress->hide();
        m_title->setTitle(tensor ? shownName(tensor->info->name) : QString());
        m_message->setText(
            tensor ? tr("The tensor's bytes are not in the file") : tr("Select a tensor to see its heatmap"));
        return;
    }
    // A recognised, decodable quantized weight: its dequantized values unless raw codes are asked for.
    const auto tensorIndex = static_cast<std::size_t>(tensor - m_checkpoint->tensors().data());
    const auto dequantized = m_quant ? dequantizedTensor(*m_checkpoint, *m_quant, tensorIndex) : std::nullopt;
    m_raw->setVisible(dequantized.has_value());
    if (dequantized && !m_raw->isChecked()) {
        m_dequantized = dequantized;
        const QuantizedWeight &w = *dequantized->weight;
        m_title->setTitle(tr("%1 — dequantized %2 %3")
                              .arg(shownName(w.name), toQString(quantBadge(w)), shapeText(w.logicalShape)));
        m_plane->setShape(w.logicalShape);
    } else {
        m_title->setTitle(tr("%1  %2 %3")
                              .arg(shownName(tensor->info->name), toQString(dtypeName(tensor->info->dtype)),
                                  shapeText(tensor->info->shape)));
        m_plane->setShape(tensor->info->shape);
    }
    planeChanged();
}

void HeatmapPane::planeChanged()
{
    const auto matrix = asMatrix(m_plane->view());
    m_regions = { Region { 0, matrix ? matrix->rows : 0, 0, matrix ? matrix->cols : 0 } };
    m_zoomOut->setEnabled(false);
    m_view->clear();
    m_shownKey.clear();
    refreshNow();
}

void HeatmapPane::zoomTo(std::uint64_t r0, std::uint64_t r1, std::uint64_t c0, std::uint64_t c1)
{
    if (!m_tensor || r1 <= r0 || c1 <= c0)
        return;
    m_regions.push_back({ r0, r1, c0, c1 });
    m_zoomOut->setEnabled(true);
    refreshNow();
}

void HeatmapPane::zoomOut()
{
    if (m_regions.size() <= 1)
        return;
    m_regions.pop_back();
    m_zoomOut->setEnabled(m_regions.size() > 1);
    refreshNow();
}

StridedView HeatmapPane::regionView() const
{
    StridedView view = m_plane->view();
    const auto matrix = asMatrix(view);
    if (!matrix || m_regions.empty())
        return view;
    const Region &region = m_regions.back();
    view.base += region.r0 * matrix->rowStride + region.c0 * matrix->colStride;
    if (view.axes.size() == 2) {
        view.axes[0].count = region.r1 - region.r0;
        view.axes[1].count = region.c1 - region.c0;
    } else if (view.axes.size() == 1) {
        view.axes[0].count = region.c1 - region.c0;
    }
    return view;
}

QString HeatmapPane::cacheKey(const StridedView &view, std::uint32_t rows, std::uint32_t cols) const
{
    QString key = u"%1%2:%3:%4x%5"_s.arg(m_dequantized ? u"dq:"_s : QString())
                      .arg(quintptr(m_tensor->info))
                      .arg(view.base)
                      .arg(rows)
                      .arg(cols);
    for (const ViewAxis &axis : view.axes)
        key += u":%1/%2"_s.arg(axis.count).arg(axis.stride);
    return key;
}

void HeatmapPane::refreshNow()
{
    m_refreshTimer.stop();
    refresh();
}

void HeatmapPane::refresh()
{
    if (!m_tensor || !isVisible())
        return;
    const StridedView view = regionView();
    const QRect area = m_view->cellArea();
    // One cell per pixel, at most the plane's own resolution (summarizeHeatmap clamps).
    const auto rows = static_cast<std::uint32_t>(std::clamp(area.height(), 1, int(kMaxHeatmapSide)));
    const auto cols = static_cast<std::uint32_t>(std::clamp(area.width(), 1, int(kMaxHeatmapSide)));
    const QString key = cacheKey(view, rows, cols);
    if (key == m_shownKey && m_view->summary())
        return; // already on screen (a resize that kept the size in cells)
    if (const auto *cached = m_cache.object(key)) {
        m_job.cancel();
        m_progress->hide();
        m_shownKey = key;
        showSummary(*cached);
        return;
    }
    const auto file = m_checkpoint->shards()[m_tensor->shard];
    const TensorInfo *info = m_tensor->info;
    m_progress->setValue(0);
    m_progress->show();
    m_message->setText(tr("Summarising %1 values…").arg(countText(view.elementCount())));
    std::shared_ptr<const Dequantizer> dequantizer = m_dequantized ? m_dequantized->dequantizer : nullptr;
    m_job.start(
        // A Dequantizer points into the mappings, which the checkpoint held here keeps alive.
        [checkpoint = m_checkpoint, dequantizer, file, info, view, rows, cols](
            std::stop_token stop, const JobProgress &progress) -> std::optional<HeatmapSummary> {
            std::string error;
            if (dequantizer)
                return summarizeDequantizedHeatmap(*dequantizer, view, rows, cols, error, stop, progress);
            const ScannedPages pages(file->mapping(), file->tensorBytes(*info)); // cached before stays
            auto summary = summarizeHeatmap(
                info->dtype, file->tensorBytes(*info), view, rows, cols, error, stop, progress);
            pages.release();
            return summary;
        },
        [this, key](std::optional<HeatmapSummary> result) {
            m_progress->hide();
            if (!result) {
                m_view->clear();
                m_message->setText(tr("The tensor could not be read (the file changed on disk)"));
                return;
            }
            auto summary = std::make_shared<const HeatmapSummary>(std::move(*result));
            const int cost = std::max(1, int(summary->mean.size() * 48 / (1 << 20)));
            m_cache.insert(key, new std::shared_ptr<const HeatmapSummary>(summary), cost);
            m_shownKey = key;
            showSummary(summary);
        });
}

void HeatmapPane::showSummary(std::shared_ptr<const HeatmapSummary> summary)
{
    const Region &region = m_regions.back();
    m_message->setText(tr("rows %1–%2, columns %3–%4 in %5×%6 cells")
                           .arg(region.r0)
                           .arg(region.r1 ? region.r1 - 1 : 0)
                           .arg(region.c0)
                           .arg(region.c1 ? region.c1 - 1 : 0)
                           .arg(summary->cellRows)
                           .arg(summary->cellCols));
    m_shownRange = rangeFor(*summary);
    m_view->setOrigin(region.r0, region.c0);
    m_view->setSummary(std::move(summary), m_shownRange);
    emit summaryShown();
}

ColourRange HeatmapPane::rangeFor(const HeatmapSummary &summary) const
{
    const QVariant chosen = m_range->currentData();
    return chosen.isValid() ? ColourRange(chosen.toInt()) : defaultColourRange(summary);
}

void HeatmapPane::applyRange()
{
    if (const HeatmapSummary *summary = m_view->summary()) {
        m_shownRange = rangeFor(*summary);
        m_view->setRange(m_shownRange);
    }
}

QString HeatmapPane::titleText() const
{
    return m_title->shownText();
}

QString HeatmapPane::messageText() const
{
    return m_message->text();
}

void HeatmapPane::resizeEvent(QResizeEvent *event)
{
    QWidget::resizeEvent(event);
    if (m_tensor)
        m_refreshTimer.start();
}

void HeatmapPane::showEvent(QShowEvent *event)
{
    QWidget::showEvent(event);
    if (m_tensor && !m_view->summary())
        m_refreshTimer.start();
}

} // namespace stb
