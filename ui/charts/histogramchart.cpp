#include "ui/charts/histogramchart.h"

#include "ui/charts/chartpalette.h"

#include <QAreaSeries>
#include <QChart>
#include <QChartView>
#include <QGraphicsLayout>
#include <QLineSeries>
#include <QLocale>
#include <QLogValueAxis>
#include <QToolTip>
#include <QVBoxLayout>
#include <QValueAxis>

#include <algorithm>
#include <cmath>

using namespace Qt::StringLiterals;

namespace stb {

namespace {

// Empty bins on a log axis: counts are whole numbers, so half a count is below every filled bin
// and above zero, which a log axis cannot show.
constexpr double kLogFloor = 0.5;
const QColor kFill(0x4a, 0x86, 0xc5);
const QColor kLine(0x2c, 0x5d, 0x8f);

// A tick step of 1, 2 or 5 times a power of ten giving about `ticks` ticks over `span`.
double niceStep(double span, int ticks)
{
    const double raw = span / ticks;
    const double power = std::pow(10.0, std::floor(std::log10(raw)));
    for (double m : { 1.0, 2.0, 5.0 }) {
        if (raw <= m * power)
            return m * power;
    }
    return 10 * power;
}

} // namespace

HistogramChart::HistogramChart(QWidget *parent)
    : QWidget(parent)
    , m_view(new QChartView(this))
    , m_chart(new QChart)
{
    auto *layout = new QVBoxLayout(this);
    layout->setContentsMargins(0, 0, 0, 0);
    layout->addWidget(m_view);
    m_chart->setAnimationOptions(QChart::NoAnimation); // a new tensor should just be there
    m_chart->legend()->hide();
    m_chart->setBackgroundRoundness(0);
    applyPalette(m_chart, palette()); // the plot on the pane's own background: no card in a card
    m_chart->setMargins(QMargins(4, 8, 12, 4));
    m_chart->layout()->setContentsMargins(0, 0, 0, 0);
    m_view->setChart(m_chart); // takes ownership
    m_view->setRenderHint(QPainter::Antialiasing);
    m_view->setFrameShape(QFrame::NoFrame);
    m_view->setBackgroundBrush(Qt::NoBrush);
    m_view->setStyleSheet(u"background: transparent"_s);
    m_view->setMinimumSize(240, 160);
    rebuild();
}

HistogramChart::~HistogramChart() = default;

void HistogramChart::setHistogram(const Histogram &histogram)
{
    m_histogram = histogram;
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

int HistogramChart::seriesCount() const
{
    return static_cast<int>(m_chart->series().size());
}

QPair<double, double> HistogramChart::countRange() const
{
    const auto axes = m_chart->axes(Qt::Vertical);
    if (axes.isEmpty())
        return {};
    if (const auto *log = qobject_cast<const QLogValueAxis *>(axes.first()))
        return { log->min(), log->max() };
    const auto *linear = static_cast<const QValueAxis *>(axes.first());
    return { linear->min(), linear->max() };
}

QPair<double, double> HistogramChart::valueRange() const
{
    const auto axes = m_chart->axes(Qt::Horizontal);
    if (axes.isEmpty())
        return {};
    const auto *axis = static_cast<const QValueAxis *>(axes.first());
    return { axis->min(), axis->max() };
}

QString HistogramChart::binText(double value) const
{
    return QLocale().toString(value, 'g', 6);
}

// Rebuilt from scratch on every change: removeAllSeries() deletes the old series and the axes
// go with them, so nothing accumulates however often the selection changes.
void HistogramChart::rebuild()
{
    m_chart->removeAllSeries();
    for (QAbstractAxis *axis : m_chart->axes()) {
        m_chart->removeAxis(axis);
        delete axis;
    }
    if (m_histogram.empty())
        return;

    const auto &counts = m_histogram.counts;
    const double floor = m_logarithmic ? kLogFloor : 0.0;
    const std::uint64_t peak = *std::max_element(counts.begin(), counts.end());
    auto *upper = new QLineSeries;
    QList<QPointF> points;
    points.reserve(static_cast<qsizetype>(counts.size() * 2));
    for (std::size_t i = 0; i < counts.size(); ++i) {
        const double y = std::max(floor, static_cast<double>(counts[i]));
        points.append({ m_histogram.edge(i), y });
        points.append({ i + 1 == counts.size() ? m_histogram.hi : m_histogram.edge(i + 1), y });
    }
    upper->replace(points);
    auto *lower = new QLineSeries;
    lower->append(m_histogram.lo, floor);
    lower->append(m_histogram.hi, floor);
    auto *area = new QAreaSeries(upper, lower); // owns neither: parent them to the area
    upper->setParent(area);
    lower->setParent(area);
    area->setBrush(kFill);
    area->setPen(QPen(kLine, 1));
    m_chart->addSeries(area);

    auto *x = new QValueAxis;
    x->setRange(m_histogram.lo, m_histogram.hi);
    // Ticks at round values (0, ±0.05, …) rather than at fifths of [min, max]: readable labels.
    if (const double span = m_histogram.hi - m_histogram.lo; span > 0 && std::isfinite(span)) {
        const double step = niceStep(span, 5);
        x->setTickType(QValueAxis::TicksDynamic);
        x->setTickInterval(step);
        x->setTickAnchor(std::ceil(m_histogram.lo / step) * step);
    }
    x->setLabelFormat(u"%.4g"_s);
    x->setTitleText(tr("value"));
    QAbstractAxis *y;
    if (m_logarithmic) {
        auto *log = new QLogValueAxis;
        log->setBase(10);
        log->setRange(kLogFloor, std::max(10.0, static_cast<double>(peak) * 2));
        log->setLabelFormat(u"%.0f"_s);
        log->setMinorTickCount(-1);
        y = log;
    } else {
        auto *linear = new QValueAxis;
        linear->setRange(0, std::max<double>(1, static_cast<double>(peak) * 1.05));
        linear->setLabelFormat(u"%.0f"_s);
        linear->applyNiceNumbers();
        y = linear;
    }
    y->setTitleText(m_logarithmic ? tr("count (log)") : tr("count"));
    for (QAbstractAxis *axis : { static_cast<QAbstractAxis *>(x), y }) {
        axis->setLabelsFont(font());
        QFont title = font();
        title.setItalic(true);
        axis->setTitleFont(title);
    }
    m_chart->addAxis(x, Qt::AlignBottom);
    m_chart->addAxis(y, Qt::AlignLeft);
    area->attachAxis(x);
    area->attachAxis(y);
    applyPalette(m_chart, palette());

    connect(area, &QAreaSeries::hovered, this, [this](const QPointF &point, bool state) {
        const int bin = m_histogram.binOf(point.x());
        if (!state || bin < 0) {
            QToolTip::hideText();
            return;
        }
        const auto i = static_cast<std::size_t>(bin);
        const bool last = i + 1 == m_histogram.counts.size();
        QToolTip::showText(QCursor::pos(),
            tr("[%1, %2%3: %4")
                .arg(binText(m_histogram.edge(i)), binText(last ? m_histogram.hi : m_histogram.edge(i + 1)),
                    last ? u"]"_s : u")"_s,
                    QLocale().toString(static_cast<qulonglong>(m_histogram.counts[i]))),
            this);
    });
}

} // namespace stb
