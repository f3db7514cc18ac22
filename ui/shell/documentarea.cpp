#include "ui/shell/documentarea.h"

#include "core/io/checkpoint.h"
#include "ui/common/longtext.h"
#include "ui/common/qtformat.h"
#include "ui/document/checkpointview.h"
#include "ui/shell/filewatcher.h"
#include "ui/shell/openingpage.h"

#include <QDir>
#include <QFileInfo>
#include <QLabel>
#include <QStackedLayout>
#include <QStyle>
#include <QTabBar>
#include <QTabWidget>
#include <QTreeView>
#include <QVBoxLayout>

using namespace Qt::StringLiterals;

namespace stb {

namespace {

const char *const kErrorPathProperty = "stbErrorPath";

// A file's name; for a sharded model's index (named model.safetensors.index.json in every Hub
// model) the name of its folder, which names the model.
// A tab's (and the window's) title: the file's name, or a sharded model's folder, shown as names
// from a file are (control characters escaped, at most 120 characters): a name holding an
// escape sequence showed boxes in the tab and the title bar.
QString titleOf(const QString &path)
{
    const QFileInfo info(path);
    QString name = info.fileName();
    if (Checkpoint::isIndexPath(pathFromQString(path))) {
        if (const QString folder = info.absoluteDir().dirName(); !folder.isEmpty())
            name = folder;
    }
    return shownName(pathFromQString(name));
}

} // namespace

DocumentArea::DocumentArea(QWidget *parent)
    : QWidget(parent)
    , m_stack(new QStackedLayout(this))
    , m_emptyPage(
          new QLabel(tr("Open a .safetensors file or a model.safetensors.index.json with File › Open, "
                        "or drop one here."),
              this))
    , m_tabs(new QTabWidget(this))
    , m_watcher(new FileWatcher(this))
{
    auto *empty = static_cast<QLabel *>(m_emptyPage);
    empty->setAlignment(Qt::AlignCenter);
    empty->setWordWrap(true);
    empty->setEnabled(false);
    m_stack->addWidget(m_emptyPage);
    m_stack->addWidget(m_tabs);
    m_tabs->setTabsClosable(true);
    m_tabs->setMovable(true);
    m_tabs->setDocumentMode(true);
    m_tabs->setElideMode(Qt::ElideMiddle);
    connect(m_tabs, &QTabWidget::tabCloseRequested, this, &DocumentArea::closeTab);
    connect(m_tabs, &QTabWidget::currentChanged, this, &DocumentArea::currentDocumentChanged);
    connect(m_watcher, &FileWatcher::pathsChanged, this, &DocumentArea::onPathsChanged);
    updateEmptyState();
}

CheckpointView *DocumentArea::createView(std::shared_ptr<const Checkpoint> checkpoint, const QString &title,
    std::shared_ptr<const TensorTreeModel::Rows> rows)
{
    auto *view = new CheckpointView(std::move(checkpoint), title, m_tabs, std::move(rows));
    connect(view, &CheckpointView::reloadRequested, this, [this, view] { reload(view); });
    for (const QString &watched : view->watchedPaths())
        m_watcher->addPath(watched);
    emit viewCreated(view);
    return view;
}

void DocumentArea::openFile(const QString &path, const QString &title)
{
    const QString absolute = QFileInfo(path).absoluteFilePath();
    for (int i = 0; i < m_tabs->count(); ++i) {
        const auto *view = viewAt(i);
        const auto *opening = qobject_cast<OpeningPage *>(m_tabs->widget(i));
        if ((view && view->path() == absolute) || (opening && opening->path() == absolute)
            || m_tabs->widget(i)->property(kErrorPathProperty).toString() == absolute) {
            if (!view && !opening)
                closeTab(i); // a failed attempt: try again below
            else {
                m_tabs->setCurrentIndex(i);
                return;
            }
            break;
        }
    }
    const QString name = title.isEmpty() ? titleOf(absolute) : title;
    auto *page = new OpeningPage(absolute, name, m_tabs);
    connect(page, &OpeningPage::opened, this, [this, page](std::shared_ptr<const Checkpoint> checkpoint) {
        onOpened(page, std::move(checkpoint));
    });
    connect(
        page, &OpeningPage::failed, this, [this, page](const QString &reason) { showError(page, reason); });
    const int index = m_tabs->addTab(page, name);
    m_tabs->setTabToolTip(index, absolute);
    m_tabs->setCurrentIndex(index);
    updateEmptyState();
}

int DocumentArea::openingCount() const
{
    int n = 0;
    for (int i = 0; i < m_tabs->count(); ++i)
        n += qobject_cast<OpeningPage *>(m_tabs->widget(i)) != nullptr;
    return n;
}

// The opening page gives way to the document, in the same place (tabs may have moved meanwhile).
void DocumentArea::onOpened(OpeningPage *page, std::shared_ptr<const Checkpoint> checkpoint)
{
    const int index = m_tabs->indexOf(page);
    if (index < 0)
        return;
    auto *view = createView(std::move(checkpoint), page->title(), page->rows());
    const bool current = m_tabs->currentIndex() == index;
    m_tabs->insertTab(index, view, page->title());
    m_tabs->removeTab(index + 1);
    page->deleteLater(); // its job has returned: this is its result
    m_tabs->setTabToolTip(index, page->path());
    if (!view->checkpoint()->valid())
        m_tabs->setTabIcon(index, style()->standardIcon(QStyle::SP_MessageBoxWarning));
    if (current) {
        m_tabs->setCurrentIndex(index);
        view->treeView()->setFocus();
    }
    emit currentDocumentChanged();
    emit fileOpened(page->path());
}

void DocumentArea::showError(OpeningPage *opening, const QString &error)
{
    const int at = m_tabs->indexOf(opening);
    if (at < 0)
        return;
    const QString path = opening->path(), title = opening->title();
    const bool current = m_tabs->currentIndex() == at;
    opening->deleteLater();
    auto *page = new QWidget(m_tabs);
    page->setProperty(kErrorPathProperty, path);
    auto *layout = new QVBoxLayout(page);
    auto *icon = new QLabel(page);
    icon->setPixmap(style()->standardIcon(QStyle::SP_MessageBoxCritical).pixmap(48, 48));
    icon->setAlignment(Qt::AlignCenter);
    auto *text = new QLabel(
        u"<p><b>%1</b></p><p>%2</p><p>%3</p>"_s.arg(
            tr("This file cannot be opened.").toHtmlEscaped(), elidedText(path.toStdString()).toHtmlEscaped(),
            elidedText(error.toStdString()).toHtmlEscaped()),
        page);
    text->setObjectName(u"errorText"_s);
    text->setAlignment(Qt::AlignCenter);
    text->setWordWrap(true);
    text->setTextInteractionFlags(Qt::TextSelectableByMouse);
    layout->addStretch();
    layout->addWidget(icon);
    layout->addWidget(text);
    layout->addStretch();
    const int index
        = m_tabs->insertTab(at, page, style()->standardIcon(QStyle::SP_MessageBoxCritical), title);
    m_tabs->removeTab(index + 1);
    m_tabs->setTabToolTip(index, path);
    if (current)
        m_tabs->setCurrentIndex(index);
    emit currentDocumentChanged();
    emit statusMessage(tr("Cannot open %1: %2").arg(path, error));
    emit openFailed(path, error);
}

void DocumentArea::closeTab(int index)
{
    QWidget *page = m_tabs->widget(index);
    if (!page)
        return;
    if (auto *view = qobject_cast<CheckpointView *>(page)) {
        for (const QString &watched : view->watchedPaths())
            m_watcher->removePath(watched);
    }
    m_tabs->removeTab(index);
    delete page; // drops the checkpoint, and with it the mappings
    updateEmptyState();
}

void DocumentArea::closeCurrentTab()
{
    closeTab(m_tabs->currentIndex());
}

void DocumentArea::reload(CheckpointView *old)
{
    if (m_tabs->indexOf(old) < 0 || old->findChild<OpeningPage *>(QString(), Qt::FindDirectChildrenOnly))
        return; // not ours, or already reloading
    // A hidden opening page does the work off the GUI thread; the old document stays until the
    // new one is in. A child of the old view, so closing the tab meanwhile drops the reload.
    auto *page = new OpeningPage(old->path(), old->title(), old);
    page->hide();
    emit statusMessage(tr("Reloading %1…").arg(old->path()));
    connect(page, &OpeningPage::opened, this, [this, old, page](std::shared_ptr<const Checkpoint> checkpoint) {
        page->deleteLater();
        onReloaded(old, std::move(checkpoint), page->rows());
    });
    connect(page, &OpeningPage::failed, this, [this, old, page](const QString &why) {
        page->deleteLater();
        if (const int index = m_tabs->indexOf(old); index >= 0)
            markStale(index, tr("The file cannot be read any more (%1).").arg(why));
        emit statusMessage(tr("Cannot reload %1: %2").arg(old->path(), why));
    });
}

int DocumentArea::reloadingCount() const
{
    int n = 0;
    for (int i = 0; i < m_tabs->count(); ++i) {
        if (const CheckpointView *view = viewAt(i))
            n += view->findChild<OpeningPage *>(QString(), Qt::FindDirectChildrenOnly) != nullptr;
    }
    return n;
}

void DocumentArea::onReloaded(CheckpointView *old, std::shared_ptr<const Checkpoint> checkpoint,
    std::shared_ptr<const TensorTreeModel::Rows> rows)
{
    const int index = m_tabs->indexOf(old);
    if (index < 0)
        return;
    auto *view = createView(std::move(checkpoint), old->title(), std::move(rows));
    const QString selected = old->selectedPath();
    const auto pane = old->currentPane();
    const bool current = m_tabs->currentIndex() == index;
    for (const QString &watched : old->watchedPaths())
        m_watcher->removePath(watched);
    m_tabs->removeTab(index);
    old->deleteLater();
    m_tabs->insertTab(index, view, view->title());
    m_tabs->setTabToolTip(index, view->path());
    m_tabs->setTabIcon(
        index, view->checkpoint()->valid() ? QIcon() : style()->standardIcon(QStyle::SP_MessageBoxWarning));
    if (!selected.isEmpty())
        view->selectPath(selected);
    view->setCurrentPane(view->checkpoint()->valid() ? pane : CheckpointView::DiagnosticsTab);
    if (current)
        m_tabs->setCurrentIndex(index);
    emit currentDocumentChanged();
    emit statusMessage(tr("Reloaded %1").arg(view->path()));
}

// The view's bar says why and offers Reload; the tab says so too, for tabs not in front.
void DocumentArea::markStale(int index, const QString &reason)
{
    auto *view = viewAt(index);
    if (!view)
        return;
    view->setStale(reason);
    m_tabs->setTabIcon(index, style()->standardIcon(QStyle::SP_BrowserReload));
    m_tabs->setTabToolTip(index, view->path() + u'\n' + reason);
}

void DocumentArea::onPathsChanged(const QStringList &paths)
{
    for (int i = 0; i < m_tabs->count(); ++i) {
        auto *view = viewAt(i);
        if (!view)
            continue;
        for (const QString &path : paths) {
            if (view->watchedPaths().contains(path)) {
                markStale(i,
                    QFileInfo::exists(path) ? tr("%1 changed on disk.").arg(titleOf(path))
                                            : tr("%1 was deleted or moved.").arg(titleOf(path)));
                emit currentDocumentChanged();
                break;
            }
        }
    }
}

CheckpointView *DocumentArea::currentView() const
{
    return qobject_cast<CheckpointView *>(m_tabs->currentWidget());
}

CheckpointView *DocumentArea::viewAt(int index) const
{
    return qobject_cast<CheckpointView *>(m_tabs->widget(index));
}

int DocumentArea::count() const
{
    return m_tabs->count();
}

void DocumentArea::updateEmptyState()
{
    m_stack->setCurrentWidget(m_tabs->count() ? static_cast<QWidget *>(m_tabs) : m_emptyPage);
}

} // namespace stb
