#include "ui/charts/overlaychart.h"

#include "ui/charts/tickaxis.h"

#include <QAreaSeries>
#include <QChartView>
#include <QCategoryAxis>
#include <QChart>
#include <QLegend>
#include <QLineSeries>
#include <QLocale>
#include <QToolTip>

#include <algorithm>

using namespace Qt::StringLiterals;

namespace stb {

OverlayChart::OverlayChart(QWidget *parent)
    : ChartFrame(parent)
{
    setZoomable(true);
    connect(this, &ChartFrame::xRangeSelected, this, &OverlayChart::zoomTo);
    connect(this, &ChartFrame::zoomResetRequested, this, &OverlayChart::resetZoom);
    connect(this, &ChartFrame::hovered, this, [this](double x, const QPoint &globalPos, bool inside) {
        const QString text = inside ? toolTipAt(x) : QString();
        if (text.isEmpty())
            QToolTip::hideText();
        else
            QToolTip::showText(globalPos, text, view());
    });
}

OverlayChart::~OverlayChart() = default;

void OverlayChart::setTitle(const QString &title)
{
    m_title = title;
}

QString OverlayChart::decoratedMessage(const QString &text) const
{
    return m_title.isEmpty() ? text : u"<b>%1</b><br>%2"_s.arg(m_title.toHtmlEscaped(), text);
}

int OverlayChart::seriesCount() const
{
    return message().isEmpty() && chart() ? static_cast<int>(chart()->series().size()) : 0;
}

void OverlayChart::setSeries(const std::vector<Series> &series)
{
    m_series = series;
    m_zoom.reset();
    rebuild();
}

void OverlayChart::zoomTo(double lo, double hi)
{
    lo = std::max(lo, m_lo);
    hi = std::min(hi, m_hi);
    if (!(lo < hi))
        return;
    m_zoom = std::pair(lo, hi);
    rebuild();
}

void OverlayChart::resetZoom()
{
    if (m_zoom) {
        m_zoom.reset();
        rebuild();
    }
}

QString OverlayChart::toolTipAt(double x) const
{
    QStringList lines;
    for (const Series &s : m_series) {
        const int bin = s.histogram.binOf(x);
        if (bin < 0)
            continue;
        const auto i = static_cast<std::size_t>(bin);
        const bool last = i + 1 == s.histogram.counts.size();
        lines.append(tr("%1: [%2, %3%4: %5")
                         .arg(s.name, QLocale().toString(s.histogram.edge(i), 'g', 6),
                             QLocale().toString(last ? s.histogram.hi : s.histogram.edge(i + 1), 'g', 6),
                             last ? u"]"_s : u")"_s,
                             QLocale().toString(static_cast<qulonglong>(s.histogram.counts[i]))));
    }
    return lines.join(u'\n');
}

void OverlayChart::rebuild()
{
    auto *chart = new QChart;
    chart->setTitle(m_title);
    chart->setMargins(QMargins(4, 4, 4, 4));
    chart->legend()->setAlignment(Qt::AlignTop);
    chart->legend()->setVisible(m_series.size() > 1);
    double lo = 0, hi = 0;
    bool first = true;
    for (const auto &s : m_series) {
        const Histogram &h = s.histogram;
        if (h.empty())
            continue;
        lo = first ? h.lo : std::min(lo, h.lo);
        hi = first ? h.hi : std::max(hi, h.hi);
        first = false;
    }
    if (first) {
        delete chart;
        showMessage(tr("No finite values to draw."));
        return;
    }
    m_lo = lo;
    m_hi = hi;
    const double from = m_zoom ? m_zoom->first : lo, to = m_zoom ? m_zoom->second : hi;
    double top = 0;
    std::vector<QAreaSeries *> areas;
    for (const auto &s : m_series) {
        const Histogram &h = s.histogram;
        if (h.empty())
            continue;
        // A step outline: each bin is a flat top between its two edges.
        auto *upper = new QLineSeries;
        upper->append(h.edge(0), 0);
        for (std::size_t i = 0; i < h.counts.size(); ++i) {
            const auto count = static_cast<double>(h.counts[i]);
            const double right = i + 1 == h.counts.size() ? h.hi : h.edge(i + 1);
            if (right >= from && h.edge(i) <= to)
                top = std::max(top, count); // the count axis fits the bins in view
            upper->append(h.edge(i), count);
            upper->append(right, count);
        }
        upper->append(h.hi, 0);
        auto *area = new QAreaSeries(upper);
        upper->setParent(area);
        area->setName(s.name);
        QColor fill = s.color;
        fill.setAlphaF(m_series.size() > 1 ? 0.45f : 0.65f); // overlaid sides must show through each other
        area->setBrush(fill);
        area->setPen(QPen(s.color, 1.2));
        chart->addSeries(area);
        areas.push_back(area);
    }
    QCategoryAxis *x = makeTickAxis(from, to, 5);
    QCategoryAxis *y = makeTickAxis(0, std::max(1.0, top * 1.05), 4);
    chart->addAxis(x, Qt::AlignBottom);
    chart->addAxis(y, Qt::AlignLeft);
    for (QAreaSeries *area : areas) {
        area->attachAxis(x);
        area->attachAxis(y);
    }
    m_valueRange = { from, to };
    showChart(chart);
}

} // namespace stb
