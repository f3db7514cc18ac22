#pragma once

#include "core/stats/tensorstats.h"
#include "ui/charts/chartframe.h"

#include <QPair>

#include <optional>
#include <vector>

namespace stb {

// A histogram drawn with Qt Charts, which only ui/charts/ knows (it is GPL-3 and leaves Qt
// after 6.9), so swapping the drawing library touches this room alone. Bins are drawn as one
// stepped area over value units, so 10 or 1,000 bins render alike; the count axis is linear or
// logarithmic (empty bins sit on the log axis' floor instead of breaking it). Ticks are round
// values with grouped digits and SI suffixes. Hovering shows a bin's range and count; a drag
// across the plot zooms to that value range (the count axis follows the bins in view), a
// double-click goes back to the whole range. Bins far from the bulk that hold too few values
// to see are marked under the plot and named in a note.
class HistogramChart : public ChartFrame {
    Q_OBJECT
public:
    explicit HistogramChart(QWidget *parent = nullptr);
    ~HistogramChart() override;

    // Replaces what is drawn (never adds to it) and shows the whole range; an empty histogram
    // clears the chart.
    void setHistogram(const Histogram &histogram);
    void clear();
    const Histogram &histogram() const { return m_histogram; }

    void setLogarithmic(bool logarithmic);
    bool isLogarithmic() const { return m_logarithmic; }

    // Shows values in [lo, hi] only (clipped to the histogram's range); what a drag does.
    void zoomTo(double lo, double hi);
    // The whole range again; what a double-click does.
    void resetZoom();
    bool isZoomed() const { return m_zoom.has_value(); }

    // What hovering bin `bin` shows: "[lo, hi): count N (share%)"; empty for no such bin.
    QString binToolTip(int bin) const;
    // Bins marked as far from the bulk and sparse (see sparseFarBins).
    const std::vector<std::size_t> &markedBins() const { return m_marked; }

    // What tests and screenshots look at: series in the chart, bars drawn, the axes' ranges (in
    // counts and values), the axes' tick labels.
    int seriesCount() const;
    int barCount() const { return static_cast<int>(m_histogram.counts.size()); }
    QPair<double, double> countRange() const { return m_countRange; }
    QPair<double, double> valueRange() const { return m_valueRange; }
    QStringList valueTickLabels() const;
    QStringList countTickLabels() const;

protected:
    void changeEvent(QEvent *event) override;

private:
    void rebuild();
    void showToolTipAt(double x, const QPoint &globalPos, bool inside);

    Histogram m_histogram;
    bool m_logarithmic = false;
    std::optional<QPair<double, double>> m_zoom;
    std::vector<std::size_t> m_marked;
    QPair<double, double> m_countRange;
    QPair<double, double> m_valueRange;
};

} // namespace stb
