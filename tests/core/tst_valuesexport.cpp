// .npy export: the header and data of every dtype checked byte by byte here, then loaded by
// NumPy when python3-numpy is installed (dtype, shape and every value, NaN/±Inf/±0/subnormals
// included), raw codes, scalars, empty tensors and slices; failures (missing folder, read-only
// folder, the source file as target, a write cut short) leave no file and say why.
#include "core/format/writer.h"
#include "core/io/safetensorsfile.h"
#include "core/values/csvexport.h"
#include "core/values/npyexport.h"
#include "core/values/slicespec.h"
#include "tests/support/valuedata.h"

#include <QDir>
#include <QFile>
#include <QFileInfo>
#include <QProcess>
#include <QTemporaryDir>
#include <QTest>

#include <algorithm>
#include <cmath>
#include <csignal>
#include <cstring>
#include <map>
#include <vector>

#include <sys/resource.h>
#include <unistd.h>

using namespace Qt::StringLiterals;
using namespace stb;

namespace {

// Special codes of each dtype (NaN, ±Inf, ±0, the smallest subnormal, a normal value), padded to
// an even count so that sub-byte tensors fill whole bytes.
std::vector<std::uint64_t> specialCodes(DType dtype)
{
    switch (dtype) {
    case DType::F16:
        return { 0x0000, 0x8000, 0x7C00, 0xFC00, 0x7E00, 0x0001, 0x3C00, 0xC000 };
    case DType::BF16:
        return { 0x0000, 0x8000, 0x7F80, 0xFF80, 0x7FC0, 0x0001, 0x3F80, 0xC000 };
    case DType::F32:
        return { 0x0, 0x80000000, 0x7F800000, 0xFF800000, 0x7FC00000, 0x1, 0x3F800000, 0xC0000000 };
    case DType::F64:
        return { 0, 0x8000000000000000u, 0x7FF0000000000000u, 0xFFF0000000000000u, 0x7FF8000000000000u, 1 };
    case DType::C64:
        return { 0x7FC00000'3F800000u, 0x80000000'7F800000u, 1 };
    case DType::BOOL:
        return { 0, 1, 5, 0 };
    case DType::F4:
        return { 0x0, 0x8, 0x1, 0x7, 0xF, 0x2, 0x9, 0x3 };
    case DType::F6_E2M3:
    case DType::F6_E3M2:
        return { 0x00, 0x20, 0x01, 0x1F, 0x3F, 0x08, 0x21, 0x02 };
    default:
        break;
    }
    const unsigned bits = dtypeBits(dtype);
    const std::uint64_t top = bits == 64 ? ~std::uint64_t(0) : (std::uint64_t(1) << bits) - 1;
    return { 0, 1, top, top >> 1, (top >> 1) + 1, 0x7F, 0x80, 0xFF & top }; // F8: NaNs, ±0, subnormal
}

std::string tensorName(DType dtype)
{
    return "t_" + std::string(dtypeName(dtype));
}

struct Npy {
    QByteArray descr, shape;
    QByteArray data;
    bool ok = false;
};

// Our own reading of a v1.0 file, independent of the writer's code.
Npy readNpy(const QString &path)
{
    Npy npy;
    QFile file(path);
    if (!file.open(QIODevice::ReadOnly))
        return npy;
    const QByteArray all = file.readAll();
    if (!all.startsWith(QByteArray("\x93NUMPY\x01\x00", 8)) || all.size() < 10)
        return npy;
    const int headerLength = quint8(all[8]) | quint8(all[9]) << 8;
    if ((10 + headerLength) % 64 != 0 || all[10 + headerLength - 1] != '\n')
        return npy;
    const QByteArray header = all.mid(10, headerLength);
    const auto field = [&](const QByteArray &key, char open, char close) {
        const int at = header.indexOf(key);
        const int begin = header.indexOf(open, at + key.size());
        return header.mid(begin + 1, header.indexOf(close, begin + 1) - begin - 1);
    };
    npy.descr = field("'descr': ", '\'', '\'');
    npy.shape = field("'shape': ", '(', ')');
    npy.ok = header.contains("'fortran_order': False");
    npy.data = all.mid(10 + headerLength);
    return npy;
}

// A Python that has NumPy: the system's python3-numpy also when another python3 comes first in
// PATH (pyenv); empty when there is none.
QString pythonWithNumpy()
{
    for (const QString &python : { u"python3"_s, u"/usr/bin/python3"_s }) {
        QProcess probe;
        probe.start(python, { u"-c"_s, u"import numpy"_s });
        if (probe.waitForFinished(30000) && probe.exitStatus() == QProcess::NormalExit
            && probe.exitCode() == 0)
            return python;
    }
    return {};
}

// NumPy's view of each file: "name dtype shape" then one line per element, floats in hex.
QMap<QString, QStringList> loadWithNumpy(const QString &python, const QString &folder)
{
    const QString script = uR"(
import glob, os, sys, numpy as np
def text(x):
    if isinstance(x, complex): return text(x.real) + ',' + text(x.imag)
    if isinstance(x, float): return x.hex()
    return str(int(x))
for path in sorted(glob.glob(os.path.join(sys.argv[1], '*.npy'))):
    a = np.load(path)
    print('#', os.path.basename(path), a.dtype.str, ','.join(map(str, a.shape)))
    for x in a.reshape(-1): print(text(x.item()))
)"_s;
    QProcess process;
    process.start(python, { u"-c"_s, script, folder });
    process.waitForFinished(60000);
    QMap<QString, QStringList> files;
    QString current;
    for (const QString &line :
        QString::fromUtf8(process.readAllStandardOutput()).split(u'\n', Qt::SkipEmptyParts)) {
        if (line.startsWith(u"# "_s)) {
            const QStringList parts = line.split(u' ');
            current = parts.value(1);
            files[current] = { parts.value(2), parts.value(3) };
        } else {
            files[current] << line;
        }
    }
    return files;
}

bool sameDouble(double a, double b)
{
    return (std::isnan(a) && std::isnan(b)) || (a == b && std::signbit(a) == std::signbit(b));
}

} // namespace

class tst_ValuesExport : public QObject {
    Q_OBJECT

private slots:
    void initTestCase();
    void everyDType_data();
    void everyDType();
    void scalarsEmptyAndSlices();
    void loadsInNumpy();
    void failuresLeaveNoFile();
    void failuresEvenAsRoot_data();
    void failuresEvenAsRoot();
    void csv();

private:
    QTemporaryDir m_dir;
    std::string m_source;
    std::shared_ptr<const SafetensorsFile> m_file;
    QString out(const QString &name) const { return m_dir.filePath(u"out/"_s + name); }
    const TensorInfo &tensor(const std::string &name) const;
    bool exportTensor(const std::string &name, const QString &file, bool raw, const std::string &spec = {});
};

void tst_ValuesExport::initTestCase()
{
    QVERIFY(m_dir.isValid());
    QVERIFY(QDir(m_dir.path()).mkdir(u"out"_s));
    std::vector<TensorSpec> specs;
    std::vector<std::vector<std::byte>> data;
    for (const DTypeInfo &info : allDTypes()) {
        const auto codes = specialCodes(info.dtype);
        specs.push_back({ tensorName(info.dtype), info.dtype, { codes.size() } });
        data.push_back(test::packCodes(info.dtype, codes));
    }
    specs.push_back({ "scalar", DType::F32, {} });
    data.push_back(test::packCodes(DType::F32, { 0xC0490FDB })); // -pi
    specs.push_back({ "empty", DType::BF16, { 0, 3 } });
    data.push_back({});
    specs.push_back({ "matrix", DType::I32, { 3, 4 } });
    data.push_back(test::packCodes(DType::I32, { 0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11 }));
    specs.push_back({ "packed", DType::F4, { 2, 4 } });
    data.push_back(test::packCodes(DType::F4, { 0, 1, 2, 3, 4, 5, 6, 7 }));
    m_source = m_dir.filePath(u"model.safetensors"_s).toStdString();
    std::string error;
    QVERIFY2(writeFile(m_source, specs, data, {}, error), error.c_str());
    m_file = SafetensorsFile::open(m_source, error);
    QVERIFY2(m_file, error.c_str());
}

const TensorInfo &tst_ValuesExport::tensor(const std::string &name) const
{
    for (const TensorInfo &t : m_file->header().tensors) {
        if (t.name == name)
            return t;
    }
    qFatal("no tensor %s", name.c_str());
}

bool tst_ValuesExport::exportTensor(
    const std::string &name, const QString &file, bool raw, const std::string &spec)
{
    const TensorInfo &t = tensor(name);
    std::string error;
    const auto view = parseSliceSpec(spec, t.shape, error);
    if (!view
        || !exportNpy(
            out(file).toStdString(), m_source, t.dtype, m_file->tensorBytes(t), *view, raw, error)) {
        qWarning("%s", error.c_str());
        return false;
    }
    return true;
}

void tst_ValuesExport::everyDType_data()
{
    QTest::addColumn<int>("dtype");
    QTest::addColumn<bool>("raw");
    for (const DTypeInfo &info : allDTypes()) {
        QTest::addRow("%s", info.name.data()) << int(info.dtype) << false;
        QTest::addRow("%s raw", info.name.data()) << int(info.dtype) << true;
    }
}

void tst_ValuesExport::everyDType()
{
    QFETCH(int, dtype);
    QFETCH(bool, raw);
    const auto d = DType(dtype);
    const QString file = QString::fromStdString(tensorName(d)) + (raw ? u".raw.npy"_s : u".npy"_s);
    QVERIFY(exportTensor(tensorName(d), file, raw));
    const Npy npy = readNpy(out(file));
    QVERIFY(npy.ok);
    const auto codes = specialCodes(d);
    QCOMPARE(npy.shape, QByteArray::number(qulonglong(codes.size())) + ',');
    const NpyEncoding encoding = npyEncoding(d, raw);
    QCOMPARE(npy.descr, QByteArray::fromStdString(encoding.descr));
    QCOMPARE(qsizetype(npy.data.size()), qsizetype(codes.size() * encoding.itemSize));
    const std::vector<std::byte> source = test::packCodes(d, codes);
    const bool narrowFloat = d == DType::BF16 || d == DType::F4 || d == DType::F6_E2M3 || d == DType::F6_E3M2
        || (dtypeBits(d) == 8 && dtypeInfo(d).kind == DTypeKind::Float);
    QCOMPARE(encoding.converted, narrowFloat && !raw);
    for (std::size_t i = 0; i < codes.size(); ++i) {
        const char *item = npy.data.constData() + i * encoding.itemSize;
        if (encoding.converted) {
            float f;
            std::memcpy(&f, item, 4);
            QVERIFY2(sameDouble(f, decodeCode(d, codes[i])), qPrintable(u"element %1"_s.arg(i)));
        } else if (d == DType::BOOL) {
            QCOMPARE(int(item[0]), codes[i] ? 1 : 0);
        } else {
            std::uint64_t code = 0;
            std::memcpy(&code, item, encoding.itemSize);
            QCOMPARE(code, codes[i]); // copied or unpacked: the code itself
        }
    }
}

void tst_ValuesExport::loadsInNumpy()
{
    const QString python = pythonWithNumpy();
    if (python.isEmpty())
        QSKIP("python3-numpy is not installed: the files' own bytes were checked in everyDType");
    const auto files = loadWithNumpy(python, m_dir.filePath(u"out"_s));
    QVERIFY(!files.isEmpty());
    const std::map<DType, const char *> numpyTypes { { DType::BOOL, "|b1" }, { DType::U8, "|u1" },
        { DType::I8, "|i1" }, { DType::I16, "<i2" }, { DType::U16, "<u2" }, { DType::F16, "<f2" },
        { DType::I32, "<i4" }, { DType::U32, "<u4" }, { DType::F32, "<f4" }, { DType::C64, "<c8" },
        { DType::F64, "<f8" }, { DType::I64, "<i8" }, { DType::U64, "<u8" } };
    for (const DTypeInfo &info : allDTypes()) {
        const auto codes = specialCodes(info.dtype);
        for (bool raw : { false, true }) {
            const QString name
                = QString::fromStdString(tensorName(info.dtype)) + (raw ? u".raw.npy"_s : u".npy"_s);
            QVERIFY2(files.contains(name), qPrintable(name));
            const QStringList lines = files[name];
            const auto native = numpyTypes.find(info.dtype);
            const QString expectedType = native != numpyTypes.end() ? QString::fromLatin1(native->second)
                : raw ? (info.dtype == DType::BF16 ? u"<u2"_s : u"|u1"_s)
                      : u"<f4"_s;
            QCOMPARE(lines.value(0), expectedType);
            QCOMPARE(lines.value(1), QString::number(codes.size()));
            QCOMPARE(lines.size(), qsizetype(codes.size() + 2));
            for (std::size_t i = 0; i < codes.size(); ++i) {
                const QString value = lines[qsizetype(i + 2)];
                if (info.dtype == DType::C64) {
                    const auto z = decodeComplex(codes[i]);
                    const QStringList parts = value.split(u',');
                    QVERIFY(sameDouble(std::strtod(qPrintable(parts.value(0)), nullptr), z.real()));
                    QVERIFY(sameDouble(std::strtod(qPrintable(parts.value(1)), nullptr), z.imag()));
                } else if (raw && native == numpyTypes.end()) {
                    QCOMPARE(value.toULongLong(), codes[i]);
                } else if (info.kind == DTypeKind::Float) {
                    QVERIFY2(
                        sameDouble(std::strtod(qPrintable(value), nullptr), decodeCode(info.dtype, codes[i])),
                        qPrintable(name + u" element "_s + QString::number(i) + u": "_s + value));
                } else {
                    QCOMPARE(value,
                        QString::fromStdString(
                            formatElement(info.dtype, test::packCodes(info.dtype, codes), i))
                            .replace(u"true"_s, u"1"_s)
                            .replace(u"false"_s, u"0"_s));
                }
            }
        }
    }
    // Scalars, empty tensors and slices (written by scalarsEmptyAndSlices, which runs first).
    QCOMPARE(files.value(u"scalar.npy"_s).mid(0, 3),
        (QStringList { u"<f4"_s, QString(), u"-0x1.921fb60000000p+1"_s }));
    QCOMPARE(files.value(u"empty.npy"_s), (QStringList { u"<f4"_s, u"0,3"_s }));
    QCOMPARE(
        files.value(u"slice.npy"_s), (QStringList { u"<i4"_s, u"2,2"_s, u"4"_s, u"6"_s, u"8"_s, u"10"_s }));
    QCOMPARE(files.value(u"packed-column.npy"_s),
        (QStringList { u"<f4"_s, u"2"_s, u"0x1.0000000000000p+0"_s, u"0x1.0000000000000p+2"_s }));
}

void tst_ValuesExport::scalarsEmptyAndSlices()
{
    QVERIFY(exportTensor("scalar", u"scalar.npy"_s, false));
    Npy npy = readNpy(out(u"scalar.npy"_s));
    QCOMPARE(npy.shape, QByteArray());
    QCOMPARE(npy.data.size(), 4);
    QVERIFY(exportTensor("empty", u"empty.npy"_s, false));
    npy = readNpy(out(u"empty.npy"_s));
    QCOMPARE(npy.shape, QByteArray("0, 3"));
    QCOMPARE(npy.data.size(), 0);
    QVERIFY(exportTensor("matrix", u"slice.npy"_s, false, "1:, ::2"));
    npy = readNpy(out(u"slice.npy"_s));
    QCOMPARE(npy.shape, QByteArray("2, 2"));
    std::int32_t values[4];
    std::memcpy(values, npy.data.constData(), 16);
    QCOMPARE(std::vector<std::int32_t>(values, values + 4), (std::vector<std::int32_t> { 4, 6, 8, 10 }));
    // A column of a packed F4 tensor: a strided read of nibbles (codes 2 and 6: 1.0 and 4.0).
    QVERIFY(exportTensor("packed", u"packed-column.npy"_s, false, ":, 2"));
    npy = readNpy(out(u"packed-column.npy"_s));
    QCOMPARE(npy.shape, QByteArray("2,"));
    float column[2];
    std::memcpy(column, npy.data.constData(), 8);
    QCOMPARE(column[0], 1.0f);
    QCOMPARE(column[1], 4.0f);
}

void tst_ValuesExport::failuresLeaveNoFile()
{
    const TensorInfo &t = tensor("matrix");
    const auto bytes = m_file->tensorBytes(t);
    const StridedView view = wholeView(t.shape);
    std::string error;
    QVERIFY(!exportNpy(
        m_dir.filePath(u"missing/x.npy"_s).toStdString(), m_source, t.dtype, bytes, view, false, error));
    QVERIFY2(QString::fromStdString(error).contains(u"No such file or directory"_s), error.c_str());

    const QByteArray before = [&] {
        QFile f(QString::fromStdString(m_source));
        f.open(QIODevice::ReadOnly);
        return f.readAll();
    }();
    QVERIFY(!exportNpy(m_source, m_source, t.dtype, bytes, view, false, error));
    QVERIFY(QString::fromStdString(error).contains(u"refusing to write over the source file"_s));
    const QString link = m_dir.filePath(u"link.safetensors"_s);
    QVERIFY(QFile::link(QString::fromStdString(m_source), link));
    QVERIFY(!exportNpy(link.toStdString(), m_source, t.dtype, bytes, view, false, error));
    QFile source(QString::fromStdString(m_source));
    QVERIFY(source.open(QIODevice::ReadOnly));
    QCOMPARE(source.readAll(), before);

    // A write cut short (a file-size limit stands in for a full disk): no partial file stays.
    QTemporaryDir full;
    struct rlimit old { };
    getrlimit(RLIMIT_FSIZE, &old);
    std::signal(SIGXFSZ, SIG_IGN);
    struct rlimit small = old;
    small.rlim_cur = 64; // the header fits, the data does not
    QCOMPARE(setrlimit(RLIMIT_FSIZE, &small), 0);
    const bool written
        = exportNpy(full.filePath(u"x.npy"_s).toStdString(), m_source, t.dtype, bytes, view, false, error);
    setrlimit(RLIMIT_FSIZE, &old);
    QVERIFY(!written);
    QVERIFY2(QString::fromStdString(error).startsWith(u"cannot write "_s), error.c_str());
    QCOMPARE(QDir(full.path()).entryList(QDir::NoDotAndDotDot | QDir::AllEntries), QStringList());

    // A read-only folder (root writes anyway: then there is nothing to check).
    QTemporaryDir readOnly;
    QVERIFY(QFile::setPermissions(readOnly.path(), QFile::ReadOwner | QFile::ExeOwner));
    const bool refused = !exportNpy(
        readOnly.filePath(u"x.npy"_s).toStdString(), m_source, t.dtype, bytes, view, false, error);
    QFile::setPermissions(readOnly.path(), QFile::ReadOwner | QFile::WriteOwner | QFile::ExeOwner);
    if (geteuid() == 0 && !refused)
        QSKIP("running as root: a read-only folder does not stop writes (the cut-short write above was "
              "checked)");
    QVERIFY(refused);
    QVERIFY2(QString::fromStdString(error).contains(u"Permission denied"_s), error.c_str());
    QCOMPARE(QDir(readOnly.path()).entryList(QDir::NoDotAndDotDot | QDir::AllEntries), QStringList());
}

void tst_ValuesExport::failuresEvenAsRoot_data()
{
    // Targets no file can be written to, whoever runs the test (CI runs as root, whom a read-only
    // folder does not stop): the folder to look in afterwards, and the reasons the message may give.
    QTest::addColumn<QString>("target"); // "@" stands for a fresh temporary folder
    QTest::addColumn<QString>("folder");
    QTest::addColumn<QStringList>("reasons");
    QTest::newRow("folder is a regular file")
        << u"@/plain.txt/x.npy"_s << u"@"_s << QStringList { u"Not a directory"_s };
    QTest::newRow("missing parent folder")
        << u"@/missing/deeper/x.npy"_s << u"@"_s << QStringList { u"No such file or directory"_s };
    QTest::newRow("target is a folder") << u"@/folder"_s << u"@"_s << QStringList { u"Is a directory"_s };
    QTest::newRow("name too long") << u"@/"_s + QString(300, u'n') + u".npy"_s << u"@"_s
                                   << QStringList { u"File name too long"_s };
    // sysfs takes no new files (EACCES even for root; EROFS where it is mounted read-only), nor
    // does the top of procfs (ENOENT).
    QTest::newRow("under /sys") << u"/sys/x.npy"_s << u"/sys"_s
                                << QStringList { u"Permission denied"_s, u"Read-only file system"_s };
    QTest::newRow("under /proc") << u"/proc/x.npy"_s << u"/proc"_s
                                 << QStringList { u"No such file or directory"_s, u"Permission denied"_s };
}

void tst_ValuesExport::failuresEvenAsRoot()
{
    QFETCH(QString, target);
    QFETCH(QString, folder);
    QFETCH(QStringList, reasons);
    QTemporaryDir dir;
    QVERIFY(dir.isValid());
    {
        QFile plain(dir.filePath(u"plain.txt"_s));
        QVERIFY(plain.open(QIODevice::WriteOnly));
        plain.write("kept");
    }
    QVERIFY(QDir(dir.path()).mkdir(u"folder"_s));
    target.replace(u"@"_s, dir.path());
    folder.replace(u"@"_s, dir.path());
    const auto listing
        = [&] { return QDir(folder).entryList(QDir::NoDotAndDotDot | QDir::AllEntries | QDir::System); };
    const QStringList before = listing();

    const TensorInfo &t = tensor("matrix");
    const auto bytes = m_file->tensorBytes(t);
    const StridedView view = wholeView(t.shape);
    for (bool csv : { false, true }) {
        std::string error;
        const bool written = csv
            ? exportCsv(target.toStdString(), m_source, t.dtype, bytes, view, error)
            : exportNpy(target.toStdString(), m_source, t.dtype, bytes, view, false, error);
        QVERIFY(!written);
        const QString message = QString::fromStdString(error);
        // It says what could not be written and why.
        QVERIFY2(message.startsWith(u"cannot "_s), error.c_str());
        QVERIFY2(std::any_of(
                     reasons.begin(), reasons.end(), [&](const QString &r) { return message.contains(r); }),
            error.c_str());
        QVERIFY2(message.contains(QFileInfo(target).fileName().left(40)) || message.contains(folder),
            error.c_str());
        // Nothing written, no temporary left behind, the folder's own content untouched.
        QCOMPARE(listing(), before);
        QVERIFY(!QFileInfo(target).isFile());
        QFile plain(dir.filePath(u"plain.txt"_s));
        QVERIFY(plain.open(QIODevice::ReadOnly));
        QCOMPARE(plain.readAll(), QByteArray("kept"));
    }
}

void tst_ValuesExport::csv()
{
    const TensorInfo &matrix = tensor("matrix");
    std::string error;
    const QString path = out(u"matrix.csv"_s);
    QVERIFY2(exportCsv(path.toStdString(), m_source, matrix.dtype, m_file->tensorBytes(matrix),
                 wholeView(matrix.shape), error),
        error.c_str());
    QFile file(path);
    QVERIFY(file.open(QIODevice::ReadOnly));
    QCOMPARE(file.readAll(), QByteArray("0,1,2,3\n4,5,6,7\n8,9,10,11\n"));
    // Floats in their shortest exact text, specials by name; a column of a packed tensor.
    const TensorInfo &f16 = tensor(tensorName(DType::F16));
    QVERIFY(exportCsv(out(u"f16.csv"_s).toStdString(), m_source, f16.dtype, m_file->tensorBytes(f16),
        wholeView(f16.shape), error));
    QFile f16File(out(u"f16.csv"_s));
    QVERIFY(f16File.open(QIODevice::ReadOnly));
    QCOMPARE(f16File.readAll(), QByteArray("0,-0,inf,-inf,nan,5.960464477539063e-08,1,-2\n"));
    const TensorInfo &cube = tensor("empty");
    QVERIFY(exportCsv(out(u"empty.csv"_s).toStdString(), m_source, cube.dtype, m_file->tensorBytes(cube),
        wholeView(cube.shape), error));
    const std::vector<std::uint64_t> threeAxes { 1, 1, 1 };
    QVERIFY(
        !exportCsv(out(u"never.csv"_s).toStdString(), m_source, DType::F32, {}, wholeView(threeAxes), error));
    QVERIFY(QString::fromStdString(error).contains(u"one or two axes"_s));
    QVERIFY(!QFile::exists(out(u"never.csv"_s)));
}

QTEST_GUILESS_MAIN(tst_ValuesExport)
#include "tst_valuesexport.moc"
