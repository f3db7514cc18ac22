#pragma once

#include "core/stats/tensorstats.h"
#include "ui/charts/chartframe.h"

#include <QColor>

#include <optional>
#include <utility>
#include <vector>

namespace stb {

// Histograms drawn over each other on one value axis (the two sides of a comparison), or a
// single one (a − b). Like its siblings in ui/charts/, the only kind of file that knows Qt
// Charts: callers hand over core Histograms and never see a chart type. Round ticks; hovering
// shows each series' bin there; a drag zooms the value range, a double-click resets it.
class OverlayChart : public ChartFrame {
    Q_OBJECT
public:
    struct Series {
        QString name;
        QColor color;
        Histogram histogram; // series drawn together should share their bins
    };

    explicit OverlayChart(QWidget *parent = nullptr);
    ~OverlayChart() override;

    // The title drawn above the chart (and above a message shown instead).
    void setTitle(const QString &title);
    void setSeries(const std::vector<Series> &series);
    int seriesCount() const;
    // What hovering at value x shows: each series' bin and count there.
    QString toolTipAt(double x) const;
    QPair<double, double> valueRange() const { return m_valueRange; }
    void zoomTo(double lo, double hi);
    void resetZoom();

protected:
    QString decoratedMessage(const QString &text) const override;

private:
    void rebuild();

    QString m_title;
    std::vector<Series> m_series;
    std::optional<std::pair<double, double>> m_zoom;
    QPair<double, double> m_valueRange;
    double m_lo = 0, m_hi = 0;
};

} // namespace stb
