#pragma once

#include <QObject>
#include <QStringList>

class QMenu;

namespace stb {

// The File › Open Recent list, kept in QSettings: newest first, at most ten, and entries whose
// file has vanished are dropped when the menu is shown. Paths are QStrings that carry every byte
// (qtformat.h: pathToQString), stored as the path's bytes, so a file whose name is not UTF-8
// ("bad\xff.safetensors") reopens from the menu; the menu shows names escaped and bounded.
class RecentFiles : public QObject {
    Q_OBJECT
public:
    static constexpr int kMaxEntries = 10;

    explicit RecentFiles(QMenu *menu, QObject *parent = nullptr);

    void add(const QString &path);
    QStringList paths() const;
    void clear();

signals:
    void openRequested(const QString &path);

private:
    void save(const QStringList &paths);
    void rebuildMenu();

    QMenu *m_menu;
};

} // namespace stb
