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
    // A delay no test machine outlasts, however busy: the burst is over before it runs out, and
    // flush() stands for its end. No timing decides the outcome.
    FileWatcher watcher(nullptr, 24 * 3600 * 1000);
    QSignalSpy spy(&watcher, &FileWatcher::pathsChanged);
    watcher.addPath(m_path);
    for (int i = 0; i < 5; ++i) {
        QFile file(m_path);
        QVERIFY(file.open(QIODevice::Append));
        file.write("more");
        file.close();
        QCoreApplication::processEvents(); // let the watcher see each write on its own
    }
    QTRY_VERIFY(watcher.hasPending());
    QCOMPARE(spy.count(), 0); // still within the burst
    watcher.flush();
    QCOMPARE(spy.count(), 1);
    QCOMPARE(spy.at(0).at(0).toStringList(), QStringList { m_path });
    QVERIFY(!watcher.hasPending());
    watcher.flush(); // nothing new: nothing reported
    QCOMPARE(spy.count(), 1);
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
    // A watched file written after the unwatched one: its report comes after anything the first
    // write could cause, so waiting for it replaces waiting for nothing.
    const QString other = m_dir->filePath(u"other.safetensors"_s);
    write(other, "other");
    watcher.addPath(other);
    write(m_path, "not watched");
    write(other, "watched");
    QTRY_COMPARE(spy.count(), 2);
    QCOMPARE(spy.at(1).at(0).toStringList(), QStringList { other });
}

QTEST_MAIN(tst_FileWatcher)
#include "tst_filewatcher.moc"
