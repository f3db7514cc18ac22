#pragma once

#include <QtGlobal>

#include <algorithm>
#include <bit>
#include <cstdint>

// Row, offset, column and scrollbar arithmetic of the hex view, kept pure so that tests check it
// without a widget. Every offset and row is 64-bit; only scrollbar values are int.
namespace stb::hexgeometry {

// Bytes of a row: 16 in two groups of 8, or one group of 8 when the view is too narrow for 16
// (a 1024 px window's hex pane), so that no row ever needs a sideways scroll to reach its ASCII.
inline constexpr quint64 kBytesPerRow = 16;
inline constexpr quint64 kNarrowBytesPerRow = 8;
inline constexpr int kBytesPerGroup = 8;

// A QScrollBar's range is int, and a file of 2^64 bytes has 2^60 rows. Up to kScrollSteps rows
// the scrollbar value IS the top row; beyond it the range is [0, kScrollSteps] and values map
// linearly onto [0, maxTopRow], rounding to nearest, so both ends are exact (0 <-> 0 and
// kScrollSteps <-> maxTopRow) and a value in between lands within one step of the row. The
// top row itself is kept as a quint64 by the view, never derived back from the scrollbar, so
// keyboard and wheel moves of a single row stay exact. 2^30 leaves headroom below INT_MAX for
// QAbstractSlider's value + pageStep arithmetic; files up to 16 GiB map one to one.
inline constexpr int kScrollSteps = 1 << 30;

inline constexpr quint64 rowCount(quint64 fileSize, quint64 perRow = kBytesPerRow)
{
    return fileSize / perRow + (fileSize % perRow != 0);
}
inline constexpr quint64 rowOfOffset(quint64 offset, quint64 perRow = kBytesPerRow)
{
    return offset / perRow;
}
inline constexpr quint64 offsetOfRow(quint64 row, quint64 perRow = kBytesPerRow)
{
    return row * perRow;
}

// The last row that may be at the top when `visibleRows` full rows fit in the viewport.
inline constexpr quint64 maxTopRow(quint64 fileSize, quint64 visibleRows, quint64 perRow = kBytesPerRow)
{
    const quint64 rows = rowCount(fileSize, perRow);
    return rows > visibleRows ? rows - visibleRows : 0;
}

inline constexpr bool scrollBarScaled(quint64 maxTop)
{
    return maxTop > quint64(kScrollSteps);
}
inline constexpr int scrollBarMaximum(quint64 maxTop)
{
    return scrollBarScaled(maxTop) ? kScrollSteps : int(maxTop);
}

__extension__ using Wide = unsigned __int128; // maxTop * kScrollSteps needs 90 bits

inline constexpr quint64 topRowForScrollValue(int value, quint64 maxTop)
{
    if (value <= 0)
        return 0;
    if (!scrollBarScaled(maxTop))
        return std::min(quint64(value), maxTop);
    if (value >= kScrollSteps)
        return maxTop;
    return quint64((Wide(value) * maxTop + kScrollSteps / 2) / kScrollSteps);
}

inline constexpr int scrollValueForTopRow(quint64 topRow, quint64 maxTop)
{
    topRow = std::min(topRow, maxTop);
    if (!scrollBarScaled(maxTop))
        return int(topRow);
    return int((Wide(topRow) * kScrollSteps + maxTop / 2) / maxTop);
}

// Hex digits of the offset column: 8, or more when the last offset needs them (64-bit aware).
inline constexpr int offsetDigits(quint64 fileSize)
{
    const quint64 last = fileSize > 0 ? fileSize - 1 : 0;
    const int bits = 64 - std::countl_zero(last);
    return std::max(8, (bits + 3) / 4);
}

// Character columns of a row: "OFFSET  xx xx xx xx xx xx xx xx  xx … xx  ASCII…"
struct Columns {
    int digits = 8;
    int perRow = int(kBytesPerRow); // kBytesPerRow or kNarrowBytesPerRow

    constexpr int hexStart() const { return digits + 2; }
    constexpr int hexColumn(int byte) const
    {
        return hexStart() + byte * 3 + (byte >= kBytesPerGroup ? 1 : 0);
    }
    constexpr int hexEnd() const { return hexColumn(perRow - 1) + 2; }
    constexpr int asciiStart() const { return hexEnd() + 2; }
    constexpr int asciiColumn(int byte) const { return asciiStart() + byte; }
    constexpr int total() const { return asciiStart() + perRow; }

    // The byte of a row under character column `column` (hex digits, the space after a byte,
    // or an ASCII cell), or -1 in the gutters.
    constexpr int byteAtColumn(int column) const
    {
        for (int b = 0; b < perRow; ++b) {
            if (column >= hexColumn(b) && column < hexColumn(b) + 3)
                return b;
        }
        if (column >= asciiStart() && column < total())
            return column - asciiStart();
        return -1;
    }
};

// The bytes per row that fit `widthChars` character columns with `digits` offset digits: 16
// when a whole wide row fits, else 8 (which may still be wider than a very narrow view).
inline constexpr int bytesPerRowForWidth(int widthChars, int digits)
{
    return Columns { digits, int(kBytesPerRow) }.total() <= widthChars ? int(kBytesPerRow)
                                                                        : int(kNarrowBytesPerRow);
}

} // namespace stb::hexgeometry
