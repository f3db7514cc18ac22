#include "ui/layoutmap/layoutmapstyle.h"

#include "ui/common/statuscolors.h"

#include <QCoreApplication>
#include <QPainter>

namespace stb {

using Kind = Extent::Kind;

LayoutMapStyle LayoutMapStyle::forKind(Kind kind, bool otherTone, const QPalette &palette)
{
    const bool dark = isDarkPalette(palette);
    switch (kind) {
    case Kind::LengthPrefix:
        return { QColor(0x5b, 0x4b, 0x8a) };
    case Kind::Header:
        return { QColor(0x3b, 0x6f, 0xb6) };
    case Kind::Padding:
        return { QColor(0x9d, 0xbb, 0xe3) };
    case Kind::Tensor:
        return { otherTone ? QColor(0x6c, 0xc1, 0x9f) : QColor(0x3f, 0x9b, 0x7a) };
    case Kind::Hole:
        return dark ? LayoutMapStyle { QColor(0x3a, 0x3c, 0x41), Qt::Dense5Pattern, QColor(0x8a, 0x8d, 0x93) }
                    : LayoutMapStyle { QColor(0xe4, 0xe4, 0xe4), Qt::Dense5Pattern, QColor(0x9a, 0x9a, 0x9a) };
    case Kind::Overlap:
        return { QColor(0xf6, 0xc4, 0xc4), Qt::BDiagPattern, QColor(0xd0, 0x1f, 0x1f) };
    case Kind::Trailing:
        return { QColor(0xd9, 0xa4, 0x41) };
    case Kind::Missing:
        return { palette.color(QPalette::Base), Qt::DiagCrossPattern, toneText(Tone::Bad, palette) };
    }
    return {};
}

LayoutMapStyle LayoutMapStyle::selected()
{
    return { QColor(0xff, 0x8c, 0x1a) };
}

int LayoutMapStyle::priority(Kind kind)
{
    switch (kind) {
    case Kind::Overlap:
        return 5;
    case Kind::Missing:
        return 4;
    case Kind::Hole:
        return 3;
    case Kind::Trailing:
        return 2;
    case Kind::Tensor:
        return 1;
    default:
        return 0;
    }
}

QString LayoutMapStyle::label(Kind kind)
{
    const auto tr = [](const char *text) { return QCoreApplication::translate("stb::LayoutMapView", text); };
    switch (kind) {
    case Kind::LengthPrefix:
        return tr("Length prefix");
    case Kind::Header:
        return tr("Header");
    case Kind::Padding:
        return tr("Padding");
    case Kind::Tensor:
        return tr("Tensors");
    case Kind::Hole:
        return tr("Hole");
    case Kind::Overlap:
        return tr("Overlap");
    case Kind::Trailing:
        return tr("Trailing bytes");
    case Kind::Missing:
        return tr("Missing (past the end)");
    }
    return {};
}

void LayoutMapStyle::paint(QPainter &painter, const QRect &rect) const
{
    painter.fillRect(rect, fill);
    if (pattern != Qt::NoBrush)
        painter.fillRect(rect, QBrush(patternColor, pattern));
}

} // namespace stb
