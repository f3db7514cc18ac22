#include "ui/common/qtformat.h"
#include "ui/document/checkpointview.h"
#include "ui/document/tensorfiltermodel.h"
#include "ui/hex/hexpane.h"
#include "ui/shell/documentarea.h"
#include "ui/shell/documentmenus.h"
#include "ui/shell/mainwindow.h"
#include "ui/shell/recentfiles.h"
#include "ui/shell/windowgeometry.h"

#include "tests/support/testfiles.h"

#include <QAction>
#include <QDir>
#include <QFile>
#include <QFileInfo>
#include <QGuiApplication>
#include <QLineEdit>
#include <QMenu>
#include <QMenuBar>
#include <QMimeData>
#include <QScreen>
#include <QSettings>
#include <QSignalSpy>
#include <QStandardPaths>
#include <QStatusBar>
#include <QTabWidget>
#include <QTemporaryDir>
#include <QTest>
#include <QTreeView>
#include <QUrl>

#include <fstream>
#include <string>

using namespace Qt::StringLiterals;
using namespace stb;

// The window: opening (arguments, sample, drops, recent files), the status line, closing tabs.
class tst_MainWindow : public QObject {
    Q_OBJECT

private slots:
    void initTestCase();
    void init();
    void opensFilesInTabs();
    void sampleOpens();
    void statusLineShowsValidity();
    void unreadablePathKeepsRunning();
    void dropOpensFiles();
    void recentFilesDropVanished();
    void recentFilesKeepPathBytes();
    void geometryIsRestored_data();
    void geometryIsRestored();
    void geometryIsClamped_data();
    void geometryIsClamped();
    void oldGeometryIsMigrated_data();
    void oldGeometryIsMigrated();
    void openDialogStartsNearby();
    void keyboardReachesEverything();
    void menusShowShortcuts();

private:
    QString write(const QString &name, int layers);
    QTemporaryDir m_dir;
};

QString tst_MainWindow::write(const QString &name, int layers)
{
    const auto model = test::makeSampleModel(layers, 8);
    const QString path = m_dir.filePath(name);
    std::string error;
    if (!writeFile(path.toStdString(), model.specs, model.data, model.metadata, error))
        qFatal("writeFile: %s", error.c_str());
    return path;
}

void tst_MainWindow::initTestCase()
{
    QStandardPaths::setTestModeEnabled(true); // QSettings and the cache go to test folders
    QCoreApplication::setOrganizationName(u"safetensors-browser-tests"_s);
    QCoreApplication::setApplicationName(u"tst_mainwindow"_s);
    QVERIFY(m_dir.isValid());
}

void tst_MainWindow::init()
{
    QSettings().clear();
}

void tst_MainWindow::opensFilesInTabs()
{
    MainWindow window;
    window.openFiles({ write(u"one.safetensors"_s, 1), write(u"two.safetensors"_s, 2) });
    QTRY_COMPARE_WITH_TIMEOUT(window.documents()->openingCount(), 0, 60000);
    QCOMPARE(window.documents()->count(), 2);
    QCOMPARE(window.documents()->tabs()->tabText(1), u"two.safetensors"_s);
    QCOMPARE(window.windowTitle(), u"two.safetensors"_s);
    // Opening an open file shows its tab instead of a second copy.
    window.openFiles({ m_dir.filePath(u"one.safetensors"_s) });
    QCOMPARE(window.documents()->count(), 2);
    QCOMPARE(window.documents()->tabs()->currentIndex(), 0);
    window.documents()->closeCurrentTab();
    QCOMPARE(window.documents()->count(), 1);
}

void tst_MainWindow::sampleOpens()
{
    MainWindow window;
    QVERIFY(window.openSample());
    QTRY_COMPARE_WITH_TIMEOUT(window.documents()->openingCount(), 0, 60000);
    QCOMPARE(window.documents()->tabs()->tabText(0), u"sample.safetensors"_s);
    CheckpointView *view = window.documents()->currentView();
    QVERIFY(view);
    QVERIFY(view->checkpoint()->valid());
    QVERIFY(view->checkpoint()->tensors().size() > 10);
}

void tst_MainWindow::statusLineShowsValidity()
{
    const QString broken = m_dir.filePath(u"broken.safetensors"_s);
    QVERIFY(test::writeBytes(broken.toStdString(),
        test::rawFile(R"({"w":{"dtype":"F32","shape":[4],"data_offsets":[0,16]}})", 8)));
    MainWindow window;
    window.openFiles({ write(u"valid.safetensors"_s, 1) });
    QTRY_COMPARE_WITH_TIMEOUT(window.documents()->openingCount(), 0, 60000);
    QCOMPARE(window.validityText(), u"valid"_s);
    QVERIFY(window.summaryText().contains(u"tensors · "_s));
    QVERIFY(window.summaryText().contains(u"BF16, F32, I64"_s));
    window.openFiles({ broken });
    QTRY_COMPARE_WITH_TIMEOUT(window.documents()->openingCount(), 0, 60000);
    QVERIFY2(window.validityText().startsWith(u"invalid: "_s), qPrintable(window.validityText()));
    QCOMPARE(window.documents()->currentView()->currentPane(), CheckpointView::DiagnosticsTab);
    window.documents()->tabs()->setCurrentIndex(0);
    QCOMPARE(window.validityText(), u"valid"_s);
}

void tst_MainWindow::unreadablePathKeepsRunning()
{
    MainWindow window;
    const QString missing = m_dir.filePath(u"missing.safetensors"_s);
    window.openFiles({ missing, write(u"after.safetensors"_s, 1) });
    QTRY_COMPARE_WITH_TIMEOUT(window.documents()->openingCount(), 0, 60000);
    QCOMPARE(window.documents()->count(), 2); // the message tab and the file after it
    QVERIFY(window.documents()->viewAt(1));
    QVERIFY(!window.documents()->viewAt(0));
    window.documents()->tabs()->setCurrentIndex(0);
    QVERIFY(window.statusBar()->currentMessage().contains(missing));
}

void tst_MainWindow::dropOpensFiles()
{
    MainWindow window;
    window.show();
    QVERIFY(QTest::qWaitForWindowExposed(&window));
    QMimeData mime;
    mime.setUrls({ QUrl::fromLocalFile(write(u"dropped.safetensors"_s, 1)) });
    const QPoint pos = window.rect().center();
    QDragEnterEvent enter(pos, Qt::CopyAction, &mime, Qt::LeftButton, Qt::NoModifier);
    QApplication::sendEvent(&window, &enter);
    QVERIFY(enter.isAccepted());
    QDropEvent drop(pos, Qt::CopyAction, &mime, Qt::LeftButton, Qt::NoModifier);
    QApplication::sendEvent(&window, &drop);
    QCOMPARE(window.documents()->count(), 1);
    QTRY_COMPARE_WITH_TIMEOUT(window.documents()->openingCount(), 0, 60000);
    QCOMPARE(window.documents()->currentView()->title(), u"dropped.safetensors"_s);
}

void tst_MainWindow::recentFilesDropVanished()
{
    const QString kept = write(u"kept.safetensors"_s, 1);
    const QString gone = write(u"gone.safetensors"_s, 1);
    {
        MainWindow window;
        // One after the other: files opened together are listed in the order they finish.
        for (const QString &path : { gone, kept }) {
            window.openFiles({ path });
            QTRY_COMPARE_WITH_TIMEOUT(window.documents()->openingCount(), 0, 60000);
        }
    }
    QMenu menu;
    RecentFiles recent(&menu);
    QCOMPARE(recent.paths(), (QStringList { kept, gone }));
    QVERIFY(QFile::remove(gone));
    emit menu.aboutToShow();
    QCOMPARE(recent.paths(), QStringList { kept });
    for (int i = 0; i < 15; ++i) {
        QFile file(m_dir.filePath(u"f%1.safetensors"_s.arg(i)));
        QVERIFY(file.open(QIODevice::WriteOnly));
        recent.add(file.fileName());
    }
    QCOMPARE(recent.paths().size(), RecentFiles::kMaxEntries);
    QCOMPARE(recent.paths().first(), m_dir.filePath(u"f14.safetensors"_s));
}

// A file whose name is not UTF-8 and holds an escape sequence: listed byte for byte across a
// restart of the list (QSettings), kept (it exists), shown escaped, and reopened from the menu
// with the same bytes.
void tst_MainWindow::recentFilesKeepPathBytes()
{
    const std::string dir = pathFromQString(m_dir.path());
    const std::string bytes = dir + "/bad\xff\xfe\x1b[31m&.safetensors";
    {
        std::ofstream out(bytes, std::ios::binary);
        out << "x";
    }
    const QString path = pathToQString(bytes);
    {
        QMenu menu;
        RecentFiles recent(&menu);
        recent.clear();
        recent.add(path);
    }
    QMenu menu;
    RecentFiles recent(&menu);
    emit menu.aboutToShow();
    QCOMPARE(recent.paths(), QStringList { path });
    QCOMPARE(pathFromQString(recent.paths().first()), bytes);
    QAction *entry = menu.actions().first();
    QVERIFY2(entry->text().contains(u"\\x1b"_s), qPrintable(entry->text()));
    QVERIFY(!entry->text().contains(QChar(0x1b)));
    QVERIFY(entry->text().contains(u"&&.safetensors"_s));
    QSignalSpy requested(&recent, &RecentFiles::openRequested);
    entry->trigger();
    QCOMPARE(requested.size(), 1);
    QCOMPARE(pathFromQString(requested.first().first().toString()), bytes);
}

void tst_MainWindow::geometryIsRestored_data()
{
    QTest::addColumn<QRect>("shown");
    QTest::addColumn<bool>("maximized");
    QTest::newRow("inside the screen") << QRect(37, 53, 640, 420) << false;
    QTest::newRow("small") << QRect(120, 90, 400, 300) << false;
    QTest::newRow("maximized") << QRect(60, 40, 520, 380) << true;
}

// The client rectangle comes back exactly (no drift by a guessed frame height), launch after
// launch, and a maximized window comes back maximized with its normal rectangle kept.
void tst_MainWindow::geometryIsRestored()
{
    QFETCH(QRect, shown);
    QFETCH(bool, maximized);
    const QRect screen = QGuiApplication::primaryScreen()->availableGeometry();
    QVERIFY2(screen.contains(shown), qPrintable(u"screen %1×%2"_s.arg(screen.width()).arg(screen.height())));
    for (int launch = 0; launch < 3; ++launch) {
        MainWindow window;
        if (launch == 0)
            window.setGeometry(shown);
        else
            QCOMPARE(window.geometry(), shown);
        if (maximized && launch == 0)
            window.setWindowState(Qt::WindowMaximized);
        QCOMPARE(window.isMaximized(), maximized);
        window.show();
        QVERIFY(QTest::qWaitForWindowExposed(&window));
        if (!maximized)
            QCOMPARE(window.geometry(), shown);
        window.close();
    }
}

// A rectangle saved on a screen that is gone (or larger than the screen) comes back on it.
void tst_MainWindow::geometryIsClamped_data()
{
    QTest::addColumn<QRect>("saved");
    QTest::addColumn<QList<QRect>>("screens");
    QTest::addColumn<QRect>("expected");
    const QList<QRect> one { QRect(0, 0, 1024, 700) };
    const QList<QRect> two { QRect(0, 0, 1024, 700), QRect(1024, 0, 1600, 1000) };
    QTest::newRow("inside: unchanged") << QRect(10, 20, 800, 600) << one << QRect(10, 20, 800, 600);
    QTest::newRow("off the right edge") << QRect(900, 20, 800, 600) << one << QRect(224, 20, 800, 600);
    QTest::newRow("on a screen that is gone")
        << QRect(3000, 1500, 800, 600) << one << QRect(224, 100, 800, 600);
    QTest::newRow("above and left") << QRect(-300, -50, 800, 600) << one << QRect(0, 0, 800, 600);
    QTest::newRow("larger than the screen") << QRect(0, 0, 1600, 1000) << one << QRect(0, 0, 1024, 700);
    QTest::newRow("mostly on the second screen")
        << QRect(1000, 100, 1200, 800) << two << QRect(1024, 100, 1200, 800);
    QTest::newRow("below the first, beside the second")
        << QRect(100, 650, 800, 600) << two << QRect(100, 100, 800, 600);
    QTest::newRow("no screens: unchanged") << QRect(5, 5, 10, 10) << QList<QRect>() << QRect(5, 5, 10, 10);
}

void tst_MainWindow::geometryIsClamped()
{
    QFETCH(QRect, saved);
    QFETCH(QList<QRect>, screens);
    QFETCH(QRect, expected);
    QCOMPARE(placeOnScreens(saved, screens), expected);
    // Through the settings, with the test's real screen.
    QSettings().setValue(u"mainWindow/geometry/rect"_s, saved);
    MainWindow window;
    const QRect screen = QGuiApplication::primaryScreen()->availableGeometry();
    QVERIFY2(screen.contains(window.geometry()),
        qPrintable(
            u"%1,%2 %3×%4"_s.arg(window.x()).arg(window.y()).arg(window.width()).arg(window.height())));
}

void tst_MainWindow::oldGeometryIsMigrated_data()
{
    QTest::addColumn<QRect>("shown");
    QTest::addColumn<bool>("maximized");
    QTest::newRow("normal") << QRect(70, 45, 700, 460) << false;
    QTest::newRow("maximized") << QRect(50, 30, 560, 400) << true;
}

// Older versions kept a saveGeometry() blob under "mainWindow/geometry": an upgraded user's
// first launch comes back where the window was (not at the 1200×760 default), the blob is
// replaced by the rectangle, and later launches read the rectangle.
void tst_MainWindow::oldGeometryIsMigrated()
{
    QFETCH(QRect, shown);
    QFETCH(bool, maximized);
    QByteArray blob;
    {
        QWidget old;
        old.setGeometry(shown);
        if (maximized)
            old.setWindowState(Qt::WindowMaximized);
        blob = old.saveGeometry();
    }
    QSettings().setValue(u"mainWindow/geometry"_s, blob);
    for (int launch = 0; launch < 2; ++launch) {
        MainWindow window;
        QCOMPARE(window.isMaximized(), maximized);
        QCOMPARE(maximized ? window.normalGeometry() : window.geometry(), shown);
        const QSettings settings;
        QVERIFY2(!settings.contains(u"mainWindow/geometry"_s), "the old blob is dropped");
        QCOMPARE(settings.value(u"mainWindow/geometry/rect"_s).toRect(), shown);
        QCOMPARE(settings.value(u"mainWindow/geometry/maximized"_s).toBool(), maximized);
    }
    // A blob that is not one is dropped, and the default size is used.
    QSettings().clear();
    QSettings().setValue(u"mainWindow/geometry"_s, QByteArray("not a geometry"));
    MainWindow window;
    QCOMPARE(window.size(), QSize(1200, 760));
    QVERIFY(!QSettings().contains(u"mainWindow/geometry"_s));
}

// File › Open starts in the current document's folder, else in the last folder used.
void tst_MainWindow::openDialogStartsNearby()
{
    MainWindow window;
    QCOMPARE(window.openDialogFolder(), QString());
    const QString last = QDir::tempPath();
    QSettings().setValue(u"mainWindow/lastFolder"_s, last);
    QCOMPARE(window.openDialogFolder(), last);
    QTemporaryDir other;
    QVERIFY(other.isValid());
    const QString path = other.filePath(u"nearby.safetensors"_s);
    QVERIFY(QFile::copy(write(u"nearby.safetensors"_s, 1), path));
    window.openFiles({ path });
    QTRY_COMPARE_WITH_TIMEOUT(window.documents()->openingCount(), 0, 60000);
    QCOMPARE(window.openDialogFolder(), QFileInfo(path).absolutePath());
    window.documents()->closeCurrentTab();
    QCOMPARE(window.openDialogFolder(), last);
}

// Ctrl+F, Escape, Alt+digit, Ctrl+G, Ctrl+Tab and Ctrl+PgUp/PgDn, pressed as a user presses them.
void tst_MainWindow::keyboardReachesEverything()
{
    MainWindow window;
    window.openFiles({ write(u"first.safetensors"_s, 2), write(u"second.safetensors"_s, 3) });
    QTRY_COMPARE_WITH_TIMEOUT(window.documents()->openingCount(), 0, 60000);
    window.show();
    QVERIFY(QTest::qWaitForWindowExposed(&window));
    window.activateWindow();
    QVERIFY(QTest::qWaitForWindowActive(&window));
    QTabWidget *tabs = window.documents()->tabs();
    QCOMPARE(tabs->currentIndex(), 1);
    CheckpointView *view = window.documents()->currentView();
    view->treeView()->setFocus();

    QTest::keySequence(&window, QKeySequence::Find);
    QTRY_VERIFY(view->filterEdit()->hasFocus());
    QTest::keyClicks(view->filterEdit(), u"mlp"_s);
    QVERIFY(view->filterModel()->isFiltering());
    QTest::keyClick(view->filterEdit(), Qt::Key_Escape);
    QCOMPARE(view->filterEdit()->text(), QString());

    QTest::keyClick(QApplication::focusWidget(), Qt::Key_3, Qt::AltModifier);
    QCOMPARE(view->currentPane(), CheckpointView::HexTab);
    QTest::keyClick(QApplication::focusWidget(), Qt::Key_6, Qt::AltModifier);
    QCOMPARE(view->currentPane(), CheckpointView::HistogramTab);
    QTest::keyClick(QApplication::focusWidget(), Qt::Key_1, Qt::AltModifier);
    QCOMPARE(view->currentPane(), CheckpointView::OverviewTab);

    // Ctrl+G from the tree: the Hex pane, caret in its offset field.
    view->treeView()->setFocus();
    QTest::keyClick(view->treeView(), Qt::Key_G, Qt::ControlModifier);
    QCOMPARE(view->currentPane(), CheckpointView::HexTab);
    QTRY_VERIFY(QApplication::focusWidget() && QApplication::focusWidget()->parentWidget() == view->hexPane());
    QVERIFY(qobject_cast<QLineEdit *>(QApplication::focusWidget()));

    QTest::keyClick(QApplication::focusWidget(), Qt::Key_PageUp, Qt::ControlModifier);
    QCOMPARE(tabs->currentIndex(), 0);
    QTest::keyClick(QApplication::focusWidget(), Qt::Key_PageDown, Qt::ControlModifier);
    QCOMPARE(tabs->currentIndex(), 1);
    QTest::keyClick(QApplication::focusWidget(), Qt::Key_Tab, Qt::ControlModifier);
    QCOMPARE(tabs->currentIndex(), 0); // wraps around
    QTest::keyClick(QApplication::focusWidget(), Qt::Key_Backtab, Qt::ControlModifier | Qt::ShiftModifier);
    QCOMPARE(tabs->currentIndex(), 1);

    // The View menu follows the document: its pane is checked.
    auto *menus = window.findChild<DocumentMenus *>();
    QVERIFY(menus);
    QVERIFY(menus->paneActions()[CheckpointView::HexTab]->isChecked());
    menus->flatAction()->trigger();
    QVERIFY(view->isFlat());
}

// Every entry of the document menus has a shortcut, and the menus show it.
void tst_MainWindow::menusShowShortcuts()
{
    MainWindow window;
    QStringList missing;
    QStringList seen;
    for (QAction *top : window.menuBar()->actions()) {
        const QString menu = top->text().remove(u'&');
        if (menu != u"Edit"_s && menu != u"View"_s)
            continue;
        for (QAction *action : top->menu()->actions()) {
            if (action->isSeparator())
                continue;
            if (action->shortcut().isEmpty())
                missing << action->text();
            seen << action->shortcut().toString();
        }
    }
    QVERIFY2(missing.isEmpty(), qPrintable(missing.join(u", "_s)));
    for (const QString &key : { u"Ctrl+F"_s, u"Ctrl+G"_s, u"Alt+1"_s, u"Alt+9"_s, u"Ctrl+PgDown"_s, u"Ctrl+PgUp"_s })
        QVERIFY2(seen.contains(key), qPrintable(key));
    // No two entries of the window share a key: a shared key triggers neither.
    QStringList all;
    for (QAction *action : window.findChildren<QAction *>()) {
        for (const QKeySequence &key : action->shortcuts())
            all << key.toString();
    }
    const qsizetype count = all.size();
    all.removeDuplicates();
    QCOMPARE(all.size(), count);
}

QTEST_MAIN(tst_MainWindow)
#include "tst_mainwindow.moc"
