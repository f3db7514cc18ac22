#pragma once

#include "core/io/fileextents.h"

#include <QColor>
#include <QPalette>
#include <QString>

class QPainter;
class QRect;

namespace stb {

// How the layout map paints each kind of extent, shared by the band and its legend. Problems
// draw the eye (red, hatched); the healthy parts stay calm.
struct LayoutMapStyle {
    QColor fill;
    Qt::BrushStyle pattern = Qt::NoBrush;
    QColor patternColor = {};

    // Tensors alternate two tones (`otherTone`) so that neighbours stay apart. Holes and missing
    // bytes are drawn in the palette's own light or dark, hatched, so they do not glare.
    static LayoutMapStyle forKind(Extent::Kind kind, bool otherTone = false, const QPalette &palette = QPalette());
    static LayoutMapStyle selected();
    // A run of extents narrower than a pixel is painted as one, in the colour of the kind with
    // the highest priority among them: an overlap must not vanish among a thousand tensors.
    static int priority(Extent::Kind kind);
    static QString label(Extent::Kind kind);

    void paint(QPainter &painter, const QRect &rect) const;
};

} // namespace stb
