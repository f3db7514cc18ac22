#include "ui/charts/overlaychart.h"

#include "ui/charts/chartpalette.h"

#include <QAreaSeries>
#include <QChart>
#include <QChartView>
#include <QLabel>
#include <QLineSeries>
#include <QStackedLayout>
#include <QValueAxis>

#include <algorithm>

using namespace Qt::StringLiterals;

namespace stb {

OverlayChart::OverlayChart(QWidget *parent)
    : QWidget(parent)
    , m_stack(new QStackedLayout(this))
    , m_message(new QLabel(this))
    , m_view(new QChartView(this))
{
    m_message->setAlignment(Qt::AlignCenter);
    m_message->setWordWrap(true);
    m_message->setEnabled(false);
    auto *view = static_cast<QChartView *>(m_view);
    view->setRenderHint(QPainter::Antialiasing);
    view->setMinimumHeight(140);
    m_stack->addWidget(m_message);
    m_stack->addWidget(m_view);
}

OverlayChart::~OverlayChart() = default;

void OverlayChart::setTitle(const QString &title)
{
    m_title = title;
}

QString OverlayChart::message() const
{
    return m_stack->currentWidget() == m_message ? m_message->text() : QString();
}

void OverlayChart::showMessage(const QString &text)
{
    m_seriesCount = 0;
    m_message->setText(m_title.isEmpty() ? text : u"<b>%1</b><br>%2"_s.arg(m_title.toHtmlEscaped(), text));
    m_stack->setCurrentWidget(m_message);
}

void OverlayChart::setSeries(const std::vector<Series> &series)
{
    auto *chart = new QChart;
    chart->setTitle(m_title);
    chart->setMargins(QMargins(4, 4, 4, 4));
    chart->legend()->setAlignment(Qt::AlignTop);
    chart->legend()->setVisible(series.size() > 1);
    double lo = 0, hi = 0, top = 0;
    bool first = true;
    for (const auto &s : series) {
        const Histogram &h = s.histogram;
        if (h.empty())
            continue;
        lo = first ? h.lo : std::min(lo, h.lo);
        hi = first ? h.hi : std::max(hi, h.hi);
        first = false;
        // A step outline: each bin is a flat top between its two edges.
        auto *upper = new QLineSeries;
        upper->append(h.edge(0), 0);
        for (std::size_t i = 0; i < h.counts.size(); ++i) {
            const auto count = static_cast<double>(h.counts[i]);
            top = std::max(top, count);
            upper->append(h.edge(i), count);
            upper->append(i + 1 == h.counts.size() ? h.hi : h.edge(i + 1), count);
        }
        upper->append(h.hi, 0);
        auto *area = new QAreaSeries(upper);
        area->setName(s.name);
        QColor fill = s.color;
        fill.setAlpha(series.size() > 1 ? 110 : 170); // overlaid sides must show through each other
        area->setBrush(fill);
        area->setPen(QPen(s.color.darker(130), 1.2));
        chart->addSeries(area);
    }
    if (first) {
        delete chart;
        showMessage(tr("No finite values to draw."));
        return;
    }
    chart->createDefaultAxes();
    if (auto *x = qobject_cast<QValueAxis *>(chart->axes(Qt::Horizontal).value(0))) {
        x->setRange(lo, hi);
        x->setLabelFormat(u"%.3g"_s);
        x->setTickCount(5);
    }
    if (auto *y = qobject_cast<QValueAxis *>(chart->axes(Qt::Vertical).value(0))) {
        y->setRange(0, std::max(1.0, top * 1.05));
        y->setLabelFormat(u"%.0f"_s);
        y->setTickCount(4);
    }
    applyPalette(chart, palette());
    auto *view = static_cast<QChartView *>(m_view);
    QChart *old = view->chart();
    view->setChart(chart);
    delete old; // setChart does not take the old chart's ownership away from the view
    m_seriesCount = static_cast<int>(chart->series().size());
    m_stack->setCurrentWidget(m_view);
}

} // namespace stb
