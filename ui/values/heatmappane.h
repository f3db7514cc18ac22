#pragma once

#include "core/io/checkpoint.h"
#include "core/quant/dequantvalues.h"
#include "core/values/colourscale.h"
#include "core/values/heatmap.h"
#include "ui/common/jobtracker.h"

#include <QCache>
#include <QTimer>
#include <QWidget>

#include <memory>
#include <vector>

class QCheckBox;
class QComboBox;
class QLabel;
class QProgressBar;
class QToolButton;

namespace stb {

class HeatmapView;
class PaneTitle;
class PlaneSelector;

// The Heatmap tab: the selected tensor (a 2-D plane of it; a 1-D tensor is a strip) summarised
// into one cell per pixel of the pane in the background (cancelled when the selection changes,
// cached), drawn by HeatmapView. Dragging zooms into a region (recomputed at the finer
// resolution), Zoom Out goes back; a click opens that element in the Values pane. A recognised
// quantized weight is summarised from its dequantized values in its logical shape unless "Raw
// codes" is ticked.
class HeatmapPane : public QWidget {
    Q_OBJECT
public:
    explicit HeatmapPane(std::shared_ptr<const Checkpoint> checkpoint, QWidget *parent = nullptr);
    ~HeatmapPane() override;

    void showTensor(const Checkpoint::Tensor *tensor);
    // The checkpoint's quantization (see ValuesPane::setQuantView); null: every tensor as stored.
    void setQuantView(std::shared_ptr<const QuantView> view);
    QCheckBox *rawCodesToggle() const { return m_raw; }
    bool showsDequantized() const { return m_dequantized.has_value(); }
    // Zooms into rows [r0, r1) × columns [c0, c1) of the current plane.
    void zoomTo(std::uint64_t r0, std::uint64_t r1, std::uint64_t c0, std::uint64_t c1);
    void zoomOut();
    // Computes now (what a resize or a change schedules) rather than after the pause.
    void refreshNow();

    HeatmapView *view() const { return m_view; }
    PlaneSelector *planeSelector() const { return m_plane; }
    // Auto (clipped when outliers would wash the picture out), symmetric, min…max or clipped.
    QComboBox *rangeBox() const { return m_range; }
    // The range the summary on screen is drawn with (Auto resolved).
    ColourRange shownRange() const { return m_shownRange; }
    QString titleText() const;
    bool isComputing() const { return m_job.isRunning(); }
    int zoomDepth() const { return int(m_regions.size()) - 1; }
    QString messageText() const;

signals:
    // The element under a click, by flat index in the tensor.
    void elementActivated(quint64 flat);
    // A summary is on screen (cached or just computed).
    void summaryShown();

protected:
    void resizeEvent(QResizeEvent *event) override;
    void showEvent(QShowEvent *event) override;

private:
    struct Region {
        std::uint64_t r0, r1, c0, c1;
    };
    void reload();
    StridedView regionView() const;
    void planeChanged();
    void refresh();
    void showSummary(std::shared_ptr<const HeatmapSummary> summary);
    ColourRange rangeFor(const HeatmapSummary &summary) const;
    void applyRange();
    QString cacheKey(const StridedView &view, std::uint32_t rows, std::uint32_t cols) const;

    std::shared_ptr<const Checkpoint> m_checkpoint;
    const Checkpoint::Tensor *m_tensor = nullptr;
    std::shared_ptr<const QuantView> m_quant;
    std::optional<DequantizedTensor> m_dequantized; // the shown tensor's, when its values are dequantized
    QCheckBox *m_raw;
    PlaneSelector *m_plane;
    PaneTitle *m_title; // one line: a title that wrapped would resize the map
    QComboBox *m_range;
    ColourRange m_shownRange = ColourRange::Symmetric;
    QToolButton *m_zoomOut;
    QProgressBar *m_progress;
    QLabel *m_message;
    HeatmapView *m_view;
    std::vector<Region> m_regions; // the plane, then each zoom
    QTimer m_refreshTimer; // a resize settles before a new summary starts
    QString m_shownKey; // the cache key of the summary on screen
    QCache<QString, std::shared_ptr<const HeatmapSummary>> m_cache;
    JobTracker<HeatmapSummary> m_job; // last: cancelled and waited for first
};

} // namespace stb
