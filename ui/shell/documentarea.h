#pragma once

#include <QWidget>

class QStackedLayout;
class QTabWidget;

namespace stb {

class CheckpointView;
class FileWatcher;

// The open documents: one closable tab per checkpoint, a tab with a message for a path that
// could not be read, and a hint page when nothing is open. Watches each document's files and
// marks a document stale when they change, offering a reload that keeps the selection.
class DocumentArea : public QWidget {
    Q_OBJECT
public:
    explicit DocumentArea(QWidget *parent = nullptr);

    // Opens `path` (a .safetensors or an .index.json) in a new tab, or shows its tab if it is
    // open. `title` defaults to the file name. On failure a tab explains why, and `error` says it.
    bool openFile(const QString &path, const QString &title = {}, QString *error = nullptr);
    void closeTab(int index);
    void closeCurrentTab();
    // Re-opens the document's path in place, keeping its selection and pane.
    void reload(CheckpointView *view);

    CheckpointView *currentView() const;
    CheckpointView *viewAt(int index) const;
    QTabWidget *tabs() const { return m_tabs; }
    FileWatcher *watcher() const { return m_watcher; }
    int count() const;

signals:
    void currentDocumentChanged();
    void fileOpened(const QString &path);
    void statusMessage(const QString &text);

private:
    CheckpointView *createView(const QString &path, const QString &title, QString *error);
    void showError(const QString &path, const QString &title, const QString &error);
    void onPathsChanged(const QStringList &paths);
    void markStale(int index, const QString &reason);
    void updateEmptyState();

    QStackedLayout *m_stack;
    QWidget *m_emptyPage;
    QTabWidget *m_tabs;
    FileWatcher *m_watcher;
};

} // namespace stb
