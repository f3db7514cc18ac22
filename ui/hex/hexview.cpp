#include "ui/hex/hexview.h"

#include "core/io/safetensorsfile.h"
#include "ui/hex/bytedescription.h"
#include "ui/hex/hexrowpainter.h"

#include <QApplication>
#include <QFontDatabase>
#include <QKeyEvent>
#include <QPainter>
#include <QScrollBar>
#include <QtMath>

using namespace Qt::StringLiterals;

namespace stb {

namespace hg = hexgeometry;

namespace {

constexpr int kMargin = HexRowPainter::kMargin;

} // namespace

HexView::HexView(QWidget *parent)
    : QAbstractScrollArea(parent)
{
    setFont(QFontDatabase::systemFont(QFontDatabase::FixedFont));
    setFocusPolicy(Qt::StrongFocus);
    viewport()->setCursor(Qt::IBeamCursor);
    verticalScrollBar()->setSingleStep(1);
    connect(verticalScrollBar(), &QScrollBar::valueChanged, this, &HexView::onScrollValue);
    connect(verticalScrollBar(), &QScrollBar::actionTriggered, this, &HexView::onScrollAction);
    updateMetrics();
    updateScrollBars();
}

HexView::~HexView() = default;

quint64 HexView::fileSize() const
{
    return m_file ? m_file->mapping().size() : 0;
}

quint64 HexView::visibleRowCount() const
{
    const int rowsHeight = viewport()->height() - m_lineHeight;
    return quint64(std::max(1, rowsHeight / m_lineHeight));
}

quint64 HexView::maxTop() const
{
    return hg::maxTopRow(fileSize(), visibleRowCount(), perRow());
}

void HexView::setFile(std::shared_ptr<const SafetensorsFile> file)
{
    m_file = std::move(file);
    m_extents.clear();
    m_extentsReady = false;
    m_tensor = nullptr;
    m_cursor = 0;
    m_topRow = 0;
    m_pixelOffset = 0;
    m_wheelRemainder = 0;
    m_stale = false;
    m_readFailed = false;
    m_columns.digits = hg::offsetDigits(fileSize());
    updateScrollBars();
    viewport()->update();
    emit cursorMoved(m_cursor);
    updateDescription();
}

void HexView::setTensor(const TensorInfo *tensor)
{
    m_tensor = tensor;
    viewport()->update();
    updateDescription();
}

void HexView::setStale(bool stale)
{
    if (m_stale == stale)
        return;
    m_stale = stale;
    viewport()->update();
    updateDescription();
}

void HexView::goToOffset(quint64 offset)
{
    if (fileSize() == 0)
        return;
    m_cursor = std::min(offset, fileSize() - 1);
    // Two rows of context above, when the viewport is tall enough to spare them.
    const quint64 row = hg::rowOfOffset(m_cursor, perRow());
    const quint64 context = visibleRowCount() > 4 ? 2 : 0;
    setTopRow(row > context ? row - context : 0);
    emit cursorMoved(m_cursor);
    updateDescription();
}

void HexView::moveCursorTo(quint64 offset, bool ensureVisible)
{
    if (fileSize() == 0)
        return;
    offset = std::min(offset, fileSize() - 1);
    const bool moved = offset != m_cursor;
    m_cursor = offset;
    if (ensureVisible)
        ensureCursorVisible();
    viewport()->update();
    if (moved) {
        emit cursorMoved(m_cursor);
        updateDescription();
    }
}

void HexView::moveCursorBy(qint64 delta)
{
    if (delta < 0)
        moveCursorTo(quint64(-delta) > m_cursor ? 0 : m_cursor - quint64(-delta));
    else
        moveCursorTo(quint64(delta) > UINT64_MAX - m_cursor ? UINT64_MAX : m_cursor + quint64(delta));
}

void HexView::ensureCursorVisible()
{
    const quint64 row = hg::rowOfOffset(m_cursor, perRow());
    const quint64 rows = visibleRowCount();
    if (row < m_topRow || (row == m_topRow && m_pixelOffset > 0))
        setTopRow(row);
    else if (row >= m_topRow + rows)
        setTopRow(row - rows + 1);
}

void HexView::setTopRow(quint64 row, int pixelOffset)
{
    const quint64 last = maxTop();
    if (row >= last) {
        row = last;
        pixelOffset = 0;
    }
    m_topRow = row;
    m_pixelOffset = pixelOffset;
    // onScrollValue sees a value that already matches m_topRow and keeps the exact row.
    verticalScrollBar()->setValue(hg::scrollValueForTopRow(m_topRow, last));
    viewport()->update();
}

void HexView::scrollByPixels(qint64 pixels)
{
    qint64 pixel = m_pixelOffset + pixels;
    qint64 rows = pixel / m_lineHeight;
    pixel %= m_lineHeight;
    if (pixel < 0) {
        pixel += m_lineHeight;
        --rows;
    }
    if (rows < 0 && quint64(-rows) > m_topRow)
        setTopRow(0, 0);
    else
        setTopRow(rows < 0 ? m_topRow - quint64(-rows) : m_topRow + quint64(rows), int(pixel));
}

void HexView::onScrollValue(int value)
{
    const quint64 last = maxTop();
    if (value == hg::scrollValueForTopRow(m_topRow, last))
        return;
    m_topRow = hg::topRowForScrollValue(value, last);
    m_pixelOffset = 0;
    viewport()->update();
}

// Arrow and trough clicks move by rows even when the scrollbar is scaled and one of its steps
// spans many rows. (Setting the value here also sets the position the slider then applies.)
void HexView::onScrollAction(int action)
{
    const auto page = qint64(visibleRowCount());
    using Slider = QAbstractSlider;
    const qint64 rows = action == Slider::SliderSingleStepAdd ? 1
        : action == Slider::SliderSingleStepSub               ? -1
        : action == Slider::SliderPageStepAdd                 ? page
        : action == Slider::SliderPageStepSub                 ? -page
                                                              : 0;
    if (rows != 0)
        scrollByRows(rows);
}

void HexView::scrollByRows(qint64 rows)
{
    if (rows < 0)
        setTopRow(quint64(-rows) > m_topRow ? 0 : m_topRow - quint64(-rows), m_pixelOffset);
    else
        setTopRow(m_topRow + quint64(rows), m_pixelOffset);
}

void HexView::scrollContentsBy(int, int)
{
    viewport()->update();
}

void HexView::updateMetrics()
{
    const QFontMetricsF metrics(font());
    m_charWidth = metrics.horizontalAdvance(u'0');
    m_lineHeight = qCeil(metrics.height()) + 2;
    m_ascent = qCeil(metrics.ascent()) + 1;
}

// 16 bytes a row when they fit the viewport, else 8: the ASCII column never needs a sideways
// scroll in a narrow window. The first byte shown stays at the top across the change.
void HexView::updateBytesPerRow()
{
    const int widthChars = qFloor((viewport()->width() - 2 * kMargin) / m_charWidth);
    const int perRow = hg::bytesPerRowForWidth(widthChars, m_columns.digits);
    if (perRow == m_columns.perRow)
        return;
    const quint64 firstByte = hg::offsetOfRow(m_topRow, this->perRow());
    m_columns.perRow = perRow;
    m_topRow = hg::rowOfOffset(firstByte, this->perRow());
}

void HexView::updateScrollBars()
{
    updateBytesPerRow();
    const quint64 last = maxTop();
    m_topRow = std::min(m_topRow, last);
    if (m_topRow == last)
        m_pixelOffset = 0;
    QScrollBar *bar = verticalScrollBar();
    const quint64 rows = visibleRowCount();
    const int page = hg::scrollBarScaled(last)
        ? int(std::max<quint64>(1, quint64(hg::Wide(rows) * hg::kScrollSteps / last)))
        : int(rows);
    bar->setRange(0, hg::scrollBarMaximum(last));
    bar->setPageStep(page);
    bar->setValue(hg::scrollValueForTopRow(m_topRow, last));

    const int contentWidth = 2 * kMargin + qCeil(m_columns.total() * m_charWidth);
    horizontalScrollBar()->setRange(0, std::max(0, contentWidth - viewport()->width()));
    horizontalScrollBar()->setPageStep(viewport()->width());
    horizontalScrollBar()->setSingleStep(qCeil(m_charWidth));
}

void HexView::updateDescription()
{
    ByteDescription description;
    if (m_file) {
        if (!m_extentsReady) {
            m_extents = m_stale || m_readFailed ? fileExtents(m_file->header(), {}) : fileExtents(*m_file);
            m_extentsReady = true;
        }
        bool unreadable = false;
        description
            = describeByte(*m_file, m_extents, m_tensor, m_cursor, !m_stale && !m_readFailed, &unreadable);
        if (unreadable)
            markUnreadable();
        if (m_stale)
            description.location += u" (the file changed on disk)"_s;
        else if (m_readFailed)
            description.location += u" (the file can no longer be read)"_s;
    }
    if (description.location != m_description || description.element != m_element) {
        m_description = description.location;
        m_element = description.element;
        emit cursorDescriptionChanged(m_description, m_element);
    }
}

// Called while painting: signals go out from the event loop, not from inside paintEvent.
void HexView::markUnreadable()
{
    if (m_readFailed)
        return;
    m_readFailed = true;
    QMetaObject::invokeMethod(
        this,
        [this] {
            updateDescription();
            viewport()->update();
            emit bytesUnreadable();
        },
        Qt::QueuedConnection);
}

std::optional<quint64> HexView::offsetAt(QPoint pos) const
{
    if (!m_file || pos.y() < m_lineHeight)
        return std::nullopt;
    const quint64 row = m_topRow + quint64((pos.y() - m_lineHeight + m_pixelOffset) / m_lineHeight);
    const int column = qFloor((pos.x() + horizontalScrollBar()->value() - kMargin) / m_charWidth);
    const int byte = m_columns.byteAtColumn(column);
    if (byte < 0)
        return std::nullopt;
    const quint64 offset = hg::offsetOfRow(row, perRow()) + quint64(byte);
    return offset < fileSize() ? std::optional(offset) : std::nullopt;
}

QSize HexView::sizeHint() const
{
    const hg::Columns wide { m_columns.digits }; // what the view would like: 16 bytes a row
    const int width = 2 * kMargin + qCeil(wide.total() * m_charWidth) + verticalScrollBar()->sizeHint().width();
    return { width + 2 * frameWidth(), 25 * m_lineHeight + 2 * frameWidth() };
}

void HexView::resizeEvent(QResizeEvent *event)
{
    QAbstractScrollArea::resizeEvent(event);
    updateScrollBars();
}

void HexView::changeEvent(QEvent *event)
{
    QAbstractScrollArea::changeEvent(event);
    if (event->type() == QEvent::FontChange) {
        updateMetrics();
        updateScrollBars();
    }
}

void HexView::focusInEvent(QFocusEvent *event)
{
    QAbstractScrollArea::focusInEvent(event);
    viewport()->update();
}

void HexView::focusOutEvent(QFocusEvent *event)
{
    QAbstractScrollArea::focusOutEvent(event);
    viewport()->update();
}

void HexView::keyPressEvent(QKeyEvent *event)
{
    const bool control = event->modifiers() & Qt::ControlModifier;
    const quint64 row = hg::offsetOfRow(hg::rowOfOffset(m_cursor, perRow()), perRow());
    const auto page = qint64(visibleRowCount());
    switch (event->key()) {
    case Qt::Key_Left:
        moveCursorBy(-1);
        break;
    case Qt::Key_Right:
        moveCursorBy(1);
        break;
    case Qt::Key_Up:
        moveCursorBy(-qint64(perRow()));
        break;
    case Qt::Key_Down:
        moveCursorBy(qint64(perRow()));
        break;
    case Qt::Key_PageUp:
        // The page moves with the cursor, as in text editors.
        scrollByRows(-page);
        moveCursorBy(-page * qint64(perRow()));
        break;
    case Qt::Key_PageDown:
        scrollByRows(page);
        moveCursorBy(page * qint64(perRow()));
        break;
    case Qt::Key_Home:
        moveCursorTo(control ? 0 : row);
        break;
    case Qt::Key_End:
        moveCursorTo(control ? UINT64_MAX : row + perRow() - 1);
        break;
    default:
        QAbstractScrollArea::keyPressEvent(event);
        return;
    }
    event->accept();
}

void HexView::mousePressEvent(QMouseEvent *event)
{
    if (event->button() != Qt::LeftButton)
        return QAbstractScrollArea::mousePressEvent(event);
    if (const auto offset = offsetAt(event->position().toPoint()))
        moveCursorTo(*offset, false);
    event->accept();
}

void HexView::mouseReleaseEvent(QMouseEvent *event)
{
    event->setAccepted(event->button() == Qt::LeftButton);
}

void HexView::mouseMoveEvent(QMouseEvent *event)
{
    if (event->buttons() & Qt::LeftButton) {
        if (const auto offset = offsetAt(event->position().toPoint()))
            moveCursorTo(*offset, false);
    }
}

void HexView::wheelEvent(QWheelEvent *event)
{
    const QPoint pixels = event->pixelDelta();
    const QPoint angle = event->angleDelta();
    if (angle.y() == 0 && pixels.y() == 0) {
        QAbstractScrollArea::wheelEvent(event); // horizontal
        return;
    }
    // Pixel deltas (touchpads) or eighths of a degree (120 a notch): both scroll by pixels, so
    // high-resolution wheels move smoothly instead of jumping whole rows.
    // The remainder of the division is carried over, so half notches add up to whole ones.
    qint64 dy = -qint64(pixels.y());
    if (pixels.isNull()) {
        const qint64 eighths
            = -qint64(angle.y()) * QApplication::wheelScrollLines() * m_lineHeight + m_wheelRemainder;
        dy = eighths / 120;
        m_wheelRemainder = int(eighths % 120);
    }
    scrollByPixels(dy);
    event->accept();
}

void HexView::paintEvent(QPaintEvent *)
{
    QPainter painter(viewport());
    painter.fillRect(viewport()->rect(), palette().base());
    if (!m_file)
        return paintNotice(painter, tr("No file"));
    if (m_stale)
        return paintNotice(
            painter, tr("The file changed on disk: its bytes are no longer shown. Reload it."));
    if (fileSize() == 0)
        return paintNotice(painter, tr("The file is empty"));
    const quint64 firstRow = m_topRow;
    const int height = viewport()->height() - m_lineHeight + m_pixelOffset;
    const auto rows = int(
        std::min<quint64>((height + m_lineHeight - 1) / m_lineHeight, hg::rowCount(fileSize(), perRow()) - firstRow));
    const quint64 begin = hg::offsetOfRow(firstRow, perRow());
    const auto length = std::min<quint64>(fileSize() - begin, quint64(rows) * perRow());
    m_rowBytes.resize(std::size_t(length));
    // pread, not the mapping: see MappedFile::read (resident memory stays flat while scrolling).
    if (m_readFailed || begin + length > m_file->mapping().size()
        || m_file->mapping().read(begin, m_rowBytes) != length) {
        markUnreadable();
        return paintNotice(painter,
            tr("The file's bytes can no longer be read: it was truncated or removed while "
               "open. Reload it."));
    }
    const HexRowPainter rowPainter(palette(), m_columns, m_charWidth, m_lineHeight, m_ascent);
    HexRowPainter::Marks marks;
    marks.cursor = m_cursor;
    marks.focused = hasFocus();
    if (m_tensor) {
        const Header &header = m_file->header();
        marks.tensorBegin = header.fileOffset(*m_tensor);
        marks.tensorEnd = marks.tensorBegin + m_tensor->byteLength();
    }
    painter.translate(-horizontalScrollBar()->value(), 0);
    painter.save();
    painter.setClipRect(
        QRect(0, m_lineHeight, viewport()->width() + horizontalScrollBar()->value(), viewport()->height()));
    rowPainter.paintRows(
        painter, m_rowBytes, firstRow, m_lineHeight - m_pixelOffset, viewport()->height(), marks);
    painter.restore();
    rowPainter.paintHeader(painter, viewport()->width() + horizontalScrollBar()->value(), m_cursor);
}

void HexView::paintNotice(QPainter &painter, const QString &text)
{
    painter.setFont(QApplication::font()); // prose, not bytes
    painter.setPen(palette().color(QPalette::PlaceholderText));
    painter.drawText(viewport()->rect().adjusted(12, 12, -12, -12), Qt::AlignCenter | Qt::TextWordWrap, text);
}

} // namespace stb
