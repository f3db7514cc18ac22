#pragma once

#include <QObject>

#include <vector>

class QAction;
class QActionGroup;
class QMenu;
class QMenuBar;

namespace stb {

class DocumentArea;

// The Edit and View menus of the main window: everything a document does, reachable from the
// keyboard with its shortcut shown. Edit: Find Tensor (Ctrl+F), Go to Offset (Ctrl+G), Copy
// Tensor Name. View: Flat List, Layers, the panes (Alt+1 … Alt+9), next and previous document
// (Ctrl+Tab / Ctrl+PgDown, Ctrl+Shift+Tab / Ctrl+PgUp). Each entry acts on the current document
// and is disabled without one.
class DocumentMenus : public QObject {
    Q_OBJECT
public:
    DocumentMenus(QMenuBar *bar, DocumentArea *documents, QObject *parent = nullptr);

    QMenu *editMenu() const { return m_edit; }
    QMenu *viewMenu() const { return m_view; }
    QAction *findAction() const { return m_find; }
    QAction *goToOffsetAction() const { return m_goToOffset; }
    QAction *flatAction() const { return m_flat; }
    QAction *layersAction() const { return m_layers; }
    // In CheckpointView::Pane order.
    const std::vector<QAction *> &paneActions() const { return m_panes; }
    QAction *nextDocumentAction() const { return m_next; }
    QAction *previousDocumentAction() const { return m_previous; }

private:
    void update(); // enabled and checked states from the current document
    void moveDocument(int step);

    DocumentArea *m_documents;
    QMenu *m_edit;
    QMenu *m_view;
    QAction *m_find;
    QAction *m_goToOffset;
    QAction *m_copyName;
    QAction *m_flat;
    QAction *m_layers;
    QActionGroup *m_paneGroup;
    std::vector<QAction *> m_panes;
    QAction *m_next;
    QAction *m_previous;
};

} // namespace stb
