#include "core/io/fileextents.h"
#include "core/format/header.h"
#include "core/io/safetensorsfile.h"
#include "tests/support/testfiles.h"

#include <QElapsedTimer>
#include <QTemporaryDir>
#include <QTest>

#include <string>

using namespace stb;
using namespace Qt::StringLiterals;

namespace {

QString kindName(Extent::Kind kind)
{
    switch (kind) {
    case Extent::Kind::LengthPrefix:
        return u"prefix"_s;
    case Extent::Kind::Header:
        return u"header"_s;
    case Extent::Kind::Padding:
        return u"padding"_s;
    case Extent::Kind::Tensor:
        return u"tensor"_s;
    case Extent::Kind::Hole:
        return u"hole"_s;
    case Extent::Kind::Overlap:
        return u"overlap"_s;
    case Extent::Kind::Trailing:
        return u"trailing"_s;
    case Extent::Kind::Missing:
        return u"missing"_s;
    }
    return {};
}

// "tensor:a +0-16": data-region extents are written relative to the data start ("+"), so the
// rows below read like the header's data_offsets; header extents are absolute.
QString describe(const Header &header, const std::vector<Extent> &extents)
{
    QStringList parts;
    for (const Extent &e : extents) {
        QString text = kindName(e.kind);
        if (e.tensor >= 0)
            text += u':' + QString::fromStdString(header.tensors[std::size_t(e.tensor)].name);
        if (e.otherTensor >= 0)
            text += u'&' + QString::fromStdString(header.tensors[std::size_t(e.otherTensor)].name);
        const bool relative = e.kind == Extent::Kind::Tensor || e.kind == Extent::Kind::Hole
            || e.kind == Extent::Kind::Overlap || e.kind == Extent::Kind::Trailing || e.tensor >= 0;
        const quint64 base = relative ? header.dataStart : 0;
        text += (relative ? u" +"_s : u" "_s) + QString::number(e.begin - base) + u'-'
            + QString::number(e.end - base);
        parts << text;
    }
    return parts.join(u", "_s);
}

std::string entry(const char *name, quint64 begin, quint64 end)
{
    return "\"" + std::string(name) + "\":{\"dtype\":\"U8\",\"shape\":[" + std::to_string(end - begin)
        + "],\"data_offsets\":[" + std::to_string(begin) + "," + std::to_string(end) + "]}";
}

std::string json(std::initializer_list<std::string> entries)
{
    std::string out = "{";
    for (const auto &e : entries)
        out += (out.size() > 1 ? "," : "") + e;
    return out + "}";
}

QByteArray toBytes(const std::vector<std::byte> &bytes)
{
    return QByteArray(reinterpret_cast<const char *>(bytes.data()), qsizetype(bytes.size()));
}

std::span<const std::byte> asSpan(const QByteArray &bytes)
{
    return std::as_bytes(std::span(bytes.constData(), std::size_t(bytes.size())));
}

} // namespace

class tst_FileExtents : public QObject {
    Q_OBJECT

private slots:
    void layout_data();
    void layout();
    void openFileAgrees();
    void extentAtFindsTheHolder();
    void manyTensors();
};

void tst_FileExtents::layout_data()
{
    QTest::addColumn<QByteArray>("file");
    QTest::addColumn<QString>("expected");

    const auto ab = json({ entry("a", 0, 16), entry("b", 16, 19) });
    const auto end = QString::number(8 + ab.size());
    QTest::newRow("valid, padded")
        << toBytes(test::rawFile(ab + "     ", 19))
        << u"prefix 0-8, header 8-%1, padding %1-%2, tensor:a +0-16, tensor:b +16-19"_s.arg(
               end, QString::number(8 + ab.size() + 5));
    QTest::newRow("valid, unpadded") << toBytes(
        test::rawFile(ab, 19)) << u"prefix 0-8, header 8-%1, tensor:a +0-16, tensor:b +16-19"_s.arg(end);

    const auto h = [](const std::string &j) { return u"prefix 0-8, header 8-%1, "_s.arg(8 + j.size()); };
    const auto hole = json({ entry("a", 0, 16), entry("b", 20, 23) });
    QTest::newRow("hole") << toBytes(test::rawFile(hole, 23))
                          << h(hole) + u"tensor:a +0-16, hole +16-20, tensor:b +20-23"_s;
    const auto leading = json({ entry("a", 4, 20) });
    QTest::newRow("leading hole") << toBytes(test::rawFile(leading, 20))
                                  << h(leading) + u"hole +0-4, tensor:a +4-20"_s;
    const auto overlap = json({ entry("a", 0, 16), entry("b", 8, 24) });
    QTest::newRow("overlap") << toBytes(test::rawFile(overlap, 24))
                             << h(overlap) + u"tensor:a +0-8, overlap:a&b +8-16, tensor:b +16-24"_s;
    const auto inside = json({ entry("a", 0, 32), entry("b", 8, 16) });
    QTest::newRow("contained") << toBytes(test::rawFile(inside, 32))
                               << h(inside) + u"tensor:a +0-8, overlap:a&b +8-16, tensor:a +16-32"_s;
    const auto same = json({ entry("a", 0, 8), entry("b", 0, 8) });
    QTest::newRow("same range") << toBytes(test::rawFile(same, 8)) << h(same) + u"overlap:a&b +0-8"_s;
    const auto a16 = json({ entry("a", 0, 16) });
    QTest::newRow("trailing") << toBytes(test::rawFile(a16, 20))
                              << h(a16) + u"tensor:a +0-16, trailing +16-20"_s;
    const auto ab32 = json({ entry("a", 0, 16), entry("b", 16, 32) });
    QTest::newRow("truncated") << toBytes(test::rawFile(ab32, 20))
                               << h(ab32) + u"tensor:a +0-16, tensor:b +16-20, missing:b +20-32"_s;
    const auto far = json({ entry("a", 0, 16), entry("b", 32, 48) });
    QTest::newRow("wholly past the end")
        << toBytes(test::rawFile(far, 16)) << h(far) + u"tensor:a +0-16, missing:b +32-48"_s;
    const auto zero = json({ entry("z", 0, 0), entry("b", 0, 4) });
    QTest::newRow("zero-byte tensor")
        << toBytes(test::rawFile(zero, 4)) << h(zero) + u"tensor:z +0-0, tensor:b +0-4"_s;
    QTest::newRow("no tensors, trailing")
        << toBytes(test::rawFile("{}", 4)) << u"prefix 0-8, header 8-10, trailing +0-4"_s;
    QTest::newRow("header past the end")
        << toBytes(test::rawFile("{\"a\":1}", 0, 0, 100)) << u"prefix 0-8, header 8-15, missing 15-108"_s;
    QTest::newRow("shorter than the prefix") << QByteArray(5, '\0') << u"prefix 0-5, missing 5-8"_s;
    QTest::newRow("empty") << QByteArray() << u"missing 0-8"_s;
    QTest::newRow("only spaces") << toBytes(test::rawFile("    ", 0)) << u"prefix 0-8, header 8-12"_s;
}

void tst_FileExtents::layout()
{
    QFETCH(QByteArray, file);
    QFETCH(QString, expected);
    const Header header = parseHeader(asSpan(file));
    const auto extents = fileExtents(header, asSpan(file));
    QCOMPARE(describe(header, extents), expected);
    // Inside the file the extents tile it: each begins where the previous ended.
    quint64 at = 0;
    for (const Extent &e : extents) {
        if (e.begin >= header.fileSize && e.kind == Extent::Kind::Missing)
            break;
        QCOMPARE(e.begin, at);
        at = e.end;
    }
    QCOMPARE(at, header.fileSize);
}

void tst_FileExtents::openFileAgrees()
{
    QTemporaryDir dir;
    QVERIFY(dir.isValid());
    // A header with more padding than one guarded read, to walk back over several chunks.
    const auto text = json({ entry("a", 0, 16), entry("b", 20, 40) }) + std::string(10000, ' ');
    const auto bytes = test::rawFile(text, 44);
    const std::string path = dir.filePath(u"f.safetensors"_s).toStdString();
    QVERIFY(test::writeBytes(path, bytes));
    std::string error;
    const auto file = SafetensorsFile::open(path, error);
    QVERIFY2(file, error.c_str());
    const auto fromFile = fileExtents(*file);
    QVERIFY(fromFile == fileExtents(file->header(), bytes));
    QCOMPARE(fromFile[2].kind, Extent::Kind::Padding);
    QCOMPARE(fromFile[2].size(), 10000u);
    QCOMPARE(fromFile.back().kind, Extent::Kind::Trailing);
}

void tst_FileExtents::extentAtFindsTheHolder()
{
    const auto text = json({ entry("z", 0, 0), entry("a", 0, 16), entry("b", 20, 24) });
    const auto bytes = test::rawFile(text, 24);
    const Header header = parseHeader(bytes);
    const auto extents = fileExtents(header, bytes);
    const auto kindAt = [&](quint64 offset) {
        const auto i = extentAt(extents, offset);
        return i < 0 ? u"none"_s : kindName(extents[std::size_t(i)].kind);
    };
    QCOMPARE(kindAt(0), u"prefix"_s);
    QCOMPARE(kindAt(7), u"prefix"_s);
    QCOMPARE(kindAt(8), u"header"_s);
    QCOMPARE(kindAt(header.dataStart), u"tensor"_s); // the zero-byte tensor holds nothing
    QCOMPARE(extents[std::size_t(extentAt(extents, header.dataStart))].tensor, 1);
    QCOMPARE(kindAt(header.dataStart + 17), u"hole"_s);
    QCOMPARE(kindAt(header.fileSize - 1), u"tensor"_s);
    QCOMPARE(kindAt(header.fileSize), u"none"_s);
}

void tst_FileExtents::manyTensors()
{
    // 100,000 packed tensors, one pair overlapping: the sweep stays linear-ish and exact.
    Header header;
    constexpr quint64 n = 100'000;
    header.dataStart = 1000;
    header.headerLength = 992;
    header.fileSize = header.dataStart + 4 * n;
    for (quint64 i = 0; i < n; ++i)
        header.tensors.push_back({ "t" + std::to_string(i), DType::F32, { 1 }, 4 * i, 4 * i + 4 });
    header.tensors[500].end += 2;
    QElapsedTimer timer;
    timer.start();
    const auto extents = fileExtents(header, {});
    qInfo() << "fileExtents for" << n << "tensors:" << timer.elapsed() << "ms";
    QCOMPARE(extents.size(), std::size_t(2 + n + 1)); // prefix, header, tensors, the overlap
    const auto i = extentAt(extents, header.dataStart + 4 * 501);
    QCOMPARE(extents[std::size_t(i)].kind, Extent::Kind::Overlap);
    QCOMPARE(extents[std::size_t(i)].tensor, 500);
    QCOMPARE(extents[std::size_t(i)].otherTensor, 501);
}

QTEST_GUILESS_MAIN(tst_FileExtents)
#include "tst_fileextents.moc"
