#include "ui/shell/mainwindow.h"

#include "ui/common/dialogpaths.h"
#include "ui/common/droppedfiles.h"
#include "ui/common/statuscolors.h"
#include "ui/compare/comparewindow.h"
#include "ui/document/checkpointview.h"
#include "ui/shell/documentarea.h"
#include "ui/shell/documentmenus.h"
#include "ui/shell/recentfiles.h"
#include "ui/shell/samplefile.h"
#include "ui/shell/windowgeometry.h"

#include <QApplication>
#include <QCloseEvent>
#include <QFileDialog>
#include <QFileInfo>
#include <QLabel>
#include <QMenuBar>
#include <QMessageBox>
#include <QMimeData>
#include <QSettings>
#include <QStatusBar>

using namespace Qt::StringLiterals;

namespace stb {

namespace {

const auto kGeometryKey = u"mainWindow/geometry"_s;
const auto kLastFolderKey = u"mainWindow/lastFolder"_s;

} // namespace

MainWindow::MainWindow(QWidget *parent)
    : QMainWindow(parent)
    , m_documents(new DocumentArea(this))
    , m_summary(new QLabel(this))
    , m_validity(new QLabel(this))
{
    setWindowTitle(QApplication::applicationDisplayName());
    setCentralWidget(m_documents);
    setAcceptDrops(true);
    createMenus();
    statusBar()->addPermanentWidget(m_summary);
    statusBar()->addPermanentWidget(m_validity);
    m_validity->setTextFormat(Qt::RichText);

    connect(m_documents, &DocumentArea::currentDocumentChanged, this, &MainWindow::updateStatus);
    connect(m_documents, &DocumentArea::fileOpened, m_recent, &RecentFiles::add);
    connect(m_documents, &DocumentArea::statusMessage, this,
        [this](const QString &text) { statusBar()->showMessage(text, 10'000); });

    resize(1200, 760); // without a saved geometry
    restoreWindowGeometry(this, kGeometryKey);
    updateStatus();
}

MainWindow::~MainWindow() = default;

void MainWindow::createMenus()
{
    QMenu *file = menuBar()->addMenu(tr("&File"));
    QAction *open = file->addAction(tr("&Open…"), this, &MainWindow::openDialog);
    open->setShortcut(QKeySequence::Open);
    m_recent = new RecentFiles(file->addMenu(tr("Open &Recent")), this);
    connect(
        m_recent, &RecentFiles::openRequested, this, [this](const QString &path) { openFiles({ path }); });
    file->addAction(tr("Open &Sample Model"), this, &MainWindow::openSample);
    // The current tab's checkpoint against a chosen file, in a window of its own.
    file->addAction(tr("Compare &With…"), this, [this] {
        const auto *view = m_documents->currentView();
        if (!view) {
            statusBar()->showMessage(tr("Open a checkpoint first, then compare it with another."), 10'000);
            return;
        }
        const QString path = pathFromDialog(QFileDialog::getOpenFileName(this,
            tr("Compare %1 With").arg(view->title()), QFileInfo(view->path()).absolutePath(),
            tr("Safetensors checkpoints (*.safetensors *.index.json);;All files (*)")));
        if (path.isEmpty())
            return;
        auto *compare = new CompareWindow;
        compare->setAttribute(Qt::WA_DeleteOnClose);
        compare->openFiles({}, path, view->checkpoint()); // A is open already: only B is read
        compare->show();
        compare->activateWindow();
    });
    file->addSeparator();
    QAction *reload = file->addAction(tr("Re&load"), this, [this] {
        if (auto *view = m_documents->currentView())
            m_documents->reload(view);
    });
    reload->setShortcut(QKeySequence::Refresh);
    QAction *close = file->addAction(tr("&Close Tab"), m_documents, &DocumentArea::closeCurrentTab);
    close->setShortcut(QKeySequence::Close);
    file->addSeparator();
    QAction *quit = file->addAction(tr("&Quit"), this, &QWidget::close);
    quit->setShortcut(QKeySequence::Quit);
    quit->setMenuRole(QAction::QuitRole);

    new DocumentMenus(menuBar(), m_documents, this); // Edit and View

    QMenu *tools = menuBar()->addMenu(tr("&Tools"));
    QAction *audit = tools->addAction(tr("&Audit Checkpoint…"), this, [this] {
        if (auto *view = m_documents->currentView())
            view->startAudit();
    });
    audit->setShortcut(QKeySequence(Qt::CTRL | Qt::SHIFT | Qt::Key_A));
    QAction *sha256 = tools->addAction(tr("Compute &SHA-256…"), this, [this] {
        if (auto *view = m_documents->currentView())
            view->computeSha256();
    });
    tools->addSeparator();
    // Ctrl+E: free in the File and Tools menus, and what other viewers use for Export.
    QAction *exportTensor = tools->addAction(tr("&Export Tensor…"), this, [this] {
        if (auto *view = m_documents->currentView())
            view->exportTensor();
    });
    exportTensor->setShortcut(QKeySequence(Qt::CTRL | Qt::Key_E));
    for (QAction *action : { audit, sha256, exportTensor, reload }) {
        action->setEnabled(false);
        connect(m_documents, &DocumentArea::currentDocumentChanged, action,
            [this, action] { action->setEnabled(m_documents->currentView() != nullptr); });
    }

    QMenu *help = menuBar()->addMenu(tr("&Help"));
    help->addAction(tr("&About Safetensors Browser"), this, &MainWindow::showAbout);
}

void MainWindow::openFiles(const QStringList &paths)
{
    for (const QString &path : paths)
        m_documents->openFile(path);
}

bool MainWindow::openSample()
{
    QString error;
    const QString path = samplePath(&error);
    if (path.isEmpty()) {
        statusBar()->showMessage(tr("Cannot open the sample model: %1").arg(error));
        return false;
    }
    m_documents->openFile(path, u"sample.safetensors"_s);
    return true;
}

QString MainWindow::openDialogFolder() const
{
    // The folder of the model in front (its siblings are the likely next ones), else where the
    // last file was picked, else the working directory.
    if (const CheckpointView *view = m_documents->currentView())
        return QFileInfo(view->path()).absolutePath();
    return QSettings().value(kLastFolderKey).toString();
}

void MainWindow::openDialog()
{
    const QStringList paths = pathsFromDialog(QFileDialog::getOpenFileNames(this, tr("Open Checkpoint"),
        openDialogFolder(), tr("Safetensors checkpoints (*.safetensors *.index.json);;All files (*)")));
    if (paths.isEmpty())
        return;
    QSettings().setValue(kLastFolderKey, QFileInfo(paths.first()).absolutePath());
    // A file that cannot be opened gets a tab saying why, like one given on the command line.
    openFiles(paths);
}

void MainWindow::updateStatus()
{
    const CheckpointView *view = m_documents->currentView();
    m_summary->setText(view ? view->summaryText() : QString());
    if (!view) {
        m_validity->clear();
        setWindowTitle(QApplication::applicationDisplayName());
        return;
    }
    const bool valid = view->checkpoint()->valid();
    QString validity = toneHtml(
        valid ? Tone::Good : Tone::Bad, u"<b>%1</b>"_s.arg(view->validityText().toHtmlEscaped()), palette());
    if (view->isStale())
        validity += u" · "_s + toneHtml(Tone::Warning, tr("changed on disk"), palette());
    m_validity->setText(validity);
    setWindowTitle(view->title());
}

QString MainWindow::summaryText() const
{
    return m_summary->text();
}

QString MainWindow::validityText() const
{
    const auto *view = m_documents->currentView();
    return view ? view->validityText() : QString();
}

void MainWindow::showAbout()
{
    QMessageBox::about(this, tr("About Safetensors Browser"),
        tr("<p><b>Safetensors Browser</b> %1</p><p>Look inside .safetensors model checkpoints: "
           "every tensor, where its bytes sit, and whether the file is valid.</p>"
           "<p>License: GPL-3.0-or-later.</p>")
            .arg(QApplication::applicationVersion()));
}

void MainWindow::closeEvent(QCloseEvent *event)
{
    saveWindowGeometry(this, kGeometryKey);
    event->accept();
}

void MainWindow::dragEnterEvent(QDragEnterEvent *event)
{
    if (!droppedLocalFiles(event->mimeData()).isEmpty())
        event->acceptProposedAction();
}

void MainWindow::dropEvent(QDropEvent *event)
{
    const QStringList paths = droppedLocalFiles(event->mimeData());
    if (paths.isEmpty())
        return;
    event->acceptProposedAction();
    openFiles(paths);
    activateWindow();
}

} // namespace stb
