#pragma once

#include "core/values/colourscale.h"
#include "core/values/heatmap.h"

#include <QImage>
#include <QWidget>

#include <memory>

namespace stb {

// Paints a heatmap summary: one rectangle per cell (the cells' colours as an image, scaled
// without smoothing) with a colour bar and the NaN/±Inf swatches at the right. Hovering a cell
// shows its index range and min/max/mean; a click reports the cell, a drag the cells of a region
// to zoom into.
class HeatmapView : public QWidget {
    Q_OBJECT
public:
    explicit HeatmapView(QWidget *parent = nullptr);

    // Draws `summary` with a colour scale chosen by `range` (see scaleFor).
    void setSummary(std::shared_ptr<const HeatmapSummary> summary, ColourRange range);
    void setRange(ColourRange range) { setSummary(m_summary, range); }
    // The matrix row and column the summary's first cell starts at (a zoomed region's corner),
    // added to the indices the hover text names.
    void setOrigin(std::uint64_t row, std::uint64_t column) { m_row0 = row, m_col0 = column; }
    void clear();
    const HeatmapSummary *summary() const { return m_summary.get(); }
    const ColourScale &scale() const { return m_scale; }
    // Where the cells are drawn (the rest is the colour bar); the cell under a point, if any.
    QRect cellArea() const;
    std::optional<std::pair<std::uint32_t, std::uint32_t>> cellAt(const QPoint &point) const;
    // The hover text of a cell.
    QString cellText(std::uint32_t i, std::uint32_t j) const;

signals:
    void cellClicked(std::uint32_t i, std::uint32_t j);
    // Cells [i0, i1] × [j0, j1] (inclusive) dragged over.
    void regionSelected(std::uint32_t i0, std::uint32_t i1, std::uint32_t j0, std::uint32_t j1);

protected:
    void paintEvent(QPaintEvent *event) override;
    void mousePressEvent(QMouseEvent *event) override;
    void mouseMoveEvent(QMouseEvent *event) override;
    void mouseReleaseEvent(QMouseEvent *event) override;

private:
    void paintColourBar(QPainter &painter, const QRect &bar);

    std::shared_ptr<const HeatmapSummary> m_summary;
    std::uint64_t m_row0 = 0, m_col0 = 0;
    ColourScale m_scale;
    QImage m_image;
    QPoint m_pressed;
    QRect m_band; // the drag rectangle while dragging
    bool m_dragging = false;
};

} // namespace stb
