// Which drops open files: local files only, in the order dragged.
#include "ui/common/droppedfiles.h"

#include <QMimeData>
#include <QTest>
#include <QUrl>

using namespace Qt::StringLiterals;
using namespace stb;

class tst_DroppedFiles : public QObject {
    Q_OBJECT

private slots:
    void localFiles_data()
    {
        QTest::addColumn<QList<QUrl>>("urls");
        QTest::addColumn<QString>("text");
        QTest::addColumn<QStringList>("expected");
        const QUrl a = QUrl::fromLocalFile(u"/tmp/a.safetensors"_s);
        const QUrl b = QUrl::fromLocalFile(u"/tmp/dir with space/b.safetensors"_s);
        const QUrl web(u"https://example.org/c.safetensors"_s);
        QTest::newRow("none") << QList<QUrl> {} << QString() << QStringList {};
        QTest::newRow("text only") << QList<QUrl> {} << u"/tmp/a.safetensors"_s << QStringList {};
        QTest::newRow("one file") << QList<QUrl> { a } << QString() << QStringList { a.toLocalFile() };
        QTest::newRow("two files in order")
            << QList<QUrl> { b, a } << QString() << QStringList { b.toLocalFile(), a.toLocalFile() };
        QTest::newRow("web links left out")
            << QList<QUrl> { web, a } << QString() << QStringList { a.toLocalFile() };
        QTest::newRow("only web links") << QList<QUrl> { web } << QString() << QStringList {};
    }
    void localFiles()
    {
        QFETCH(QList<QUrl>, urls);
        QFETCH(QString, text);
        QFETCH(QStringList, expected);
        QMimeData mime;
        if (!urls.isEmpty())
            mime.setUrls(urls);
        if (!text.isEmpty())
            mime.setText(text);
        QCOMPARE(droppedLocalFiles(&mime), expected);
    }
    void nullMime() { QVERIFY(droppedLocalFiles(nullptr).isEmpty()); }
};

QTEST_GUILESS_MAIN(tst_DroppedFiles)
#include "tst_droppedfiles.moc"
