#include "ui/shell/documentmenus.h"

#include "ui/document/checkpointview.h"
#include "ui/hex/hexpane.h"
#include "ui/shell/documentarea.h"

#include <QAction>
#include <QActionGroup>
#include <QApplication>
#include <QClipboard>
#include <QMenu>
#include <QMenuBar>
#include <QTabWidget>

using namespace Qt::StringLiterals;

namespace stb {

DocumentMenus::DocumentMenus(QMenuBar *bar, DocumentArea *documents, QObject *parent)
    : QObject(parent)
    , m_documents(documents)
    , m_edit(bar->addMenu(tr("&Edit")))
    , m_view(bar->addMenu(tr("&View")))
    , m_paneGroup(new QActionGroup(this))
{
    const auto withView = [this](auto &&act) {
        return [this, act] {
            if (CheckpointView *view = m_documents->currentView())
                act(view);
        };
    };

    m_find = m_edit->addAction(tr("&Find Tensor…"), this, withView([](CheckpointView *view) { view->focusFilter(); }));
    m_find->setShortcut(QKeySequence::Find);
    m_find->setToolTip(tr("Type in the tree's filter; Escape clears it"));
    m_goToOffset = m_edit->addAction(tr("&Go to Offset…"), this, withView([](CheckpointView *view) {
        view->setCurrentPane(CheckpointView::HexTab);
        view->hexPane()->focusGoToOffset();
    }));
    m_goToOffset->setShortcut(QKeySequence(Qt::CTRL | Qt::Key_G));
    // Not Ctrl+C: the tree and the Values grid bind it for what has focus.
    m_copyName = m_edit->addAction(tr("&Copy Tensor Name"), this, withView([](CheckpointView *view) {
        if (!view->selectedPath().isEmpty())
            QApplication::clipboard()->setText(view->selectedPath());
    }));
    m_copyName->setShortcut(QKeySequence(Qt::CTRL | Qt::SHIFT | Qt::Key_C));

    m_flat = m_view->addAction(tr("&Flat List"));
    m_flat->setCheckable(true);
    m_flat->setShortcut(QKeySequence(Qt::CTRL | Qt::SHIFT | Qt::Key_F));
    connect(m_flat, &QAction::triggered, this, [this](bool on) {
        if (CheckpointView *view = m_documents->currentView())
            view->setFlat(on);
    });
    m_layers = m_view->addAction(tr("&Layers"));
    m_layers->setCheckable(true);
    m_layers->setShortcut(QKeySequence(Qt::CTRL | Qt::SHIFT | Qt::Key_L));
    connect(m_layers, &QAction::triggered, this, [this](bool on) {
        if (CheckpointView *view = m_documents->currentView())
            view->setLayersMode(on);
        update();
    });
    m_view->addSeparator();

    // The panes in tab order, Alt+1 … Alt+9: the digit keys every tabbed program uses.
    const QString paneNames[] = { tr("&Overview"), tr("La&yout"), tr("&Hex"), tr("&Metadata"), tr("&Diagnostics"),
        tr("Hi&stogram"), tr("&Values"), tr("Heat&map"), tr("De&pth") };
    for (int pane = 0; pane < 9; ++pane) {
        QAction *action = m_view->addAction(paneNames[pane]);
        action->setCheckable(true);
        action->setShortcut(QKeySequence(Qt::ALT | static_cast<Qt::Key>(Qt::Key_1 + pane)));
        action->setActionGroup(m_paneGroup);
        connect(action, &QAction::triggered, this, [this, pane] {
            if (CheckpointView *view = m_documents->currentView())
                view->setCurrentPane(static_cast<CheckpointView::Pane>(pane));
        });
        m_panes.push_back(action);
    }
    m_view->addSeparator();
    m_next = m_view->addAction(tr("&Next Document"), this, [this] { moveDocument(1); });
    m_next->setShortcuts({ QKeySequence(Qt::CTRL | Qt::Key_PageDown), QKeySequence(Qt::CTRL | Qt::Key_Tab) });
    m_previous = m_view->addAction(tr("&Previous Document"), this, [this] { moveDocument(-1); });
    m_previous->setShortcuts(
        { QKeySequence(Qt::CTRL | Qt::Key_PageUp), QKeySequence(Qt::CTRL | Qt::SHIFT | Qt::Key_Backtab) });

    connect(m_documents, &DocumentArea::currentDocumentChanged, this, &DocumentMenus::update);
    connect(m_documents, &DocumentArea::viewCreated, this, [this](CheckpointView *view) {
        // Ctrl+G is this menu's now, wherever the focus is in the document.
        view->hexPane()->setGoToShortcutEnabled(false);
        connect(view, &CheckpointView::currentPaneChanged, this, &DocumentMenus::update);
        connect(view, &CheckpointView::modeChanged, this, &DocumentMenus::update);
    });
    update();
}

void DocumentMenus::update()
{
    const CheckpointView *view = m_documents->currentView();
    for (QAction *action : { m_find, m_goToOffset, m_copyName, m_flat, m_layers })
        action->setEnabled(view);
    for (QAction *action : m_panes)
        action->setEnabled(view);
    const bool several = m_documents->tabs()->count() > 1;
    m_next->setEnabled(several);
    m_previous->setEnabled(several);
    if (!view)
        return;
    m_flat->setChecked(view->isFlat());
    m_flat->setEnabled(!view->isLayersMode());
    m_layers->setChecked(view->isLayersMode());
    const int pane = view->currentPane();
    if (pane >= 0 && static_cast<std::size_t>(pane) < m_panes.size())
        m_panes[static_cast<std::size_t>(pane)]->setChecked(true);
}

void DocumentMenus::moveDocument(int step)
{
    QTabWidget *tabs = m_documents->tabs();
    if (tabs->count() > 1)
        tabs->setCurrentIndex((tabs->currentIndex() + step + tabs->count()) % tabs->count());
}

} // namespace stb
