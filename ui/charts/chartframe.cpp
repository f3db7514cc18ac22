#include "ui/charts/chartframe.h"

#include "ui/charts/chartpalette.h"

#include <QChart>
#include <QChartView>
#include <QEvent>
#include <QLabel>
#include <QMouseEvent>
#include <QRubberBand>
#include <QStackedLayout>
#include <QVBoxLayout>

#include <algorithm>
#include <cmath>

namespace stb {

// A chart view that turns the pointer into value units: hover, a horizontal drag (the x-range
// to zoom to) and a double-click. QChartView's own rubber band zooms the chart behind its
// owner's back (the ticks and the count axis would not follow), so the owner decides instead.
class ChartCanvas : public QChartView {
public:
    explicit ChartCanvas(ChartFrame *frame)
        : QChartView(frame)
        , m_frame(frame)
        , m_band(new QRubberBand(QRubberBand::Rectangle, viewport()))
    {
        setMouseTracking(true);
        viewport()->setMouseTracking(true);
    }

    bool zoomable = false;

protected:
    void mousePressEvent(QMouseEvent *event) override
    {
        if (zoomable && event->button() == Qt::LeftButton && plotContains(event->position())) {
            m_dragFrom = event->position().x();
            m_dragging = true;
            updateBand(event->position().x());
            m_band->show();
            event->accept();
            return;
        }
        QChartView::mousePressEvent(event);
    }
    void mouseMoveEvent(QMouseEvent *event) override
    {
        if (m_dragging) {
            updateBand(event->position().x());
            event->accept();
            return;
        }
        reportHover(event);
        QChartView::mouseMoveEvent(event);
    }
    void mouseReleaseEvent(QMouseEvent *event) override
    {
        if (!m_dragging || event->button() != Qt::LeftButton) {
            QChartView::mouseReleaseEvent(event);
            return;
        }
        m_dragging = false;
        m_band->hide();
        const QRectF plot = plotRect();
        const double a = std::clamp(m_dragFrom, plot.left(), plot.right());
        const double b = std::clamp(event->position().x(), plot.left(), plot.right());
        if (std::fabs(b - a) >= 4) { // a click is not a zoom
            const double lo = valueAt(std::min(a, b)), hi = valueAt(std::max(a, b));
            if (lo < hi)
                emit m_frame->xRangeSelected(lo, hi);
        }
        event->accept();
    }
    void mouseDoubleClickEvent(QMouseEvent *event) override
    {
        if (zoomable && event->button() == Qt::LeftButton) {
            emit m_frame->zoomResetRequested();
            event->accept();
            return;
        }
        QChartView::mouseDoubleClickEvent(event);
    }
    void leaveEvent(QEvent *event) override
    {
        emit m_frame->hovered(0, {}, false);
        QChartView::leaveEvent(event);
    }

private:
    // The plot area in the viewport's coordinates.
    QRectF plotRect() const
    {
        if (!chart())
            return {};
        return mapFromScene(chart()->mapToScene(chart()->plotArea())).boundingRect();
    }
    bool plotContains(const QPointF &pos) const { return chart() && plotRect().contains(pos); }
    double valueAt(double viewportX) const
    {
        const QPointF inChart = chart()->mapFromScene(mapToScene(QPoint(static_cast<int>(viewportX), 0)));
        return chart()->mapToValue(inChart).x();
    }
    void updateBand(double x)
    {
        const QRectF plot = plotRect();
        const double to = std::clamp(x, plot.left(), plot.right());
        m_band->setGeometry(QRectF(QPointF(std::min(m_dragFrom, to), plot.top()),
            QPointF(std::max(m_dragFrom, to), plot.bottom()))
                                .toRect());
    }
    void reportHover(QMouseEvent *event)
    {
        if (!chart() || chart()->series().isEmpty())
            return;
        const bool inside = plotContains(event->position());
        emit m_frame->hovered(inside ? valueAt(event->position().x()) : 0,
            event->globalPosition().toPoint(), inside);
    }

    ChartFrame *m_frame;
    QRubberBand *m_band;
    double m_dragFrom = 0;
    bool m_dragging = false;
};

ChartFrame::ChartFrame(QWidget *parent)
    : QWidget(parent)
    , m_stack(new QStackedLayout(this))
    , m_message(new QLabel(this))
    , m_chartPage(new QWidget(this))
    , m_canvas(new ChartCanvas(this))
    , m_note(new QLabel(this))
{
    m_message->setAlignment(Qt::AlignCenter);
    m_message->setWordWrap(true);
    m_message->setEnabled(false);
    m_canvas->setRenderHint(QPainter::Antialiasing);
    m_canvas->setFrameShape(QFrame::NoFrame);
    m_canvas->setMinimumHeight(140);
    m_note->setWordWrap(true);
    m_note->setEnabled(false); // secondary text, in the palette's disabled colour
    m_note->hide();
    auto *page = new QVBoxLayout(m_chartPage);
    page->setContentsMargins(0, 0, 0, 0);
    page->setSpacing(2);
    page->addWidget(m_canvas, 1);
    page->addWidget(m_note);
    m_stack->addWidget(m_message);
    m_stack->addWidget(m_chartPage);
}

ChartFrame::~ChartFrame() = default;

void ChartFrame::showMessage(const QString &text)
{
    m_messageText = text;
    m_message->setText(decoratedMessage(text));
    m_stack->setCurrentWidget(m_message);
}

QString ChartFrame::message() const
{
    return m_stack->currentWidget() == m_message ? m_messageText : QString();
}

QString ChartFrame::note() const
{
    return m_note->isHidden() ? QString() : m_note->text();
}

QWidget *ChartFrame::canvas() const
{
    return m_canvas->viewport();
}

QPoint ChartFrame::canvasPoint(const QPointF &value) const
{
    QChart *chart = m_canvas->chart();
    if (!chart || chart->series().isEmpty())
        return {};
    return m_canvas->mapFromScene(chart->mapToScene(chart->mapToPosition(value)));
}

void ChartFrame::showChart(QChart *chart)
{
    applyPalette(chart, palette());
    QChart *old = m_canvas->chart();
    m_canvas->setChart(chart);
    delete old; // setChart leaves the old chart to its caller
    m_stack->setCurrentWidget(m_chartPage);
}

QChart *ChartFrame::chart() const
{
    return m_canvas->chart();
}

QChartView *ChartFrame::view() const
{
    return m_canvas;
}

void ChartFrame::setZoomable(bool zoomable)
{
    m_canvas->zoomable = zoomable;
}

void ChartFrame::setNote(const QString &text)
{
    m_note->setText(text);
    m_note->setHidden(text.isEmpty());
}

void ChartFrame::changeEvent(QEvent *event)
{
    if (event->type() == QEvent::PaletteChange && m_canvas->chart())
        applyPalette(m_canvas->chart(), palette());
    QWidget::changeEvent(event);
}

} // namespace stb
