#include "ui/charts/depthchart.h"

#include "ui/charts/chartpalette.h"
#include "ui/charts/tickaxis.h"

#include <QCategoryAxis>
#include <QChart>
#include <QChartView>
#include <QCursor>
#include <QLegend>
#include <QLineSeries>
#include <QScatterSeries>
#include <QToolTip>

#include <algorithm>
#include <iterator>
#include <cmath>

using namespace Qt::StringLiterals;

namespace stb {

DepthChart::DepthChart(QWidget *parent)
    : ChartFrame(parent)
{
    view()->setMinimumHeight(160);
}

DepthChart::~DepthChart() = default;

void DepthChart::setData(const QString &yTitle, const std::vector<std::uint64_t> &x,
    const std::vector<Line> &lines, const std::vector<Marker> &markers)
{
    m_yTitle = yTitle;
    m_x = x;
    m_lines = lines;
    m_markers = markers;
    rebuild();
}

void DepthChart::setLineVisible(int line, bool visible)
{
    if (line < 0 || line >= lineCount() || m_lines[static_cast<std::size_t>(line)].visible == visible)
        return;
    m_lines[static_cast<std::size_t>(line)].visible = visible;
    rebuild();
}

int DepthChart::positionOf(double x) const
{
    const auto it = std::lower_bound(
        m_x.begin(), m_x.end(), x, [](std::uint64_t a, double b) { return static_cast<double>(a) < b; });
    std::size_t p = static_cast<std::size_t>(it - m_x.begin());
    if (p == m_x.size()
        || (p > 0
            && std::abs(static_cast<double>(m_x[p - 1]) - x) < std::abs(static_cast<double>(m_x[p]) - x)))
        --p;
    return static_cast<int>(p);
}

QString DepthChart::pointText(int line, int position) const
{
    if (line < 0 || line >= lineCount() || position < 0 || position >= static_cast<int>(m_x.size()))
        return {};
    const double value = m_lines[static_cast<std::size_t>(line)].values[static_cast<std::size_t>(position)];
    return u"%1 @ %2: %3"_s.arg(m_lines[static_cast<std::size_t>(line)].name)
        .arg(m_x[static_cast<std::size_t>(position)])
        .arg(std::isfinite(value) ? QString::number(value, 'g', 6) : u"\u2014"_s);
}

namespace {

QColor lineColorOnLight(int line)
{
    // Ten qualitative colours that stay apart from each other (Tableau 10), then hues a golden
    // angle apart.
    static constexpr QRgb kColors[] = { 0x1f77b4, 0xff7f0e, 0x2ca02c, 0xd62728, 0x9467bd, 0x8c564b, 0xe377c2,
        0x7f7f7f, 0xbcbd22, 0x17becf };
    constexpr int kCount = static_cast<int>(std::size(kColors));
    if (line >= 0 && line < kCount)
        return QColor::fromRgb(kColors[line]);
    return QColor::fromHsv(static_cast<int>((static_cast<unsigned>(line) * 137u) % 360u), 200, 160);
}

} // namespace

QColor DepthChart::lineColor(int line, const QPalette &palette)
{
    const QColor color = lineColorOnLight(line);
    if (palette.color(QPalette::Base).lightnessF() >= 0.5)
        return color;
    // The same hue, light enough to stand out from a dark plot area.
    return QColor::fromHslF(color.hslHueF(), color.hslSaturationF(), std::max(0.62f, color.lightnessF()));
}

// Rebuilt on each change, so series never accumulate; a line with gaps is drawn as several
// series of one colour.
void DepthChart::rebuild()
{
    auto *chart = new QChart;
    chart->setMargins(QMargins(4, 4, 4, 4));
    chart->legend()->hide(); // long role names: the caller lists them with lineColor() swatches
    // The axes come once the values' range is known; the series wait for them.
    std::vector<QAbstractSeries *> drawnSeries;
    double lo = INFINITY, hi = -INFINITY;
    int drawn = 0;
    for (std::size_t l = 0; l < m_lines.size(); ++l) {
        const Line &line = m_lines[l];
        if (!line.visible)
            continue;
        QLineSeries *series = nullptr;
        const QColor color = lineColor(static_cast<int>(l), palette());
        for (std::size_t p = 0; p < m_x.size() && p < line.values.size(); ++p) {
            const double v = line.values[p];
            if (!std::isfinite(v)) {
                series = nullptr; // a gap: the next value starts a new piece
                continue;
            }
            lo = std::min(lo, v);
            hi = std::max(hi, v);
            if (!series) {
                series = new QLineSeries;
                series->setPointsVisible(m_x.size() <= 160);
                chart->addSeries(series);
                drawnSeries.push_back(series);
                series->setColor(color);
                series->setName(line.name);
                connect(series, &QLineSeries::hovered, this, [this, l](const QPointF &point, bool state) {
                    if (state)
                        QToolTip::showText(
                            QCursor::pos(), pointText(static_cast<int>(l), positionOf(point.x())));
                    else
                        QToolTip::hideText();
                });
                connect(series, &QLineSeries::clicked, this, [this, l](const QPointF &point) {
                    emit pointClicked(static_cast<int>(l), positionOf(point.x()));
                });
            }
            series->append(static_cast<double>(m_x[p]), v);
        }
        ++drawn;
    }
    auto *marks = new QScatterSeries;
    marks->setName(tr("outliers"));
    marks->setMarkerSize(11);
    marks->setColor(Qt::transparent);
    marks->setBorderColor(markColor(palette()));
    marks->setPen(QPen(markColor(palette()), 2));
    for (const Marker &m : m_markers) {
        if (m.line < 0 || m.line >= lineCount() || !m_lines[static_cast<std::size_t>(m.line)].visible
            || m.position < 0 || m.position >= static_cast<int>(m_x.size()))
            continue;
        const double v
            = m_lines[static_cast<std::size_t>(m.line)].values[static_cast<std::size_t>(m.position)];
        if (std::isfinite(v))
            marks->append(static_cast<double>(m_x[static_cast<std::size_t>(m.position)]), v);
    }
    // The marker is drawn over its point and takes the hover: it answers for the line below.
    connect(marks, &QScatterSeries::hovered, this, [this](const QPointF &point, bool state) {
        if (!state) {
            QToolTip::hideText();
            return;
        }
        const int position = positionOf(point.x());
        for (const Marker &m : m_markers) {
            if (m.position == position)
                QToolTip::showText(QCursor::pos(), pointText(m.line, position) + u" ("_s + m.text + u')');
        }
    });
    if (marks->count()) {
        chart->addSeries(marks);
        drawnSeries.push_back(marks);
    } else {
        delete marks;
    }
    if (!drawn || !(lo <= hi)) {
        delete chart;
        showMessage(tr("No values to draw."));
        return;
    }
    const double pad = hi > lo ? (hi - lo) * 0.05 : std::max(std::abs(hi) * 0.05, 1e-12);
    // Never below zero for values that cannot be negative (rms, abs_max, counts, fractions): the
    // round ticks would otherwise spend half the plot on an empty negative range.
    QCategoryAxis *yAxis = makeTickAxis(lo >= 0 ? std::max(0.0, lo - pad) : lo - pad, hi + pad, 5);
    yAxis->setTitleText(m_yTitle);
    // Ticks at round block numbers, whole ones, about five of them, so the labels fit a narrow
    // chart instead of being elided to "…".
    QCategoryAxis *xAxis = makeTickAxis(
        static_cast<double>(m_x.front()), static_cast<double>(std::max(m_x.back(), m_x.front() + 1)), 6, 1);
    xAxis->setTitleText(tr("block"));
    chart->addAxis(xAxis, Qt::AlignBottom);
    chart->addAxis(yAxis, Qt::AlignLeft);
    for (QAbstractSeries *series : drawnSeries) {
        series->attachAxis(xAxis);
        series->attachAxis(yAxis);
    }
    showChart(chart);
}

} // namespace stb
