#pragma once

#include <QFileSystemWatcher>
#include <QHash>
#include <QObject>
#include <QSet>
#include <QTimer>

namespace stb {

// Tells when watched files change or vanish, once per burst of changes (a writer that appends
// in chunks, a tool that saves by writing a temporary file and renaming it over the original).
// After an atomic replace the path names a new file: the watch is re-armed on it (and on a file
// that reappears after being deleted, through a watch on its folder), as Tiled's
// FileSystemWatcher does. Paths are reference-counted: two documents may watch one shard.
class FileWatcher : public QObject {
    Q_OBJECT
public:
    // `delay`: how long the files must stay quiet before a burst of changes is reported.
    explicit FileWatcher(QObject *parent = nullptr, int delay = 300);

    void addPath(const QString &path);
    void removePath(const QString &path);
    QStringList paths() const { return m_refs.keys(); }
    void setDelay(int milliseconds) { m_timer.setInterval(milliseconds); }
    // Changes noticed and not reported yet (the delay is running).
    bool hasPending() const { return !m_changed.isEmpty(); }
    // Reports the pending changes now instead of when the delay runs out.
    void flush();

signals:
    // Paths that changed, were replaced, vanished or came back since the last report.
    void pathsChanged(const QStringList &paths);

private:
    void onFileChanged(const QString &path);
    void onDirectoryChanged(const QString &directory);
    void report();

    QFileSystemWatcher m_watcher;
    QHash<QString, int> m_refs;
    QHash<QString, int> m_directoryRefs;
    QSet<QString> m_changed;
    QTimer m_timer;
};

} // namespace stb
