#pragma once

#include <QList>
#include <QRect>
#include <QString>

class QWidget;

namespace stb {

// Where a window goes back to on the next launch. saveGeometry/restoreGeometry keep the frame's
// position and, without a window manager (Xvfb, kiosks), put the window lower by the frame
// height Qt guessed on every launch. The client rectangle (QWidget::geometry) saved and given
// back to setGeometry is exact with or without one, and is checked against today's screens.

// `saved` moved (and if need be shrunk) so that it lies inside one of the `available` screen
// areas: the one it overlaps most, else the first. An empty `saved` or no screens: `saved`.
QRect placeOnScreens(const QRect &saved, const QList<QRect> &available);

// Under `key` in QSettings: the normal (not maximized) client rectangle and the maximized flag.
void saveWindowGeometry(const QWidget *window, const QString &key);
// Gives the window its saved rectangle placed on the current screens, maximized if it was;
// false (nothing changed) when nothing was saved. A saveGeometry() blob that older versions kept
// under `key` itself is read instead when there is no rectangle yet, and migrated (once).
bool restoreWindowGeometry(QWidget *window, const QString &key);

} // namespace stb
