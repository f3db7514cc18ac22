#pragma once

#include <QMainWindow>

class QLabel;

namespace stb {

class DocumentArea;
class RecentFiles;

// The window: menus, the document tabs, and a status line with the current checkpoint's totals
// and validity. Everything about a checkpoint lives in its CheckpointView.
class MainWindow : public QMainWindow {
    Q_OBJECT
public:
    explicit MainWindow(QWidget *parent = nullptr);
    ~MainWindow() override;

    // Opens each path in its own tab, off the GUI thread (DocumentArea::openFile); one that cannot
    // be opened says why in its tab.
    void openFiles(const QStringList &paths);
    bool openSample();
    DocumentArea *documents() const { return m_documents; }
    QString summaryText() const;
    QString validityText() const;
    // Where File › Open starts: the current document's folder, else the last folder a file was
    // opened from (QSettings), else empty (the working directory).
    QString openDialogFolder() const;

protected:
    void closeEvent(QCloseEvent *event) override;
    void dragEnterEvent(QDragEnterEvent *event) override;
    void dropEvent(QDropEvent *event) override;

private:
    void createMenus();
    void openDialog();
    void updateStatus();
    void showAbout();

    DocumentArea *m_documents;
    RecentFiles *m_recent = nullptr;
    QLabel *m_summary;
    QLabel *m_validity;
};

} // namespace stb
