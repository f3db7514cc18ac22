#include "ui/common/longtextview.h"

#include "ui/common/qtformat.h"

#include <QFontDatabase>
#include <QPainter>
#include <QScrollBar>

#include <algorithm>
#include <cstring>
#include <limits>

namespace stb {

LongTextView::LongTextView(std::string text, QWidget *parent)
    : QAbstractScrollArea(parent)
    , m_text(std::move(text))
{
    setFont(QFontDatabase::systemFont(QFontDatabase::FixedFont));
    setHorizontalScrollBarPolicy(Qt::ScrollBarAlwaysOff);
    setFocusPolicy(Qt::StrongFocus);
    reindex();
}

LongTextView::Row LongTextView::rowAt(std::size_t start) const
{
    const std::size_t size = m_text.size();
    const auto columns = static_cast<std::size_t>(m_columns);
    const std::size_t window = std::min(columns + 1, size - start);
    if (const void *newline = std::memchr(m_text.data() + start, '\n', window)) {
        const auto end = static_cast<std::size_t>(static_cast<const char *>(newline) - m_text.data());
        return { end, end + 1 };
    }
    if (size - start <= columns)
        return { size, size };
    // Cut before a UTF-8 continuation byte, never inside a character (a row of at least
    // kMinColumns bytes always holds one whole character of at most 4).
    std::size_t end = start + columns;
    while (end > start + 1 && (static_cast<unsigned char>(m_text[end]) & 0xC0) == 0x80)
        --end;
    return { end, end };
}

void LongTextView::reindex()
{
    m_marks.clear();
    m_rows = 0;
    std::size_t start = 0;
    // Every text has at least one row; a final newline opens one more (empty) row.
    for (;;) {
        if (m_rows % kRowsPerMark == 0)
            m_marks.push_back(start);
        ++m_rows;
        const Row row = rowAt(start);
        if (row.next >= m_text.size() && !(row.next == m_text.size() && row.end < row.next))
            break;
        start = row.next;
    }
    const int visible = std::max(1, viewport()->height() / std::max(1, fontMetrics().lineSpacing()));
    const auto maxValue = std::min<std::size_t>(m_rows - 1, std::numeric_limits<int>::max());
    verticalScrollBar()->setRange(0, static_cast<int>(maxValue >= std::size_t(visible) ? maxValue - visible + 1 : 0));
    verticalScrollBar()->setPageStep(visible);
    verticalScrollBar()->setSingleStep(1);
    viewport()->update();
}

std::size_t LongTextView::rowStart(std::size_t row) const
{
    std::size_t start = m_marks[row / kRowsPerMark];
    for (std::size_t k = row / kRowsPerMark * kRowsPerMark; k < row; ++k)
        start = rowAt(start).next;
    return start;
}

QString LongTextView::rowText(std::size_t row) const
{
    if (row >= m_rows)
        return {};
    const std::size_t start = rowStart(row);
    return toQString(std::string_view(m_text).substr(start, rowAt(start).end - start));
}

void LongTextView::setColumns(int columns)
{
    columns = std::max(columns, kMinColumns);
    if (columns == m_columns)
        return;
    // Keep the first row on screen showing the same bytes after rewrapping.
    const std::size_t firstByte = m_rows ? rowStart(static_cast<std::size_t>(verticalScrollBar()->value())) : 0;
    m_columns = columns;
    reindex();
    const auto mark = std::upper_bound(m_marks.begin(), m_marks.end(), firstByte) - m_marks.begin() - 1;
    std::size_t row = static_cast<std::size_t>(std::max<std::ptrdiff_t>(mark, 0)) * kRowsPerMark;
    for (std::size_t start = m_marks[row / kRowsPerMark]; row + 1 < m_rows; ++row) {
        const std::size_t next = rowAt(start).next;
        if (next > firstByte)
            break;
        start = next;
    }
    verticalScrollBar()->setValue(static_cast<int>(std::min<std::size_t>(row, std::numeric_limits<int>::max())));
}

void LongTextView::resizeEvent(QResizeEvent *event)
{
    QAbstractScrollArea::resizeEvent(event);
    const int charWidth = std::max(1, fontMetrics().horizontalAdvance(u'M'));
    const int columns = std::max(kMinColumns, (viewport()->width() - 8) / charWidth);
    if (columns != m_columns)
        setColumns(columns);
    else
        reindex(); // the page step follows the height
}

void LongTextView::paintEvent(QPaintEvent *)
{
    QPainter painter(viewport());
    painter.setPen(palette().color(QPalette::Text));
    const int lineSpacing = std::max(1, fontMetrics().lineSpacing());
    const int ascent = fontMetrics().ascent();
    auto row = static_cast<std::size_t>(verticalScrollBar()->value());
    if (row >= m_rows)
        return;
    std::size_t start = rowStart(row);
    for (int y = 0; y < viewport()->height() && row < m_rows; y += lineSpacing, ++row) {
        const Row r = rowAt(start);
        painter.drawText(4, y + ascent, toQString(std::string_view(m_text).substr(start, r.end - start)));
        start = r.next;
    }
}

} // namespace stb
