#pragma once

#include <QStringList>

class QMimeData;

namespace stb {

// The local files a drag carries, in the order given; empty when it carries none (web links,
// text, nullptr). Every window that opens dropped files asks this, so they accept the same drops.
QStringList droppedLocalFiles(const QMimeData *mime);

} // namespace stb
