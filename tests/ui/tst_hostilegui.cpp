// The browser against hostile files (issue 15, items 1, 2, 5, 17): a huge diagnostic message, a
// megabyte tensor name, a 30 MB metadata value (in a document and in a comparison) never stall
// the event loop, their text is shown cut short with the whole one action away, and paths that
// are not UTF-8 open. Each GUI case runs under a watchdog: the event loop must answer within 2 s.
#include "core/format/writer.h"
#include "tests/support/testfiles.h"
#include "ui/common/droppedfiles.h"
#include "ui/common/longtext.h"
#include "ui/common/longtextview.h"
#include "ui/common/qtformat.h"
#include "ui/compare/comparedetailspane.h"
#include "ui/compare/comparewindow.h"
#include "ui/document/checkpointview.h"
#include "ui/document/diagnosticspane.h"
#include "ui/document/metadatapane.h"
#include "ui/shell/documentarea.h"

#include <QApplication>
#include <QElapsedTimer>
#include <QFile>
#include <QFileInfo>
#include <QLabel>
#include <QMimeData>
#include <QSignalSpy>
#include <QTemporaryDir>
#include <QTest>
#include <QTimer>
#include <QTreeWidget>
#include <QTreeWidgetItemIterator>
#include <QUrl>

#include <algorithm>

#include <unistd.h>

using namespace Qt::StringLiterals;
using namespace stb;

namespace {

// Measures the longest time the event loop went without running a 50 ms timer.
class Watchdog {
public:
    Watchdog()
    {
        m_timer.setInterval(50);
        QObject::connect(
            &m_timer, &QTimer::timeout, [this] { m_longest = std::max(m_longest, m_since.restart()); });
        m_since.start();
        m_timer.start();
    }
    // The longest gap so far, the one still open included.
    qint64 longest() const { return std::max(m_longest, m_since.elapsed()); }

private:
    QTimer m_timer;
    QElapsedTimer m_since;
    qint64 m_longest = 0;
};

constexpr qint64 kMaxGapMs = 2000;

QTreeWidgetItem *findItem(QTreeWidget *tree, const QString &key)
{
    for (QTreeWidgetItemIterator it(tree); *it; ++it) {
        if ((*it)->text(0) == key)
            return *it;
    }
    return nullptr;
}

// The longest text any label or tree row under `root` holds.
qsizetype longestShownText(QWidget *root)
{
    qsizetype longest = 0;
    for (const QLabel *label : root->findChildren<QLabel *>())
        longest = std::max(longest, label->text().size());
    for (QTreeWidget *tree : root->findChildren<QTreeWidget *>()) {
        for (QTreeWidgetItemIterator it(tree); *it; ++it) {
            for (int c = 0; c < tree->columnCount(); ++c)
                longest = std::max(longest, (*it)->text(c).size());
        }
    }
    return longest;
}

} // namespace

class tst_HostileGui : public QObject {
    Q_OBJECT

private slots:
    void initTestCase() { QVERIFY(m_dir.isValid()); }

    // Item 2: a 30 MB __metadata__ value is shown cut short; the window keeps answering.
    void hugeMetadataValue()
    {
        const QString path = writeWithMetadata(u"meta.safetensors"_s, std::string(30'000'000, 'x'));
        Watchdog watchdog;
        DocumentArea area;
        CheckpointView *view = openShown(area, path);
        QVERIFY(view);
        view->setCurrentPane(CheckpointView::MetadataTab);
        QTest::qWait(200);
        QVERIFY2(
            watchdog.longest() < kMaxGapMs, qPrintable(u"no answer for %1 ms"_s.arg(watchdog.longest())));
        QTreeWidgetItem *item = findItem(view->metadataPane()->tree(), u"big"_s);
        QVERIFY(item);
        QVERIFY2(item->text(1).size() < 2000, qPrintable(QString::number(item->text(1).size())));
        QVERIFY(item->text(1).contains(u"more bytes"_s));
        const auto whole = view->metadataPane()->fullValue(item);
        QVERIFY(whole);
        QCOMPARE(whole->size(), std::size_t(30'000'000));
        QVERIFY(!view->metadataPane()->fullValue(findItem(view->metadataPane()->tree(), u"format"_s)));
        QVERIFY(longestShownText(view) < 5000);
    }

    // The whole of a long value: a view that lays out only the rows on screen, wraps long
    // lines at its width and shows every byte, in order, across its rows.
    void fullTextViewer_data()
    {
        QTest::addColumn<QByteArray>("text");
        QTest::newRow("one long line") << (QByteArray(100'000, 'y') + "\nend");
        QTest::newRow("final newline") << QByteArray("a\n\nb\n");
        QTest::newRow("empty") << QByteArray();
        QTest::newRow("many short lines") << QByteArray("xy\n").repeated(3000);
        // A 3-byte character straddling the 16-byte cut stays whole.
        QTest::newRow("utf-8 at the cut") << (QByteArray(15, 'a') + "\xe2\x82\xac" + QByteArray(40, 'b'));
    }
    void fullTextViewer()
    {
        QFETCH(QByteArray, text);
        QWidget parent;
        showFullText(&parent, u"value"_s, std::string_view(text.constData(), std::size_t(text.size())));
        auto *view = parent.findChild<LongTextView *>(u"fullText"_s);
        QVERIFY(view);
        for (int columns : { 16, 80, 777 }) {
            view->setColumns(columns);
            QCOMPARE(view->columns(), columns);
            QString joined;
            for (std::size_t row = 0; row < view->rowCount(); ++row) {
                const QString shown = view->rowText(row);
                QVERIFY2(shown.toUtf8().size() <= columns, qPrintable(QString::number(row)));
                joined += shown + (row + 1 < view->rowCount() ? u"|"_s : QString());
            }
            // Rows joined back: every byte once, lines broken where the text breaks them.
            QString expected = QString::fromUtf8(text);
            QCOMPARE(QString(joined).remove(u'|'), QString(expected).remove(u'\n'));
            // ASCII wraps at exactly `columns` bytes: each line takes ceil(length / columns) rows.
            if (std::all_of(text.begin(), text.end(), [](char c) { return static_cast<unsigned char>(c) < 0x80; })) {
                std::size_t rows = 0;
                for (const QByteArray &line : text.split('\n'))
                    rows += std::max<std::size_t>(1, (std::size_t(line.size()) + columns - 1) / columns);
                QCOMPARE(view->rowCount(), rows);
            }
            QVERIFY(!joined.contains(QChar::ReplacementCharacter));
        }
        view->setColumns(80);
        if (text.endsWith("\nend"))
            QCOMPARE(view->rowText(view->rowCount() - 1), u"end"_s);
    }

    // Item 1: a million-dimension shape that fails the size rule and a 1 MB tensor name: every
    // pane answers and shows bounded text.
    void hugeDiagnosticAndName()
    {
        std::string shape = "[1";
        for (int i = 1; i < 1'000'000; ++i)
            shape += ",1";
        shape += ']';
        const std::string name(1'000'000, 'n');
        const std::string header = "{\"wide\":{\"dtype\":\"F32\",\"shape\":" + shape
            + ",\"data_offsets\":[0,8]},\"" + name
            + "\":{\"dtype\":\"F32\",\"shape\":[2],\"data_offsets\":[8,16]}}";
        const QString path = m_dir.filePath(u"wide.safetensors"_s);
        QVERIFY(test::writeBytes(path.toStdString(), test::rawFile(header, 16)));
        Watchdog watchdog;
        DocumentArea area;
        CheckpointView *view = openShown(area, path);
        QVERIFY(view);
        for (auto pane :
            { CheckpointView::DiagnosticsTab, CheckpointView::OverviewTab, CheckpointView::MetadataTab }) {
            view->setCurrentPane(pane);
            QTest::qWait(100);
        }
        view->selectPath(QString::fromStdString(name));
        view->setCurrentPane(CheckpointView::OverviewTab);
        QTest::qWait(200);
        QVERIFY2(
            watchdog.longest() < kMaxGapMs, qPrintable(u"no answer for %1 ms"_s.arg(watchdog.longest())));
        QVERIFY2(longestShownText(view) < 5000, qPrintable(QString::number(longestShownText(view))));
        const auto *diagnostics = view->diagnosticsPane();
        QVERIFY(diagnostics->count() >= 1);
    }

    // Item 2 in the compare window: both sides' 20 MB values differ; the diff is cut short.
    void compareHugeMetadata()
    {
        const QString a = writeWithMetadata(u"ca.safetensors"_s, std::string(20'000'000, 'a'));
        const QString b = writeWithMetadata(u"cb.safetensors"_s, std::string(20'000'000, 'b'));
        Watchdog watchdog;
        CompareWindow window;
        window.resize(1000, 700);
        window.show();
        QVERIFY(QTest::qWaitForWindowExposed(&window));
        QSignalSpy finished(&window, &CompareWindow::comparisonFinished);
        window.openFiles(a, b); // opens in the background, then compares
        QVERIFY(finished.wait(60000) || finished.count() == 1);
        QTest::qWait(200);
        QVERIFY2(
            watchdog.longest() < kMaxGapMs, qPrintable(u"no answer for %1 ms"_s.arg(watchdog.longest())));
        const QString shown = window.findChild<CompareDetailsPane *>()->metricsText();
        QVERIFY2(shown.size() < 20000, qPrintable(QString::number(shown.size())));
        QVERIFY(shown.contains(u"more bytes"_s));
    }

    // Item 5 (GUI): a path that is not UTF-8 opens, and a drop of it keeps its bytes.
    void pathNotUtf8()
    {
        const std::string bytes = m_dir.path().toStdString() + "/bad\xff\xfe.safetensors";
        std::string error;
        const std::vector<TensorSpec> specs = { { "a", DType::F32, { 2 } } };
        QVERIFY(writeFile(
            bytes, specs, std::vector<std::vector<std::byte>> { std::vector<std::byte>(8) }, {}, error));
        const QString path = pathToQString(bytes);
        QCOMPARE(pathFromQString(path), bytes);
        DocumentArea area;
        QSignalSpy opened(&area, &DocumentArea::fileOpened);
        area.openFile(path);
        QVERIFY(opened.wait(30000));
        QVERIFY(area.currentView());
        QMimeData mime;
        mime.setUrls({ QUrl::fromEncoded(
            "file://" + QByteArray::fromStdString(bytes).toPercentEncoding("/"), QUrl::StrictMode) });
        const QStringList dropped = droppedLocalFiles(&mime);
        QCOMPARE(dropped.size(), 1);
        QCOMPARE(pathFromQString(dropped.first()), bytes);
        ::unlink(bytes.c_str());
    }

    // Item 17 (GUI): a shard that is a link shows where it leads.
    void linkedShardShowsItsTarget()
    {
        const QString blob = writeWithMetadata(u"blob-0123"_s, "x");
        const QString link = m_dir.filePath(u"linked.safetensors"_s);
        QVERIFY(QFile::link(blob, link));
        std::string error;
        const auto checkpoint = Checkpoint::open(link.toStdString(), error);
        QVERIFY(checkpoint);
        MetadataPane pane;
        pane.showFile(*checkpoint, 0);
        QTreeWidgetItem *target = findItem(pane.tree(), u"Resolves to"_s);
        QVERIFY(target);
        QCOMPARE(target->text(1), QFileInfo(blob).canonicalFilePath());
    }

private:
    // Shows `area`, opens `path` in it and waits for the document (nullptr when it did not come).
    static CheckpointView *openShown(DocumentArea &area, const QString &path)
    {
        area.resize(1000, 700);
        area.show();
        if (!QTest::qWaitForWindowExposed(&area))
            return nullptr;
        area.openFile(path);
        if (!QTest::qWaitFor([&] { return area.openingCount() == 0; }, 60000))
            return nullptr;
        return area.currentView();
    }

    QString writeWithMetadata(const QString &name, const std::string &big)
    {
        const QString path = m_dir.filePath(name);
        const std::vector<TensorSpec> specs = { { "w", DType::F32, { 2 } } };
        std::string error;
        const bool written = writeFile(path.toStdString(), specs,
            std::vector<std::vector<std::byte>> { std::vector<std::byte>(8) },
            { { "big", big }, { "format", "pt" } }, error);
        if (!written)
            qWarning("%s", error.c_str());
        return path;
    }

    QTemporaryDir m_dir;
};

QTEST_MAIN(tst_HostileGui)
#include "tst_hostilegui.moc"
