#pragma once

#include "ui/hex/hexgeometry.h"

#include <QColor>
#include <QPalette>

#include <cstddef>
#include <span>

class QPainter;

namespace stb {

// Paints the hex view's column titles and rows from bytes already copied out of the mapping,
// in the manner of Okteta's column renderers: one pass per visible row, no item per byte. Kept
// apart from HexView so the widget handles state and input, this only pixels.
class HexRowPainter {
public:
    static constexpr int kMargin = 6; // left padding, pixels

    // What to mark besides the bytes: the selected tensor's absolute [begin, end) and the cursor.
    struct Marks {
        quint64 tensorBegin = 0;
        quint64 tensorEnd = 0;
        quint64 cursor = 0;
        bool focused = false;
    };

    HexRowPainter(
        const QPalette &palette, hexgeometry::Columns columns, qreal charWidth, int lineHeight, int ascent);

    // The title band (one line high) at the top: "Offset", byte columns 00…0F, "ASCII".
    void paintHeader(QPainter &painter, int width, quint64 cursor) const;
    // `bytes` are the file's bytes from row `firstRow` on; the first row's top edge is at `top`.
    void paintRows(QPainter &painter, std::span<const std::byte> bytes, quint64 firstRow, int top, int bottom,
        const Marks &marks) const;

private:
    qreal x(int column) const { return kMargin + column * m_charWidth; }
    void paintRow(
        QPainter &painter, std::span<const std::byte> bytes, quint64 row, int y, const Marks &marks) const;

    QPalette m_palette;
    hexgeometry::Columns m_columns;
    qreal m_charWidth;
    int m_lineHeight;
    int m_ascent;
    QColor m_dim;
    QColor m_tint;
    QColor m_gutter;
};

} // namespace stb
