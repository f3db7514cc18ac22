// safetensors-inspect export, locate and heatmap run as processes: their JSON shapes (numbers
// that read back to the same double), the PNG's colours, the .npy they write and every failure's
// exit code and message.
#include "core/format/writer.h"
#include "tests/support/inspectprocess.h"

#include "tests/support/valuedata.h"

#include <QDir>
#include <QFile>
#include <QFileInfo>
#include <QImage>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QTemporaryDir>
#include <QTest>

#include <cmath>
#include <cstring>
#include <limits>

#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>

using namespace Qt::StringLiterals;
using namespace stb;

namespace {

test::InspectRun inspect(const QStringList &arguments)
{
    return test::runInspect(arguments, 60000);
}

} // namespace

class tst_InspectValues : public QObject {
    Q_OBJECT

private slots:
    void initTestCase();
    void locateJson();
    void locateText();
    void heatmapJson();
    void heatmapPng();
    void exportNpy();
    void devices_data();
    void devices();
    void throughLink();
    void failures_data();
    void failures();

private:
    QTemporaryDir m_dir;
    QString m_file;
};

void tst_InspectValues::initTestCase()
{
    QVERIFY(m_dir.isValid());
    m_file = m_dir.filePath(u"values.safetensors"_s);
    const float nan = std::numeric_limits<float>::quiet_NaN(), inf = std::numeric_limits<float>::infinity();
    // 0.1f does not print in few digits as a double: it checks that JSON numbers read back exactly.
    const std::vector<TensorSpec> specs { { "w", DType::F32, { 3, 4 } },
        { "cube", DType::F32, { 2, 2, 3 } } };
    const std::vector<std::vector<std::byte>> data {
        test::floatBytes({ 0.1f, -2, 3, nan, 5, inf, -7, 8, -inf, 10, 11, -12 }),
        test::floatBytes({ 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12 }),
    };
    std::string error;
    QVERIFY2(writeFile(m_file.toStdString(), specs, data, {}, error), error.c_str());
}

void tst_InspectValues::locateJson()
{
    const auto run = inspect({ u"locate"_s, m_file, u"w"_s, u"--json"_s });
    QCOMPARE(run.exitCode, 0);
    const QJsonObject json = QJsonDocument::fromJson(run.out.toUtf8()).object();
    QCOMPARE(json.keys(),
        (QStringList { u"abs_max"_s, u"count"_s, u"first_nan"_s, u"first_neg_inf"_s, u"first_pos_inf"_s,
            u"max"_s, u"min"_s, u"tensor"_s }));
    QCOMPARE(json[u"tensor"_s].toString(), u"w"_s);
    QCOMPARE(json[u"count"_s].toInt(), 12);
    const auto position = [&](const char *key) { return json[QLatin1String(key)].toObject(); };
    QCOMPARE(position("first_nan")[u"index"_s].toInt(), 3);
    QCOMPARE(position("first_nan")[u"nd_index"_s].toArray(), (QJsonArray { 0, 3 }));
    QCOMPARE(position("first_nan")[u"value"_s].toString(), u"nan"_s);
    QCOMPARE(position("first_pos_inf")[u"value"_s].toString(), u"inf"_s);
    QCOMPARE(position("first_neg_inf")[u"index"_s].toInt(), 8);
    QCOMPARE(position("first_neg_inf")[u"value"_s].toString(), u"-inf"_s);
    QCOMPARE(position("min")[u"value"_s].toDouble(), -12.0);
    QCOMPARE(position("min")[u"nd_index"_s].toArray(), (QJsonArray { 2, 3 }));
    QCOMPARE(position("max")[u"index"_s].toInt(), 10);
    QCOMPARE(position("abs_max")[u"value"_s].toDouble(), -12.0);

    const auto clean = inspect({ u"locate"_s, m_file, u"cube"_s, u"--json"_s });
    const QJsonObject cube = QJsonDocument::fromJson(clean.out.toUtf8()).object();
    QVERIFY(cube[u"first_nan"_s].isNull());
    QCOMPARE(cube[u"min"_s].toObject()[u"value"_s].toDouble(), 1.0);
    QCOMPARE(cube[u"max"_s].toObject()[u"nd_index"_s].toArray(), (QJsonArray { 1, 1, 2 }));
}

void tst_InspectValues::locateText()
{
    const auto run = inspect({ u"locate"_s, m_file, u"w"_s });
    QCOMPARE(run.exitCode, 0);
    QVERIFY2(run.out.contains(u"first NaN    3  [0, 3]  nan"_s), qPrintable(run.out));
    QVERIFY2(run.out.contains(u"min          11  [2, 3]  -12"_s), qPrintable(run.out));
}

void tst_InspectValues::heatmapJson()
{
    const auto run = inspect({ u"heatmap"_s, m_file, u"w"_s, u"--size"_s, u"2x3"_s, u"--json"_s });
    QCOMPARE(run.exitCode, 0);
    const QJsonObject json = QJsonDocument::fromJson(run.out.toUtf8()).object();
    QCOMPARE(json[u"rows"_s].toInt(), 3);
    QCOMPARE(json[u"cols"_s].toInt(), 4);
    QCOMPARE(json[u"cell_rows"_s].toInt(), 2);
    QCOMPARE(json[u"cell_cols"_s].toInt(), 3);
    // Rows 0 | 1..2, columns 0 | 1 | 2..3.
    const auto grid
        = [&](const char *key, int i, int j) { return json[QLatin1String(key)].toArray()[i].toArray()[j]; };
    QCOMPARE(grid("min", 0, 0).toDouble(), double(0.1f)); // the float's exact value, not 0.1
    QCOMPARE(grid("nan", 0, 2).toInt(), 1);
    QCOMPARE(grid("min", 0, 2).toDouble(), 3.0);
    QCOMPARE(grid("inf", 1, 0).toInt(), 1); // -inf at (2, 0)
    QCOMPARE(grid("mean", 1, 0).toDouble(), 5.0);
    QCOMPARE(grid("inf", 1, 1).toInt(), 1); // +inf at (1, 1)
    QCOMPARE(grid("mean", 1, 2).toDouble(), (-7 + 8 + 11 - 12) / 4.0);
    // Streamed as it is made, the document keeps its shape: one line, the keys in this order,
    // every grid 2 lists of 3.
    QVERIFY(run.out.endsWith(u"}\n"_s) && run.out.count(u'\n') == 1);
    QVERIFY2(run.out.startsWith(u"{\"rows\":3,\"cols\":4,\"cell_rows\":2,\"cell_cols\":3,\"min\":[["_s),
        qPrintable(run.out));
    qsizetype at = 0;
    for (const char *key : { "min", "max", "mean", "nan", "inf" }) {
        const qsizetype next = run.out.indexOf(u"\""_s + QLatin1String(key) + u"\":[["_s);
        QVERIFY2(next > at, key);
        at = next;
        const QJsonArray grid = json[QLatin1String(key)].toArray();
        QCOMPARE(grid.size(), 2);
        QCOMPARE(grid[0].toArray().size(), 3);
        QCOMPARE(grid[1].toArray().size(), 3);
    }
    QCOMPARE(json.size(), 9);

    // A 3-D tensor takes --slice leaving two axes; a cell with no finite value is null.
    const auto sliced = inspect(
        { u"heatmap"_s, m_file, u"cube"_s, u"--size"_s, u"9x9"_s, u"--json"_s, u"--slice"_s, u"1"_s });
    QCOMPARE(sliced.exitCode, 0);
    const QJsonObject plane = QJsonDocument::fromJson(sliced.out.toUtf8()).object();
    QCOMPARE(plane[u"cell_rows"_s].toInt(), 2); // clamped to the plane's sides
    QCOMPARE(plane[u"max"_s].toArray()[1].toArray()[2].toDouble(), 12.0);
    const auto single = inspect({ u"heatmap"_s, m_file, u"w"_s, u"--size"_s, u"3x4"_s, u"--json"_s });
    QVERIFY(
        QJsonDocument::fromJson(single.out.toUtf8()).object()[u"mean"_s].toArray()[0].toArray()[3].isNull());
}

void tst_InspectValues::heatmapPng()
{
    const QString png = m_dir.filePath(u"w.png"_s);
    const auto run = inspect({ u"heatmap"_s, m_file, u"w"_s, u"--size"_s, u"3x4"_s, u"-o"_s, png });
    QCOMPARE(run.exitCode, 0);
    const QImage image(png);
    QCOMPARE(image.size(), QSize(4, 3));
    QCOMPARE(image.pixelColor(3, 0), QColor(255, 0, 255)); // NaN
    QCOMPARE(image.pixelColor(1, 1), QColor(0, 255, 0)); // +Inf
    QCOMPARE(image.pixelColor(0, 2), QColor(0, 0, 0)); // -Inf
    QCOMPARE(image.pixelColor(3, 2), QColor(59, 76, 192)); // -12: the blue end of the diverging map
    const QColor eight = image.pixelColor(3, 1); // 8 of ±12: on the red side, short of its end
    QVERIFY(eight.red() > eight.blue() && eight != QColor(180, 4, 38));
}

void tst_InspectValues::exportNpy()
{
    const QString out = m_dir.filePath(u"cube.npy"_s);
    const auto run = inspect({ u"export"_s, m_file, u"cube"_s, u"-o"_s, out, u"--slice"_s, u"1,:,1:"_s });
    QCOMPARE(run.exitCode, 0);
    QVERIFY2(run.out.contains(u"<f4"_s), qPrintable(run.out));
    QFile file(out);
    QVERIFY(file.open(QIODevice::ReadOnly));
    const QByteArray bytes = file.readAll();
    QVERIFY(bytes.startsWith("\x93NUMPY"));
    QVERIFY(bytes.contains("'shape': (2, 2), }"));
    float values[4];
    std::memcpy(values, bytes.constData() + bytes.size() - 16, 16);
    QCOMPARE(std::vector<float>(values, values + 4), (std::vector<float> { 8, 9, 11, 12 }));
}

void tst_InspectValues::devices_data()
{
    // -o naming a device is written to, never replaced by a regular file (as root, the real
    // /dev/full once was); /dev/stdout is the pipe the test reads.
    QTest::addColumn<QByteArrayList>("arguments"); // then -o and the device
    QTest::addColumn<QByteArray>("device");
    QTest::addColumn<int>("exitCode");
    QTest::addColumn<QByteArray>("out"); // what stdout starts with
    QTest::addColumn<QByteArray>("err"); // part of stderr, "@" standing for the device's path
    const QByteArrayList exportW { "export", "FILE", "w" };
    const QByteArrayList heatmapW { "heatmap", "FILE", "w", "--size", "3x4" };
    QTest::newRow("export to /dev/null")
        << exportW << QByteArray("null") << 0 << QByteArray("@: 'w'") << QByteArray();
    QTest::newRow("export to /dev/full") << exportW << QByteArray("full") << 1 << QByteArray()
                                         << QByteArray("@: cannot write @: No space left on device");
    QTest::newRow("export to /dev/stdout") // the line saying what was written moves to stderr
        << exportW << QByteArray("stdout") << 0 << QByteArray("\x93NUMPY") << QByteArray("@: 'w'");
    QTest::newRow("heatmap to /dev/null")
        << heatmapW << QByteArray("null") << 0 << QByteArray() << QByteArray();
    QTest::newRow("heatmap to /dev/full")
        << heatmapW << QByteArray("full") << 1 << QByteArray()
        << QByteArray("cannot write the PNG file: cannot write @: No space left on device");
    QTest::newRow("heatmap to /dev/stdout")
        << heatmapW << QByteArray("stdout") << 0 << QByteArray("\x89PNG\r\n") << QByteArray();
}

void tst_InspectValues::devices()
{
    QFETCH(QByteArrayList, arguments);
    QFETCH(QByteArray, device);
    QFETCH(int, exitCode);
    QFETCH(QByteArray, out);
    QFETCH(QByteArray, err);
    QByteArray path = "/dev/" + device;
    // Root may replace anything in /dev: it gets nodes of its own, the same devices (and a link
    // to /proc/self/fd/1, as /dev/stdout is), so that a regression replaces those. Others
    // cannot touch /dev and write to the real nodes.
    if (::geteuid() == 0) {
        path = QFile::encodeName(m_dir.filePath(QString::fromLatin1(device)));
        ::unlink(path.constData());
        if (device == "stdout")
            QCOMPARE(::symlink("/proc/self/fd/1", path.constData()), 0);
        else
            QCOMPARE(::mknod(path.constData(), S_IFCHR | 0666, makedev(1, device == "null" ? 3 : 7)), 0);
    }
    arguments.replace(arguments.indexOf("FILE"), QFile::encodeName(m_file));
    const auto run = test::runInspectRaw(arguments + QByteArrayList { "-o", path });
    QCOMPARE(run.exitCode, exitCode);
    QVERIFY2(run.out.startsWith(out.replace("@", path)), run.out.left(64).constData());
    QVERIFY2(run.err.contains(err.replace("@", path)), run.err.constData());
    if (device == "stdout")
        return;
    struct stat st { };
    QVERIFY2(::stat(path.constData(), &st) == 0 && S_ISCHR(st.st_mode), path.constData());
    const QString folder = QFile::decodeName(path).section(u'/', 0, -2);
    QCOMPARE(QDir(folder).entryList({ u"*.partial-*"_s }, QDir::AllEntries | QDir::System), QStringList());
}

void tst_InspectValues::throughLink()
{
    // -o naming a link writes the file it points to and keeps the link.
    const QString png = m_dir.filePath(u"linked.png"_s), link = m_dir.filePath(u"link.png"_s);
    {
        QFile old(png);
        QVERIFY(old.open(QIODevice::WriteOnly));
        old.write("old");
    }
    QVERIFY(QFile::link(u"linked.png"_s, link));
    const auto run = inspect({ u"heatmap"_s, m_file, u"w"_s, u"--size"_s, u"3x4"_s, u"-o"_s, link });
    QCOMPARE(run.exitCode, 0);
    QCOMPARE(QFileInfo(link).symLinkTarget(), png);
    QCOMPARE(QImage(png).size(), QSize(4, 3));
    QCOMPARE(QDir(m_dir.path()).entryList({ u"*.partial-*"_s }, QDir::AllEntries), QStringList());
}

void tst_InspectValues::failures_data()
{
    QTest::addColumn<QStringList>("arguments");
    QTest::addColumn<int>("exitCode");
    QTest::addColumn<QString>("message");
    const QString missing = u"/nonexistent/folder/x.npy"_s;
    QTest::newRow("unknown tensor") << QStringList { u"locate"_s, u"FILE"_s, u"nope"_s } << 1
                                    << u"no tensor named 'nope'"_s;
    QTest::newRow("bad slice") << QStringList { u"export"_s, u"FILE"_s, u"w"_s, u"-o"_s, u"OUT"_s,
        u"--slice"_s, u"0,9"_s }
                               << 1 << u"index 9 is out of range for axis 1 of size 4"_s;
    QTest::newRow("cannot write") << QStringList { u"export"_s, u"FILE"_s, u"w"_s, u"-o"_s, missing } << 1
                                  << u"cannot create a file in /nonexistent/folder"_s;
    QTest::newRow("over the source") << QStringList { u"export"_s, u"FILE"_s, u"w"_s, u"-o"_s, u"FILE"_s }
                                     << 1 << u"refusing to write over the source file"_s;
    QTest::newRow("no output") << QStringList { u"export"_s, u"FILE"_s, u"w"_s } << 2 << u"-o OUT.npy"_s;
    QTest::newRow("three axes") << QStringList { u"heatmap"_s, u"FILE"_s, u"cube"_s, u"--size"_s, u"2x2"_s,
        u"--json"_s } << 1 << u"choose them with --slice"_s;
    QTest::newRow("bad size") << QStringList { u"heatmap"_s, u"FILE"_s, u"w"_s, u"--size"_s, u"0x2"_s,
        u"--json"_s } << 2 << u"--size takes HxW"_s;
    QTest::newRow("no output form") << QStringList { u"heatmap"_s, u"FILE"_s, u"w"_s, u"--size"_s, u"2x2"_s }
                                    << 2 << u"give -o OUT.png, --json or both"_s;
}

void tst_InspectValues::failures()
{
    QFETCH(QStringList, arguments);
    QFETCH(int, exitCode);
    QFETCH(QString, message);
    arguments.replaceInStrings(u"FILE"_s, m_file);
    arguments.replaceInStrings(u"OUT"_s, m_dir.filePath(u"never.npy"_s));
    const auto run = inspect(arguments);
    QCOMPARE(run.exitCode, exitCode);
    QVERIFY2(run.err.contains(message), qPrintable(run.err));
    QVERIFY(!QFile::exists(m_dir.filePath(u"never.npy"_s)));
    QCOMPARE(QDir(m_dir.path()).entryList({ u"*.partial-*"_s }, QDir::Files), QStringList());
}

QTEST_GUILESS_MAIN(tst_InspectValues)
#include "tst_inspectvalues.moc"
