#include "ui/shell/filewatcher.h"

#include <QFileInfo>

namespace stb {

FileWatcher::FileWatcher(QObject *parent, int delay)
    : QObject(parent)
{
    m_timer.setSingleShot(true);
    m_timer.setInterval(delay);
    connect(&m_timer, &QTimer::timeout, this, &FileWatcher::report);
    connect(&m_watcher, &QFileSystemWatcher::fileChanged, this, &FileWatcher::onFileChanged);
    connect(&m_watcher, &QFileSystemWatcher::directoryChanged, this, &FileWatcher::onDirectoryChanged);
}

void FileWatcher::addPath(const QString &path)
{
    if (m_refs[path]++ > 0)
        return;
    if (QFileInfo::exists(path))
        m_watcher.addPath(path);
    const QString directory = QFileInfo(path).absolutePath();
    if (m_directoryRefs[directory]++ == 0)
        m_watcher.addPath(directory);
}

void FileWatcher::removePath(const QString &path)
{
    const auto it = m_refs.find(path);
    if (it == m_refs.end() || --it.value() > 0)
        return;
    m_refs.erase(it);
    m_changed.remove(path);
    m_watcher.removePath(path);
    const QString directory = QFileInfo(path).absolutePath();
    const auto dir = m_directoryRefs.find(directory);
    if (dir != m_directoryRefs.end() && --dir.value() == 0) {
        m_directoryRefs.erase(dir);
        m_watcher.removePath(directory);
    }
}

void FileWatcher::onFileChanged(const QString &path)
{
    if (!m_refs.contains(path))
        return;
    m_changed.insert(path);
    m_timer.start(); // restarts: one report after the burst settles
}

void FileWatcher::onDirectoryChanged(const QString &directory)
{
    // Only interesting when a watched file that had vanished is back (or was renamed over).
    for (auto it = m_refs.cbegin(); it != m_refs.cend(); ++it) {
        if (!m_watcher.files().contains(it.key()) && QFileInfo(it.key()).absolutePath() == directory
            && QFileInfo::exists(it.key())) {
            m_changed.insert(it.key());
            m_timer.start();
        }
    }
}

void FileWatcher::flush()
{
    m_timer.stop();
    report();
}

void FileWatcher::report()
{
    QStringList changed;
    for (const QString &path : std::as_const(m_changed)) {
        if (!m_refs.contains(path))
            continue;
        changed << path;
        // Re-arm: after a rename-over the old watch follows the old file (still alive while we
        // map it), so the path's new file would go unnoticed.
        m_watcher.removePath(path);
        if (QFileInfo::exists(path))
            m_watcher.addPath(path);
    }
    m_changed.clear();
    if (!changed.isEmpty()) {
        changed.sort();
        emit pathsChanged(changed);
    }
}

} // namespace stb
