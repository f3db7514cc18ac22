// AtomicFile by what the target names: a regular file or a new name replaced whole; a link
// followed (the link kept, the file it points to replaced or created); a FIFO, a device or a
// socket written in place, never replaced by a regular file; a folder or a link loop refused.
// The real /dev/null and /dev/full are only ever written to: each is checked to be streamed
// before the first byte, and no temporary may appear beside it, so a regression fails here
// (discarding its temporary) before it could rename anything over them.
#include "core/values/atomicfile.h"
#include "core/values/outputtarget.h"

#include <QDir>
#include <QFile>
#include <QTemporaryDir>
#include <QTest>

#include <cstring>
#include <string>
#include <thread>

#include <fcntl.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <sys/un.h>
#include <unistd.h>

using namespace Qt::StringLiterals;
using namespace stb;

namespace {

enum class Target {
    NewFile,
    RegularFile,
    LinkToFile,
    LinkChain, // relative links through another folder
    DanglingLink,
    DanglingLinkIntoMissingFolder,
    LinkLoop,
    Folder,
    LinkToFolder,
    Fifo,
    CharDevice, // a node made here (root only): what `mknod mydev c 1 7` made of the bug
    Socket,
    DevNull,
    DevFull,
};

// 256 KiB, four times a pipe's buffer: the writer must wait for the FIFO's reader.
QByteArray payload()
{
    QByteArray bytes(256 * 1024, Qt::Uninitialized);
    for (int i = 0; i < bytes.size(); ++i)
        bytes[i] = char(i * 7 + i / 251);
    return bytes;
}

QByteArray readAll(const QString &path)
{
    QFile file(path);
    return file.open(QIODevice::ReadOnly) ? file.readAll() : QByteArray("<unreadable>");
}

QString linkText(const QString &path)
{
    char buffer[4096];
    const ssize_t n = ::readlink(QFile::encodeName(path).constData(), buffer, sizeof buffer);
    return n < 0 ? QString() : QString::fromLocal8Bit(buffer, n);
}

mode_t typeOf(const QString &path)
{
    struct stat st { };
    return ::lstat(QFile::encodeName(path).constData(), &st) == 0 ? (st.st_mode & S_IFMT) : 0;
}

dev_t deviceOf(const QString &path)
{
    struct stat st { };
    return ::lstat(QFile::encodeName(path).constData(), &st) == 0 ? st.st_rdev : 0;
}

// Temporaries AtomicFile would have made beside `path`.
QStringList partialsBeside(const QString &path)
{
    const QString name = path.section(u'/', -1);
    return QDir(path.section(u'/', 0, -2))
        .entryList({ name + u".partial-*"_s }, QDir::AllEntries | QDir::System);
}

} // namespace

Q_DECLARE_METATYPE(Target)

class tst_AtomicFile : public QObject {
    Q_OBJECT

private slots:
    void targets_data();
    void targets();
    void devicesKeepTheirKind();

private:
    QByteArray m_payload = payload();
};

void tst_AtomicFile::targets_data()
{
    QTest::addColumn<Target>("target");
    QTest::addColumn<bool>("written");
    QTest::addColumn<QString>("message"); // part of the error when not written

    QTest::newRow("new file") << Target::NewFile << true << QString();
    QTest::newRow("regular file") << Target::RegularFile << true << QString();
    QTest::newRow("link to a regular file") << Target::LinkToFile << true << QString();
    QTest::newRow("chain of relative links") << Target::LinkChain << true << QString();
    QTest::newRow("dangling link") << Target::DanglingLink << true << QString();
    QTest::newRow("dangling link into a missing folder")
        << Target::DanglingLinkIntoMissingFolder << false << u"whose folder does not exist"_s;
    QTest::newRow("link loop") << Target::LinkLoop << false << u"Too many levels of symbolic links"_s;
    QTest::newRow("folder") << Target::Folder << false << u"Is a directory"_s;
    QTest::newRow("link to a folder") << Target::LinkToFolder << false << u"Is a directory"_s;
    QTest::newRow("FIFO") << Target::Fifo << true << QString();
    QTest::newRow("character device") << Target::CharDevice << true << QString();
    QTest::newRow("socket") << Target::Socket << false << u"No such device or address"_s;
    QTest::newRow("/dev/null") << Target::DevNull << true << QString();
    QTest::newRow("/dev/full") << Target::DevFull << false << u"No space left on device"_s;
}

void tst_AtomicFile::targets()
{
    QFETCH(Target, target);
    QFETCH(bool, written);
    QFETCH(QString, message);
    QTemporaryDir dir;
    QVERIFY(dir.isValid());
    const auto at = [&](const QString &name) { return dir.filePath(name); };
    const auto link = [&](const QString &text, const QString &name) {
        return ::symlink(QFile::encodeName(text).constData(), QFile::encodeName(at(name)).constData()) == 0;
    };
    const auto makeFile = [&](const QString &name) {
        QFile file(at(name));
        return file.open(QIODevice::WriteOnly) && file.write("old") == 3;
    };

    QString path = at(u"out"_s); // what AtomicFile is given
    QString lands = path; // where the bytes must end up
    int fifoReader = -1, fifoKeeper = -1, socketFd = -1;
    switch (target) {
    case Target::NewFile:
        break;
    case Target::RegularFile:
        QVERIFY(makeFile(u"out"_s));
        break;
    case Target::LinkToFile:
        QVERIFY(makeFile(u"file"_s));
        QVERIFY(link(u"file"_s, u"out"_s));
        lands = at(u"file"_s);
        break;
    case Target::LinkChain:
        QVERIFY(QDir(dir.path()).mkdir(u"sub"_s));
        QVERIFY(makeFile(u"sub/file"_s));
        QVERIFY(link(u"file"_s, u"sub/inner"_s));
        QVERIFY(link(u"sub/inner"_s, u"out"_s));
        lands = at(u"sub/file"_s);
        break;
    case Target::DanglingLink:
        QVERIFY(link(u"created"_s, u"out"_s));
        lands = at(u"created"_s);
        break;
    case Target::DanglingLinkIntoMissingFolder:
        QVERIFY(link(u"missing/created"_s, u"out"_s));
        break;
    case Target::LinkLoop:
        QVERIFY(link(u"out"_s, u"other"_s));
        QVERIFY(link(u"other"_s, u"out"_s));
        break;
    case Target::Folder:
        QVERIFY(QDir(dir.path()).mkdir(u"out"_s));
        break;
    case Target::LinkToFolder:
        QVERIFY(QDir(dir.path()).mkdir(u"folder"_s));
        QVERIFY(link(u"folder"_s, u"out"_s));
        break;
    case Target::Fifo:
        QCOMPARE(::mkfifo(QFile::encodeName(path).constData(), 0600), 0);
        // Open for reading and writing here first (Linux never blocks on that), so the reader
        // below opens at once and sees the end only when this keeper closes too: no hang
        // whatever AtomicFile does.
        fifoKeeper = ::open(QFile::encodeName(path).constData(), O_RDWR | O_CLOEXEC);
        QVERIFY(fifoKeeper >= 0);
        fifoReader = ::open(QFile::encodeName(path).constData(), O_RDONLY | O_CLOEXEC);
        QVERIFY(fifoReader >= 0);
        break;
    case Target::CharDevice:
        if (::mknod(QFile::encodeName(path).constData(), S_IFCHR | 0666, makedev(1, 3)) != 0)
            QSKIP("cannot make a device node here (not root, or not allowed)");
        break;
    case Target::Socket: {
        socketFd = ::socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
        sockaddr_un address {};
        address.sun_family = AF_UNIX;
        const QByteArray name = QFile::encodeName(path);
        if (socketFd < 0 || std::size_t(name.size()) >= sizeof address.sun_path)
            QSKIP("no socket here");
        std::memcpy(address.sun_path, name.constData(), std::size_t(name.size()));
        QCOMPARE(::bind(socketFd, reinterpret_cast<sockaddr *>(&address), sizeof address), 0);
        break;
    }
    case Target::DevNull:
        path = lands = u"/dev/null"_s;
        break;
    case Target::DevFull:
        path = lands = u"/dev/full"_s;
        break;
    }
    const mode_t typeBefore = typeOf(path);
    const QString linkBefore = linkText(path);
    const bool device = target == Target::DevNull || target == Target::DevFull;
    if (device) // checked before AtomicFile ever sees the real node
        QCOMPARE(int(outputTarget(path.toStdString()).kind), int(OutputTarget::Kind::Stream));

    QByteArray received;
    std::thread reader;
    if (fifoReader >= 0) {
        reader = std::thread([&] {
            char buffer[65536];
            for (ssize_t n; (n = ::read(fifoReader, buffer, sizeof buffer)) > 0;)
                received.append(buffer, n);
        });
    }
    bool ok = false;
    std::string error;
    {
        AtomicFile file;
        const auto finish = [&] {
            if (!file.open(path.toStdString(), {}, error))
                return false;
            // A stream has no temporary; one beside a device would be renamed over it.
            if (typeBefore != 0 && typeBefore != S_IFREG && !partialsBeside(path).isEmpty()) {
                error = "a temporary beside a non-regular file";
                return false; // the AtomicFile going away removes it
            }
            return file.write(m_payload.constData(), std::size_t(m_payload.size()), error)
                && file.commit(error);
        };
        ok = finish();
    }
    if (fifoKeeper >= 0)
        ::close(fifoKeeper);
    if (reader.joinable())
        reader.join();
    if (fifoReader >= 0)
        ::close(fifoReader);
    if (socketFd >= 0)
        ::close(socketFd);

    QCOMPARE(ok, written);
    if (!written) {
        QVERIFY2(QString::fromStdString(error).startsWith(u"cannot "_s), error.c_str());
        QVERIFY2(QString::fromStdString(error).contains(message), error.c_str());
    }
    // The name given keeps its kind (a link stays the same link, a FIFO a FIFO…).
    QCOMPARE(typeOf(path), target == Target::NewFile ? S_IFREG : typeBefore);
    QCOMPARE(linkText(path), linkBefore);
    QCOMPARE(partialsBeside(path), QStringList());
    QCOMPARE(partialsBeside(lands), QStringList());
    switch (target) {
    case Target::Fifo:
        QCOMPARE(received, m_payload);
        break;
    case Target::NewFile:
    case Target::RegularFile:
    case Target::LinkToFile:
    case Target::LinkChain:
    case Target::DanglingLink:
        QCOMPARE(typeOf(lands), S_IFREG);
        QCOMPARE(readAll(lands), m_payload);
        break;
    case Target::DanglingLinkIntoMissingFolder:
        QVERIFY(!QDir(at(u"missing"_s)).exists());
        break;
    default:
        break;
    }
}

// The real nodes are still those devices (major 1: null 3, full 7) after the rows above.
void tst_AtomicFile::devicesKeepTheirKind()
{
    QCOMPARE(typeOf(u"/dev/null"_s), S_IFCHR);
    QCOMPARE(deviceOf(u"/dev/null"_s), makedev(1, 3));
    QCOMPARE(typeOf(u"/dev/full"_s), S_IFCHR);
    QCOMPARE(deviceOf(u"/dev/full"_s), makedev(1, 7));
}

QTEST_GUILESS_MAIN(tst_AtomicFile)
#include "tst_atomicfile.moc"
