#pragma once

#include "core/io/fileextents.h"

#include <QColor>
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

    // Tensors alternate two tones (`otherTone`) so that neighbours stay apart.
    static LayoutMapStyle forKind(Extent::Kind kind, bool otherTone = false);
    static LayoutMapStyle selected();
    // A run of extents narrower than a pixel is painted as one, in the colour of the kind with
    // the highest priority among them: an overlap must not vanish among a thousand tensors.
    static int priority(Extent::Kind kind);
    static QString label(Extent::Kind kind);

    void paint(QPainter &painter, const QRect &rect) const;
};

} // namespace stb
