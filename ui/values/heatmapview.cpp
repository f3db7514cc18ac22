#include "ui/values/heatmapview.h"

#include "ui/common/qtformat.h"

#include <QMouseEvent>
#include <QPainter>
#include <QToolTip>

#include <cmath>

using namespace Qt::StringLiterals;

namespace stb {

namespace {

constexpr int kBarWidth = 16;
constexpr int kBarArea = 124; // the bar, its labels ("≥ -0.0123456") and the swatches
constexpr int kDragDistance = 4;

QColor qColour(Rgb rgb)
{
    return QColor(rgb.r, rgb.g, rgb.b);
}

QString number(double value)
{
    return QString::number(value, 'g', 6);
}

} // namespace

HeatmapView::HeatmapView(QWidget *parent)
    : QWidget(parent)
{
    setMouseTracking(true);
    setMinimumSize(160, 120);
}

void HeatmapView::setSummary(std::shared_ptr<const HeatmapSummary> summary, ColourRange range)
{
    m_summary = std::move(summary);
    m_image = {};
    if (m_summary && m_summary->cellRows && m_summary->cellCols) {
        m_scale = scaleFor(*m_summary, range);
        const std::vector<Rgb> pixels = cellColours(*m_summary, m_scale);
        m_image = QImage(reinterpret_cast<const uchar *>(pixels.data()), int(m_summary->cellCols),
            int(m_summary->cellRows), int(m_summary->cellCols) * 3, QImage::Format_RGB888)
                      .copy(); // own the pixels
    }
    update();
}

void HeatmapView::clear()
{
    setSummary(nullptr, ColourRange::Symmetric);
}

QRect HeatmapView::cellArea() const
{
    return rect().adjusted(4, 4, -kBarArea, -4);
}

std::optional<std::pair<std::uint32_t, std::uint32_t>> HeatmapView::cellAt(const QPoint &point) const
{
    const QRect area = cellArea();
    if (m_image.isNull() || !area.contains(point))
        return std::nullopt;
    const auto i = static_cast<std::uint32_t>(std::min<qint64>(
        qint64(point.y() - area.top()) * m_summary->cellRows / area.height(), m_summary->cellRows - 1));
    const auto j = static_cast<std::uint32_t>(std::min<qint64>(
        qint64(point.x() - area.left()) * m_summary->cellCols / area.width(), m_summary->cellCols - 1));
    return std::pair { i, j };
}

QString HeatmapView::cellText(std::uint32_t i, std::uint32_t j) const
{
    const HeatmapSummary &s = *m_summary;
    const std::size_t c = s.cellIndex(i, j);
    // "row 7" for a cell one row high, "rows 7–9" for more.
    const auto range = [](const QString &one, const QString &many, std::uint64_t begin, std::uint64_t end) {
        return end - begin == 1 ? one.arg(begin) : many.arg(begin).arg(end - 1);
    };
    QString text = range(tr("row %1"), tr("rows %1–%2"), m_row0 + s.rowBegin(i), m_row0 + s.rowBegin(i + 1))
        + u", "_s
        + range(tr("column %1"), tr("columns %1–%2"), m_col0 + s.colBegin(j), m_col0 + s.colBegin(j + 1));
    if (s.finite(i, j) > 0)
        text += tr("\nmin %1  max %2  mean %3").arg(number(s.min[c]), number(s.max[c]), number(s.mean[c]));
    else
        text += tr("\nno finite values");
    if (s.nanCount(c) || s.posInfCount(c) || s.negInfCount(c))
        text += tr("\nNaN %1  +Inf %2  −Inf %3")
                    .arg(countText(s.nanCount(c)), countText(s.posInfCount(c)), countText(s.negInfCount(c)));
    return text;
}

void HeatmapView::paintEvent(QPaintEvent *)
{
    QPainter painter(this);
    painter.fillRect(rect(), palette().window());
    if (m_image.isNull()) {
        painter.drawText(rect(), Qt::AlignCenter, tr("No values to draw"));
        return;
    }
    const QRect area = cellArea();
    painter.setRenderHint(QPainter::SmoothPixmapTransform, false); // cells stay crisp rectangles
    painter.drawImage(area, m_image);
    if (m_dragging) {
        painter.setPen(QPen(Qt::white, 1, Qt::DashLine));
        painter.setBrush(QColor(255, 255, 255, 40));
        painter.drawRect(m_band.normalized());
    }
    paintColourBar(painter,
        QRect(area.right() + 12, area.top() + 4, kBarWidth,
            std::max(40, area.height() - 80 - (m_scale.clipped ? 3 * fontMetrics().height() : 0))));
}

void HeatmapView::paintColourBar(QPainter &painter, const QRect &bar)
{
    for (int y = 0; y < bar.height(); ++y) {
        const double t = 1.0 - double(y) / std::max(1, bar.height() - 1);
        painter.setPen(qColour(m_scale.colourAt(t)));
        painter.drawLine(bar.left(), bar.top() + y, bar.right(), bar.top() + y);
    }
    painter.setPen(palette().color(QPalette::WindowText));
    painter.setBrush(Qt::NoBrush);
    painter.drawRect(bar.adjusted(0, 0, -1, -1));
    const int textX = bar.right() + 4;
    const QFontMetrics metrics(font());
    // A clipped range says so: its ends are "at least" and "at most", and a note under the swatches.
    const QString above = m_scale.clipped ? u"≥ "_s : QString(),
                  below = m_scale.clipped ? u"≤ "_s : QString();
    painter.drawText(textX, bar.top() + metrics.ascent() / 2, above + number(m_scale.hi));
    painter.drawText(textX, bar.bottom() + metrics.ascent() / 2, below + number(m_scale.lo));
    if (m_scale.diverging)
        painter.drawText(textX, bar.center().y() + metrics.ascent() / 2, u"0"_s);
    // Swatches for the values that have no place on the bar.
    int y = bar.bottom() + 12;
    const std::pair<Rgb, QString> swatches[]
        = { { kNaNColour, u"NaN"_s }, { kPosInfColour, u"+Inf"_s }, { kNegInfColour, u"−Inf"_s } };
    for (const auto &[colour, label] : swatches) {
        painter.fillRect(QRect(bar.left(), y, kBarWidth, 12), qColour(colour));
        painter.drawText(textX, y + 10, label);
        y += 18;
    }
    if (m_scale.clipped) {
        const QRect note(bar.left(), y, width() - bar.left(), 3 * metrics.height());
        painter.drawText(
            note, Qt::AlignLeft | Qt::AlignTop, tr("clipped at\nthe %1th\npercentile").arg(kClipPercentile));
    }
}

void HeatmapView::mousePressEvent(QMouseEvent *event)
{
    if (event->button() == Qt::LeftButton && cellAt(event->position().toPoint())) {
        m_pressed = event->position().toPoint();
        m_band = QRect(m_pressed, m_pressed);
    }
}

void HeatmapView::mouseMoveEvent(QMouseEvent *event)
{
    const QPoint point = event->position().toPoint();
    if ((event->buttons() & Qt::LeftButton) && !m_pressed.isNull()) {
        m_dragging = m_dragging || (point - m_pressed).manhattanLength() >= kDragDistance;
        m_band = QRect(m_pressed, point).intersected(cellArea().adjusted(0, 0, 1, 1));
        update();
        return;
    }
    if (const auto cell = cellAt(point))
        QToolTip::showText(event->globalPosition().toPoint(), cellText(cell->first, cell->second), this);
    else
        QToolTip::hideText();
}

void HeatmapView::mouseReleaseEvent(QMouseEvent *event)
{
    if (event->button() != Qt::LeftButton || m_pressed.isNull())
        return;
    const QRect band = m_band.normalized();
    const bool dragged = m_dragging;
    m_dragging = false;
    m_pressed = {};
    update();
    if (!dragged) {
        if (const auto cell = cellAt(event->position().toPoint()))
            emit cellClicked(cell->first, cell->second);
        return;
    }
    const auto from = cellAt(band.topLeft()), to = cellAt(band.bottomRight() - QPoint(1, 1));
    if (from && to)
        emit regionSelected(from->first, to->first, from->second, to->second);
}

} // namespace stb
