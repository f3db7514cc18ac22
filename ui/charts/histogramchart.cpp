#include "ui/charts/histogramchart.h"

#include "core/stats/sparsebins.h"
#include "ui/charts/axisticks.h"
#include "ui/charts/chartpalette.h"
#include "ui/charts/tickaxis.h"

#include <QAreaSeries>
#include <QCategoryAxis>
#include <QChart>
#include <QChartView>
#include <QEvent>
#include <QGraphicsLayout>
#include <QLineSeries>
#include <QLocale>
#include <QScatterSeries>
#include <QToolTip>

#include <algorithm>
#include <cmath>
#include <numeric>

using namespace Qt::StringLiterals;

namespace stb {

namespace {

// Empty bins on a log axis: counts are whole numbers, so half a count is below every filled bin
// and above zero, which a log axis cannot show.
constexpr double kLogFloor = 0.5;
constexpr int kValueTicks = 6;
constexpr int kCountTicks = 5;

QString valueText(double value)
{
    return QLocale().toString(value, 'g', 6);
}

QStringList labelsOf(const QChart *chart, Qt::Orientation orientation)
{
    if (!chart)
        return {};
    const auto axes = chart->axes(orientation);
    auto *axis = axes.isEmpty() ? nullptr : qobject_cast<QCategoryAxis *>(axes.first());
    return axis ? axis->categoriesLabels() : QStringList(); // not const in Qt 6.4
}

} // namespace

HistogramChart::HistogramChart(QWidget *parent)
    : ChartFrame(parent)
{
    setZoomable(true);
    view()->setMinimumSize(240, 160);
    view()->setBackgroundBrush(Qt::NoBrush);
    view()->setStyleSheet(u"background: transparent"_s); // the plot on the pane's own background
    connect(this, &ChartFrame::xRangeSelected, this, &HistogramChart::zoomTo);
    connect(this, &ChartFrame::zoomResetRequested, this, &HistogramChart::resetZoom);
    connect(this, &ChartFrame::hovered, this, &HistogramChart::showToolTipAt);
    rebuild();
}

HistogramChart::~HistogramChart() = default;

void HistogramChart::setHistogram(const Histogram &histogram)
{
    m_histogram = histogram;
    m_zoom.reset();
    rebuild();
}

void HistogramChart::clear()
{
    setHistogram({});
}

void HistogramChart::setLogarithmic(bool logarithmic)
{
    if (m_logarithmic == logarithmic)
        return;
    m_logarithmic = logarithmic;
    rebuild();
}

void HistogramChart::zoomTo(double lo, double hi)
{
    if (m_histogram.empty())
        return;
    lo = std::max(lo, m_histogram.lo);
    hi = std::min(hi, m_histogram.hi);
    if (!(lo < hi))
        return;
    if (lo == m_histogram.lo && hi == m_histogram.hi)
        m_zoom.reset();
    else
        m_zoom = qMakePair(lo, hi);
    rebuild();
}

void HistogramChart::resetZoom()
{
    if (!m_zoom)
        return;
    m_zoom.reset();
    rebuild();
}

int HistogramChart::seriesCount() const
{
    int count = 0;
    for (const QAbstractSeries *series : chart()->series())
        count += series->type() == QAbstractSeries::SeriesTypeArea;
    return count;
}

QStringList HistogramChart::valueTickLabels() const
{
    return labelsOf(chart(), Qt::Horizontal);
}

QStringList HistogramChart::countTickLabels() const
{
    return labelsOf(chart(), Qt::Vertical);
}

QString HistogramChart::binToolTip(int bin) const
{
    if (bin < 0 || bin >= barCount())
        return {};
    const auto i = static_cast<std::size_t>(bin);
    const bool last = i + 1 == m_histogram.counts.size();
    const std::uint64_t count = m_histogram.counts[i];
    const std::uint64_t total
        = std::accumulate(m_histogram.counts.begin(), m_histogram.counts.end(), std::uint64_t(0));
    const double share = total ? 100.0 * static_cast<double>(count) / static_cast<double>(total) : 0;
    return tr("[%1, %2%3: count %4 (%5%)")
        .arg(valueText(m_histogram.edge(i)), valueText(last ? m_histogram.hi : m_histogram.edge(i + 1)),
            last ? u"]"_s : u")"_s, QLocale().toString(static_cast<qulonglong>(count)),
            QLocale().toString(share, 'g', 3));
}

void HistogramChart::showToolTipAt(double x, const QPoint &globalPos, bool inside)
{
    const QString text = inside ? binToolTip(m_histogram.binOf(x)) : QString();
    if (text.isEmpty())
        QToolTip::hideText();
    else
        QToolTip::showText(globalPos, text, view());
}

void HistogramChart::changeEvent(QEvent *event)
{
    ChartFrame::changeEvent(event);
    if (event->type() == QEvent::PaletteChange)
        rebuild(); // the series' own colours come from the palette too
}

// Rebuilt from scratch on every change, into a new chart that replaces the old one: nothing
// accumulates however often the selection, the scale or the zoom changes.
void HistogramChart::rebuild()
{
    auto *chart = new QChart;
    chart->setAnimationOptions(QChart::NoAnimation); // a new tensor should just be there
    chart->legend()->hide();
    chart->setBackgroundRoundness(0);
    chart->setMargins(QMargins(4, 8, 12, 4));
    chart->layout()->setContentsMargins(0, 0, 0, 0);
    m_marked.clear();
    m_countRange = {};
    m_valueRange = {};
    if (m_histogram.empty()) {
        setNote({});
        showChart(chart);
        return;
    }

    const auto &counts = m_histogram.counts;
    const double lo = m_zoom ? m_zoom->first : m_histogram.lo, hi = m_zoom ? m_zoom->second : m_histogram.hi;
    // The count axis fits the bins in view, so zooming into a tail shows its small counts.
    std::uint64_t peak = 0;
    for (std::size_t i = 0; i < counts.size(); ++i) {
        const double from = m_histogram.edge(i), to = i + 1 == counts.size() ? m_histogram.hi : m_histogram.edge(i + 1);
        if (to >= lo && from <= hi)
            peak = std::max(peak, counts[i]);
    }
    // Counts on a log axis are drawn as log10(count): the axis is a linear one with labels at
    // the powers of ten (QLogValueAxis labels cannot be given SI suffixes).
    const auto y = [this](double count) {
        return m_logarithmic ? std::log10(std::max(kLogFloor, count)) : count;
    };
    const double floor = y(0);
    auto *upper = new QLineSeries;
    QList<QPointF> points;
    points.reserve(static_cast<qsizetype>(counts.size() * 2));
    for (std::size_t i = 0; i < counts.size(); ++i) {
        const double top = y(static_cast<double>(counts[i]));
        points.append({ m_histogram.edge(i), top });
        points.append({ i + 1 == counts.size() ? m_histogram.hi : m_histogram.edge(i + 1), top });
    }
    upper->replace(points);
    auto *lower = new QLineSeries;
    lower->append(m_histogram.lo, floor);
    lower->append(m_histogram.hi, floor);
    auto *area = new QAreaSeries(upper, lower); // owns neither: parent them to the area
    upper->setParent(area);
    lower->setParent(area);
    area->setBrush(seriesFill(0, palette()));
    area->setPen(QPen(seriesColor(0, palette()), 1));
    chart->addSeries(area);

    QCategoryAxis *x = makeTickAxis(lo, hi, kValueTicks);
    x->setTitleText(tr("value"));
    QCategoryAxis *yAxis;
    if (m_logarithmic) {
        const double top = std::max(10.0, static_cast<double>(peak) * 2);
        yAxis = makeLogCountAxis(kLogFloor, top);
        m_countRange = { kLogFloor, top };
    } else {
        const double top = std::max(1.0, static_cast<double>(peak) * 1.05);
        yAxis = makeTickAxis(0, top, kCountTicks);
        m_countRange = { 0, top };
    }
    m_valueRange = { lo, hi };
    yAxis->setTitleText(m_logarithmic ? tr("count (log)") : tr("count"));
    for (QAbstractAxis *axis : { static_cast<QAbstractAxis *>(x), static_cast<QAbstractAxis *>(yAxis) }) {
        axis->setLabelsFont(font());
        QFont title = font();
        title.setItalic(true);
        axis->setTitleFont(title);
    }
    chart->addAxis(x, Qt::AlignBottom);
    chart->addAxis(yAxis, Qt::AlignLeft);
    area->attachAxis(x);
    area->attachAxis(yAxis);

    // Outliers a linear axis would draw as nothing: a mark under each such bin.
    m_marked = sparseFarBins(m_histogram);
    if (!m_marked.empty()) {
        auto *marks = new QScatterSeries;
        marks->setMarkerShape(QScatterSeries::MarkerShapeTriangle);
        marks->setMarkerSize(9);
        marks->setColor(markColor(palette()));
        marks->setBorderColor(markColor(palette()));
        std::uint64_t values = 0;
        for (std::size_t i : m_marked) {
            const double to = i + 1 == counts.size() ? m_histogram.hi : m_histogram.edge(i + 1);
            marks->append((m_histogram.edge(i) + to) / 2, y(static_cast<double>(counts[i])));
            values += counts[i];
        }
        chart->addSeries(marks);
        marks->attachAxis(x);
        marks->attachAxis(yAxis);
        const QString valuesText = values == 1 ? tr("1 value") : tr("%1 values").arg(QLocale().toString(static_cast<qulonglong>(values)));
        const QString where = m_marked.size() == 1
            ? tr("\u25B2 1 bin far from the bulk holds %1").arg(valuesText)
            : tr("\u25B2 %1 bins far from the bulk hold %2").arg(QLocale().toString(static_cast<qulonglong>(m_marked.size())), valuesText);
        setNote(m_logarithmic ? where : where + tr(", too few to see on this scale: Log shows them."));
    } else {
        setNote({});
    }
    showChart(chart);
}

} // namespace stb
