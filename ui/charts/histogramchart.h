#pragma once

#include "core/stats/tensorstats.h"

#include <QWidget>

class QChart;
class QChartView;

namespace stb {

// A histogram drawn with Qt Charts: the only widget that knows Qt Charts exists (it is GPL-3 and
// leaves Qt after 6.9), so swapping the drawing library touches this file alone. Bins are drawn
// as one stepped area over value units, so 10 or 1,000 bins render alike; the count axis is
// linear or logarithmic (empty bins sit on the log axis' floor instead of breaking it).
class HistogramChart : public QWidget {
    Q_OBJECT
public:
    explicit HistogramChart(QWidget *parent = nullptr);
    ~HistogramChart() override;

    // Replaces what is drawn (never adds to it); an empty histogram clears the chart.
    void setHistogram(const Histogram &histogram);
    void clear();
    const Histogram &histogram() const { return m_histogram; }

    void setLogarithmic(bool logarithmic);
    bool isLogarithmic() const { return m_logarithmic; }

    // What tests and screenshots look at: series in the chart, bars drawn, the count axis range.
    int seriesCount() const;
    int barCount() const { return static_cast<int>(m_histogram.counts.size()); }
    QPair<double, double> countRange() const;
    QPair<double, double> valueRange() const;

private:
    void rebuild();
    QString binText(double value) const;

    QChartView *m_view;
    QChart *m_chart;
    Histogram m_histogram;
    bool m_logarithmic = false;
};

} // namespace stb
