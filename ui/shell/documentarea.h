#pragma once

#include "ui/document/tensortreemodel.h"

#include <QWidget>

#include <memory>

class QStackedLayout;
class QTabWidget;

namespace stb {

class Checkpoint;
class CheckpointView;
class FileWatcher;
class OpeningPage;

// The open documents: one closable tab per checkpoint, a tab with a message for a path that
// could not be read, and a hint page when nothing is open. Watches each document's files and
// marks a document stale when they change, offering a reload that keeps the selection.
class DocumentArea : public QWidget {
    Q_OBJECT
public:
    explicit DocumentArea(QWidget *parent = nullptr);

    // Opens `path` (a .safetensors or an .index.json) in a new tab, or shows its tab if it is
    // open. `title` defaults to the file name. Returns at once: the tab says "Opening… N%" while
    // the checkpoint is opened off the GUI thread, then shows the document (fileOpened) or why it
    // cannot be opened (openFailed).
    void openFile(const QString &path, const QString &title = {});
    // Tabs still opening.
    int openingCount() const;
    void closeTab(int index);
    void closeCurrentTab();
    // Re-opens the document's path in place, keeping its selection and pane. Returns at once: the
    // file is opened off the GUI thread (the old document stays until then), then swapped in.
    void reload(CheckpointView *view);
    // Reloads still running.
    int reloadingCount() const;

    CheckpointView *currentView() const;
    CheckpointView *viewAt(int index) const;
    QTabWidget *tabs() const { return m_tabs; }
    FileWatcher *watcher() const { return m_watcher; }
    int count() const;

signals:
    void currentDocumentChanged();
    void fileOpened(const QString &path);
    void openFailed(const QString &path, const QString &reason);
    void statusMessage(const QString &text);
    // A document view was made (opened or reloaded), before it is shown.
    void viewCreated(CheckpointView *view);

private:
    CheckpointView *createView(std::shared_ptr<const Checkpoint> checkpoint, const QString &title,
        std::shared_ptr<const TensorTreeModel::Rows> rows);
    void onOpened(OpeningPage *page, std::shared_ptr<const Checkpoint> checkpoint);
    void onReloaded(CheckpointView *old, std::shared_ptr<const Checkpoint> checkpoint,
        std::shared_ptr<const TensorTreeModel::Rows> rows);
    void showError(OpeningPage *page, const QString &error);
    void onPathsChanged(const QStringList &paths);
    void markStale(int index, const QString &reason);
    void updateEmptyState();

    QStackedLayout *m_stack;
    QWidget *m_emptyPage;
    QTabWidget *m_tabs;
    FileWatcher *m_watcher;
};

} // namespace stb
