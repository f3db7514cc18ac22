#include "ui/hex/hexrowpainter.h"

#include <QPainter>

#include <array>

using namespace Qt::StringLiterals;

namespace stb {

namespace hg = hexgeometry;

namespace {

const std::array<QString, 256> &hexTexts()
{
    static const std::array<QString, 256> texts = [] {
        std::array<QString, 256> t;
        for (int i = 0; i < 256; ++i)
            t[std::size_t(i)] = QString::number(i, 16).toUpper().rightJustified(2, u'0');
        return t;
    }();
    return texts;
}

QColor mix(const QColor &a, const QColor &b, qreal t)
{
    return QColor::fromRgbF(a.redF() * (1 - t) + b.redF() * t, a.greenF() * (1 - t) + b.greenF() * t,
        a.blueF() * (1 - t) + b.blueF() * t);
}

} // namespace

HexRowPainter::HexRowPainter(
    const QPalette &palette, hg::Columns columns, qreal charWidth, int lineHeight, int ascent)
    : m_palette(palette)
    , m_columns(columns)
    , m_charWidth(charWidth)
    , m_lineHeight(lineHeight)
    , m_ascent(ascent)
    // Zero bytes and control characters are dimmed, as Okteta does: padding and empty
    // tensors then read at a glance.
    , m_dim(mix(palette.color(QPalette::Text), palette.color(QPalette::Base), 0.55))
    , m_tint(mix(palette.color(QPalette::Highlight), palette.color(QPalette::Base), 0.78))
    , m_gutter(mix(palette.color(QPalette::AlternateBase), palette.color(QPalette::Mid), 0.15))
{ }

void HexRowPainter::paintHeader(QPainter &painter, int width, quint64 cursor) const
{
    painter.fillRect(QRectF(0, 0, width, m_lineHeight), m_gutter);
    painter.setPen(m_palette.color(QPalette::Mid));
    painter.drawLine(QPointF(0, m_lineHeight - 0.5), QPointF(width, m_lineHeight - 0.5));
    const int baseline = m_ascent;
    const int cursorByte = int(cursor % quint64(m_columns.perRow));
    painter.setPen(m_dim);
    painter.drawText(QPointF(x(0), baseline), u"Offset"_s);
    for (int b = 0; b < m_columns.perRow; ++b) {
        painter.setPen(b == cursorByte ? m_palette.color(QPalette::Text) : m_dim);
        painter.drawText(QPointF(x(m_columns.hexColumn(b)), baseline), hexTexts()[std::size_t(b)]);
    }
    painter.setPen(m_dim);
    painter.drawText(QPointF(x(m_columns.asciiStart()), baseline), u"ASCII"_s);
}

void HexRowPainter::paintRows(QPainter &painter, std::span<const std::byte> bytes, quint64 firstRow, int top,
    int bottom, const Marks &marks) const
{
    // The offset column is a gutter, with separators before the hex and the ASCII columns.
    const qreal gutterEnd = x(m_columns.digits) + m_charWidth;
    painter.fillRect(QRectF(0, top, gutterEnd, bottom - top), m_gutter);
    painter.setPen(m_palette.color(QPalette::Midlight));
    const qreal asciiLine = x(m_columns.asciiStart()) - m_charWidth;
    painter.drawLine(QPointF(asciiLine, top), QPointF(asciiLine, bottom));
    const auto perRow = std::size_t(m_columns.perRow);
    for (std::size_t r = 0; r * perRow < bytes.size(); ++r) {
        const std::size_t begin = r * perRow;
        const auto row = bytes.subspan(begin, std::min(perRow, bytes.size() - begin));
        paintRow(painter, row, firstRow + r, top + int(r) * m_lineHeight, marks);
    }
}

void HexRowPainter::paintRow(
    QPainter &painter, std::span<const std::byte> bytes, quint64 row, int y, const Marks &marks) const
{
    const quint64 rowOffset = hg::offsetOfRow(row, quint64(m_columns.perRow));
    const int baseline = y + m_ascent;
    const bool cursorRow = hg::rowOfOffset(marks.cursor, quint64(m_columns.perRow)) == row;
    painter.setPen(cursorRow ? m_palette.color(QPalette::Text) : m_dim);
    painter.drawText(QPointF(x(0), baseline),
        QString::number(rowOffset, 16).toUpper().rightJustified(m_columns.digits, u'0'));
    const auto inTensor
        = [&](quint64 offset) { return offset >= marks.tensorBegin && offset < marks.tensorEnd; };
    const QColor highlight = m_palette.color(QPalette::Highlight);
    for (int b = 0; b < int(bytes.size()); ++b) {
        const quint64 offset = rowOffset + quint64(b);
        const auto value = std::to_integer<unsigned>(bytes[std::size_t(b)]);
        const qreal hexX = x(m_columns.hexColumn(b));
        const qreal asciiX = x(m_columns.asciiColumn(b));
        if (inTensor(offset)) {
            // Reach over the gap to the next byte when it is tinted too: one band, not beads.
            const bool joins = b + 1 < int(bytes.size()) && inTensor(offset + 1);
            const qreal hexRight = joins ? x(m_columns.hexColumn(b + 1)) : hexX + 2 * m_charWidth;
            painter.fillRect(QRectF(hexX, y, hexRight - hexX, m_lineHeight), m_tint);
            painter.fillRect(QRectF(asciiX, y, m_charWidth, m_lineHeight), m_tint);
        }
        const bool atCursor = offset == marks.cursor;
        if (atCursor) {
            const QRectF hexCell(hexX - 1, y, 2 * m_charWidth + 2, m_lineHeight);
            const QRectF asciiCell(asciiX, y, m_charWidth, m_lineHeight);
            if (marks.focused) {
                painter.fillRect(hexCell, highlight);
                painter.fillRect(asciiCell, highlight);
            } else {
                painter.setPen(highlight);
                painter.drawRect(hexCell.adjusted(0, 0, -1, -1));
                painter.drawRect(asciiCell.adjusted(0, 0, -1, -1));
            }
        }
        const bool printable = value >= 0x20 && value < 0x7F;
        const QColor text = atCursor && marks.focused ? m_palette.color(QPalette::HighlightedText)
                                                      : m_palette.color(QPalette::Text);
        painter.setPen(value == 0 && !(atCursor && marks.focused) ? m_dim : text);
        painter.drawText(QPointF(hexX, baseline), hexTexts()[value]);
        painter.setPen(printable || (atCursor && marks.focused) ? text : m_dim);
        painter.drawText(QPointF(asciiX, baseline), printable ? QString(QChar(value)) : u"·"_s);
    }
}

} // namespace stb
