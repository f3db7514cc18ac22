#include "ui/shell/windowgeometry.h"

#include <QGuiApplication>
#include <QScreen>
#include <QSettings>
#include <QWidget>

#include <algorithm>

using namespace Qt::StringLiterals;

namespace stb {

namespace {

qint64 overlap(const QRect &a, const QRect &b)
{
    const QRect common = a.intersected(b);
    return common.isEmpty() ? 0 : qint64(common.width()) * common.height();
}

// Before the client rectangle, a window's saveGeometry() blob was kept under `key` itself. An
// upgraded user's first launch reads it once, so the window comes back where it was: the blob is
// given to restoreGeometry, what it restored is saved the new way and the blob is dropped.
bool migrateGeometryBlob(QWidget *window, const QString &key)
{
    QSettings settings;
    const QVariant old = settings.value(key);
    if (old.typeId() != QMetaType::QByteArray)
        return false;
    const QByteArray blob = old.toByteArray();
    settings.remove(key); // read once, good or not
    if (blob.isEmpty() || !window->restoreGeometry(blob))
        return false;
    saveWindowGeometry(window, key);
    return true;
}

} // namespace

QRect placeOnScreens(const QRect &saved, const QList<QRect> &available)
{
    if (saved.isEmpty() || available.isEmpty())
        return saved;
    QRect screen = available.first();
    qint64 best = 0;
    for (const QRect &area : available) {
        if (const qint64 o = overlap(saved, area); o > best)
            best = o, screen = area;
    }
    QRect placed(saved.topLeft(), saved.size().boundedTo(screen.size()));
    placed.moveLeft(std::clamp(placed.left(), screen.left(), screen.right() + 1 - placed.width()));
    placed.moveTop(std::clamp(placed.top(), screen.top(), screen.bottom() + 1 - placed.height()));
    return placed;
}

void saveWindowGeometry(const QWidget *window, const QString &key)
{
    QSettings settings;
    const bool maximized = window->isMaximized();
    settings.setValue(key + u"/rect"_s, maximized ? window->normalGeometry() : window->geometry());
    settings.setValue(key + u"/maximized"_s, maximized);
}

bool restoreWindowGeometry(QWidget *window, const QString &key)
{
    const QSettings settings;
    QRect saved = settings.value(key + u"/rect"_s).toRect();
    if (saved.isEmpty() && migrateGeometryBlob(window, key))
        saved = QSettings().value(key + u"/rect"_s).toRect();
    if (saved.isEmpty())
        return false;
    QList<QRect> available;
    for (const QScreen *screen : QGuiApplication::screens())
        available << screen->availableGeometry();
    window->setGeometry(placeOnScreens(saved, available));
    if (settings.value(key + u"/maximized"_s).toBool())
        window->setWindowState(window->windowState() | Qt::WindowMaximized);
    return true;
}

} // namespace stb
