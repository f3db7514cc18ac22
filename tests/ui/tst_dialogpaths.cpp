// A file picked in the Open dialog reaches Checkpoint::open byte for byte, even when its name or its
// folder's name is not UTF-8 (the dialog shows such bytes as U+FFFD and returns them so).
#include "ui/common/dialogpaths.h"
#include "ui/common/qtformat.h"

#include <QFile>
#include <QTemporaryDir>
#include <QTest>

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <string>

using namespace Qt::StringLiterals;
using namespace stb;

namespace {

void makeFile(const std::string &path)
{
    const int fd = ::open(path.c_str(), O_CREAT | O_WRONLY | O_TRUNC, 0644);
    QVERIFY2(fd >= 0, path.c_str());
    ::close(fd);
}

// What the dialog returns for a path: each component as QFile::decodeName lists it.
QString shownByDialog(const std::string &bytes)
{
    return QFile::decodeName(QByteArray::fromStdString(bytes));
}

} // namespace

class tst_DialogPaths : public QObject {
    Q_OBJECT

private:
    QTemporaryDir m_dir;
    std::string m_root;

private slots:
    void initTestCase()
    {
        QVERIFY(m_dir.isValid());
        m_root = m_dir.path().toStdString();
        makeFile(m_root + "/plain.safetensors");
        makeFile(m_root + "/bad\xff\xfe.safetensors");
        QCOMPARE(::mkdir((m_root + "/folder\xfe").c_str(), 0755), 0);
        makeFile(m_root + "/folder\xfe/w\xff.safetensors");
        makeFile(m_root + "/twin\xff.safetensors"); // both listed as "twin\uFFFD.safetensors"
        makeFile(m_root + "/twin\xfe.safetensors");
        makeFile(m_root + "/\xef\xbf\xbd.safetensors"); // a real U+FFFD in a valid name
    }

    void cleanupTestCase()
    {
        // QDir cannot remove names that are not UTF-8: take them away by their bytes.
        for (const char *name : { "/folder\xfe/w\xff.safetensors", "/bad\xff\xfe.safetensors",
                 "/twin\xff.safetensors", "/twin\xfe.safetensors" })
            ::unlink((m_root + name).c_str());
        ::rmdir((m_root + "/folder\xfe").c_str());
    }

    void resolves_data()
    {
        QTest::addColumn<QByteArray>("chosen"); // the bytes of the path as the dialog shows it
        QTest::addColumn<QByteArray>("expected"); // the bytes that must reach open()
        QTest::newRow("UTF-8 name unchanged") << QByteArray("/plain.safetensors") << QByteArray("/plain.safetensors");
        QTest::newRow("invalid bytes in the name")
            << QByteArray("/bad\xff\xfe.safetensors") << QByteArray("/bad\xff\xfe.safetensors");
        QTest::newRow("invalid bytes in folder and name")
            << QByteArray("/folder\xfe/w\xff.safetensors") << QByteArray("/folder\xfe/w\xff.safetensors");
        QTest::newRow("a real U+FFFD stays")
            << QByteArray("/\xef\xbf\xbd.safetensors") << QByteArray("/\xef\xbf\xbd.safetensors");
        QTest::newRow("new name typed stays as typed")
            << QByteArray("/new.safetensors") << QByteArray("/new.safetensors");
    }
    void resolves()
    {
        QFETCH(QByteArray, chosen);
        QFETCH(QByteArray, expected);
        const QString shown = shownByDialog(m_root + chosen.toStdString());
        const std::string got = pathFromQString(pathFromDialog(shown));
        QCOMPARE(QByteArray::fromStdString(got), QByteArray::fromStdString(m_root) + expected);
    }

    void ambiguousNamesStayAsShown()
    {
        // Two entries differ only in their invalid byte: neither is surely the user's pick.
        const QString shown = shownByDialog(m_root + "/twin\xff.safetensors");
        QCOMPARE(pathFromDialog(shown), shown);
    }

    void emptyAndRelative()
    {
        QCOMPARE(pathFromDialog(QString()), QString());
        QCOMPARE(pathFromDialog(u"relative\uFFFD"_s), u"relative\uFFFD"_s);
        QCOMPARE(pathsFromDialog({}), QStringList {});
    }
};

QTEST_GUILESS_MAIN(tst_DialogPaths)
#include "tst_dialogpaths.moc"
