#include "ui/shell/filewatcher.h"

#include <QFile>
#include <QSignalSpy>
#include <QTemporaryDir>
#include <QTest>

#include <cstdio>
#include <memory>

using namespace Qt::StringLiterals;
using namespace stb;

// Debouncing and re-arming of the file watcher, with real files in a temporary folder.
class tst_FileWatcher : public QObject {
    Q_OBJECT

private slots:
    void init();
    void burstIsReportedOnce();
    void atomicReplaceIsFollowed();
    void deletedThenRecreated();
    void removedPathIsQuiet();

private:
    static void write(const QString &path, const QByteArray &bytes);
    std::unique_ptr<QTemporaryDir> m_dir;
    QString m_path;
};

void tst_FileWatcher::write(const QString &path, const QByteArray &bytes)
{
    QFile file(path);
    QVERIFY(file.open(QIODevice::WriteOnly | QIODevice::Truncate));
    file.write(bytes);
}

void tst_FileWatcher::init()
{
    m_dir = std::make_unique<QTemporaryDir>();
    QVERIFY(m_dir->isValid());
    m_path = m_dir->filePath(u"model.safetensors"_s);
    write(m_path, "first");
}

void tst_FileWatcher::burstIsReportedOnce()
{
    FileWatcher watcher;
    watcher.setDelay(200);
    QSignalSpy spy(&watcher, &FileWatcher::pathsChanged);
    watcher.addPath(m_path);
    for (int i = 0; i < 5; ++i) {
        QFile file(m_path);
        QVERIFY(file.open(QIODevice::Append));
        file.write("more");
        file.close();
        QTest::qWait(20);
    }
    QTRY_COMPARE(spy.count(), 1);
    QTest::qWait(400);
    QCOMPARE(spy.count(), 1);
    QCOMPARE(spy.at(0).at(0).toStringList(), QStringList { m_path });
}

void tst_FileWatcher::atomicReplaceIsFollowed()
{
    FileWatcher watcher;
    watcher.setDelay(100);
    QSignalSpy spy(&watcher, &FileWatcher::pathsChanged);
    watcher.addPath(m_path);
    // Keep the old file open, as a mapping would: its inode outlives the rename.
    QFile old(m_path);
    QVERIFY(old.open(QIODevice::ReadOnly));
    const QString temporary = m_dir->filePath(u"model.safetensors.tmp"_s);
    write(temporary, "second");
    QVERIFY(::rename(QFile::encodeName(temporary).constData(), QFile::encodeName(m_path).constData()) == 0);
    QTRY_COMPARE(spy.count(), 1);
    // The watch now follows the new file.
    write(m_path, "third");
    QTRY_COMPARE(spy.count(), 2);
}

void tst_FileWatcher::deletedThenRecreated()
{
    FileWatcher watcher;
    watcher.setDelay(100);
    QSignalSpy spy(&watcher, &FileWatcher::pathsChanged);
    watcher.addPath(m_path);
    QVERIFY(QFile::remove(m_path));
    QTRY_COMPARE(spy.count(), 1);
    write(m_path, "back");
    QTRY_COMPARE(spy.count(), 2);
    write(m_path, "changed again");
    QTRY_COMPARE(spy.count(), 3);
}

void tst_FileWatcher::removedPathIsQuiet()
{
    FileWatcher watcher;
    watcher.setDelay(50);
    QSignalSpy spy(&watcher, &FileWatcher::pathsChanged);
    watcher.addPath(m_path);
    watcher.addPath(m_path); // two documents
    watcher.removePath(m_path);
    write(m_path, "still watched");
    QTRY_COMPARE(spy.count(), 1);
    watcher.removePath(m_path);
    QVERIFY(watcher.paths().isEmpty());
    write(m_path, "not watched");
    QTest::qWait(300);
    QCOMPARE(spy.count(), 1);
}

QTEST_MAIN(tst_FileWatcher)
#include "tst_filewatcher.moc"
