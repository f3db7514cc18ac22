// safetensors-inspect against hostile files and names (issue 15): run as a process, raw bytes
// checked, so nothing a file or a path holds reaches a terminal unescaped, and valid models
// that look odd (many shards, odd names, paths that are not UTF-8, links) stay valid.
#include "core/format/utf8.h"
#include "core/format/writer.h"
#include "tests/support/inspectprocess.h"
#include "tests/support/testfiles.h"

#include <QDir>
#include <QFile>
#include <QFileInfo>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QProcess>
#include <QStandardPaths>
#include <QTemporaryDir>
#include <QTest>

#include <algorithm>
#include <fcntl.h>
#include <fstream>
#include <sys/mman.h>
#include <unistd.h>

using namespace Qt::StringLiterals;
using namespace stb;

namespace {

// No byte a terminal would act on: valid UTF-8 with no C0 (but newline), DEL, C1 or bidi control.
bool terminalSafe(const QByteArray &bytes)
{
    const std::string_view text(bytes.constData(), static_cast<std::size_t>(bytes.size()));
    if (findInvalidUtf8(text) != std::string_view::npos)
        return false;
    const QString decoded = QString::fromUtf8(bytes);
    for (const QChar c : decoded) {
        const char16_t u = c.unicode();
        if ((u < 0x20 && u != u'\n') || (u >= 0x7F && u <= 0x9F) || (u >= 0x202A && u <= 0x202E)
            || (u >= 0x2066 && u <= 0x2069))
            return false;
    }
    return true;
}

using Data = std::vector<std::vector<std::byte>>;

std::vector<std::byte> f32(std::size_t count)
{
    return std::vector<std::byte>(count * 4);
}

} // namespace

class tst_Hostile : public QObject {
    Q_OBJECT

private slots:
    void initTestCase() { QVERIFY(m_dir.isValid()); }
    // QDir cannot remove names that are not UTF-8: unlink what the tests made, byte for byte.
    void cleanupTestCase()
    {
        for (const auto &name : std::as_const(m_made))
            ::unlink(name.constData());
    }

    // Item 7: shard names from weight_map are escaped by check and info.
    void shardNamesEscaped()
    {
        const std::string shard = "\x1b]0;TITLE\a\x1b[31mred.safetensors";
        std::string error;
        const std::vector<TensorSpec> specs = { { "a", DType::F32, { 2 } } };
        QVERIFY(writeFile(raw(shard), specs, Data { f32(2) }, {}, error));
        const QByteArray index = path("titled.safetensors.index.json");
        std::ofstream(index.toStdString())
            << R"({"metadata":{"total_size":8},"weight_map":{"a":)" << jsonQuote(shard) << "}}";
        for (const char *command : { "check", "info" }) {
            const auto run = test::runInspectRaw({ command, index });
            QCOMPARE(run.exitCode, 0);
            QVERIFY2(terminalSafe(run.out), run.out.constData());
            QVERIFY(run.out.contains("\\x1b]0;TITLE\\x07\\x1b[31mred.safetensors"));
        }
        const auto json = test::runInspectRaw({ "info", "--json", index });
        QVERIFY(terminalSafe(json.out));
        QCOMPARE(QJsonDocument::fromJson(json.out)
                     .object()[u"tensors"_s]
                     .toArray()[0]
                     .toObject()[u"shard"_s]
                     .toString(),
            QString::fromStdString(shard));
    }

    // Item 8: the JSON error quotes the offending byte escaped, and the line stays UTF-8.
    void jsonErrorByte_data()
    {
        QTest::addColumn<QByteArray>("header");
        QTest::addColumn<QByteArray>("quoted");
        QTest::newRow("ESC") << QByteArray("{\"a\" \x1b}") << QByteArray("found '\\x1b'");
        QTest::newRow("C1 CSI") << QByteArray("{\"a\" \xc2\x9b}") << QByteArray("found '\\xc2\\x9b'");
        QTest::newRow("RLO") << QByteArray("{\"a\" \xe2\x80\xae}") << QByteArray("found '\\xe2\\x80\\xae'");
        QTest::newRow("printable") << QByteArray("{\"a\" x}") << QByteArray("found 'x'");
    }
    void jsonErrorByte()
    {
        QFETCH(QByteArray, header);
        QFETCH(QByteArray, quoted);
        const QByteArray file = path("bad-byte.safetensors");
        QVERIFY(test::writeBytes(file.toStdString(), test::rawFile(header.toStdString())));
        for (const QList<QByteArray> &args :
            { QList<QByteArray> { "check", file }, { "check", "--json", file } }) {
            const auto run = test::runInspectRaw(args);
            QCOMPARE(run.exitCode, 1);
            QVERIFY2(terminalSafe(run.out), run.out.constData());
            QVERIFY2(run.out.contains(quoted) || run.out.contains(QByteArray(quoted).replace("\\", "\\\\")),
                run.out.constData());
        }
    }

    // Item 9: C1 and bidi controls in tensor names and metadata, through every command.
    void namesAndMetadataEscaped()
    {
        const std::string name = "w\xc2\x9b"
                                 "31m\xe2\x80\xae"
                                 "evil\xe2\x81\xa6\x1b[2J";
        const Metadata metadata = { { "k\xc2\x9b", "v\xe2\x80\xae\x07\x7f" } };
        std::string error;
        const std::vector<TensorSpec> specs = { { name, DType::F32, { 2 } }, { "b", DType::F32, { 1 } } };
        const QByteArray a = path("names-a.safetensors"), b = path("names-b.safetensors");
        QVERIFY(writeFile(a.toStdString(), specs, Data { f32(2), f32(1) }, metadata, error));
        auto other = f32(2);
        other[0] = std::byte { 1 };
        QVERIFY(writeFile(
            b.toStdString(), specs, Data { other, f32(1) }, { { "k\xc2\x9b", "other\xe2\x80\xad" } }, error));
        const QList<QList<QByteArray>> runs
            = { { "info", a }, { "info", "--json", a }, { "audit", a }, { "audit", "--json", a },
                  { "diff", a, b }, { "diff", "--json", a, b }, { "check", "--json", a } };
        for (const auto &args : runs) {
            const auto run = test::runInspectRaw(args);
            QVERIFY2(run.exitCode == 0 || run.exitCode == 1, args.join(' ').constData());
            QVERIFY2(terminalSafe(run.out), (args.join(' ') + ": " + run.out).constData());
            QVERIFY2(terminalSafe(run.err), (args.join(' ') + ": " + run.err).constData());
            if (args.contains("--json"))
                QVERIFY2(!QJsonDocument::fromJson(run.out.split('\n').first()).isNull(),
                    args.join(' ').constData());
            else
                QVERIFY2(run.out.contains("w\\xc2\\x9b31m\\xe2\\x80\\xaeevil") || args[0] == "check",
                    (args.join(' ') + ": " + run.out).constData());
        }
        // JSON keeps the name itself (escaped as \u sequences, decoded by any parser).
        const auto json = test::runInspectRaw({ "info", "--json", a });
        QVERIFY(json.out.contains("w\\u009b31m\\u202eevil\\u2066\\u001b[2J"));
        QStringList names;
        for (const auto &t : QJsonDocument::fromJson(json.out).object()[u"tensors"_s].toArray())
            names << t.toObject()[u"name"_s].toString();
        QVERIFY(names.contains(QString::fromStdString(name)));
    }

    // A megabyte name or metadata value shows its first 4,096 bytes and its length in text
    // output, and the table's other lines keep their width (JSON keeps whole strings).
    void longTextBounded()
    {
        const std::string name(1'000'000, 'n'), key(100'000, 'k'), value(2'000'000, 'v');
        std::string error;
        const std::vector<TensorSpec> specs = { { name, DType::F32, { 2 } }, { "b", DType::F32, { 1 } } };
        const QByteArray a = path("long-a.safetensors"), b = path("long-b.safetensors");
        QVERIFY(writeFile(a.toStdString(), specs, Data { f32(2), f32(1) }, { { key, value } }, error));
        auto other = f32(1);
        other[0] = std::byte { 1 };
        QVERIFY(writeFile(b.toStdString(), specs, Data { f32(2), other }, { { key, "x" } }, error));
        const QList<QList<QByteArray>> runs = { { "info", a }, { "audit", a }, { "diff", a, b } };
        for (const auto &args : runs) {
            const auto run = test::runInspectRaw(args);
            QVERIFY2(run.exitCode == 0 || run.exitCode == 1, args.join(' ').constData());
            // diff lists changed tensors only: the long name is identical, the metadata value changed.
            QVERIFY2(run.out.contains(args[0] == "diff" ? "(2,000,000 bytes)" : "(1,000,000 bytes)"),
                args.join(' ').constData());
            for (const QByteArray &line : run.out.split('\n')) {
                QVERIFY2(line.size() < 2 * 4096 + 200,
                    (args.join(' ') + ": a line of " + QByteArray::number(line.size())).constData());
                if (line.startsWith("b "))
                    QVERIFY2(line.size() < 400, (args.join(' ') + ": " + line).constData());
            }
        }
        const auto json = test::runInspectRaw({ "info", "--json", a });
        QStringList names;
        for (const auto &t : QJsonDocument::fromJson(json.out).object()[u"tensors"_s].toArray())
            names << t.toObject()[u"name"_s].toString();
        QVERIFY(names.contains(QString::fromStdString(name)));
    }

    // Item 10: paths from the command line are escaped by check, info, audit and sha256 (the
    // audit's progress line is drawn only on a terminal: run under script(1)'s pseudo-terminal).
    void pathsEscaped()
    {
        const QByteArray file = path("\x1b[31mred\xc2\x9b.safetensors");
        std::string error;
        const std::vector<TensorSpec> specs = { { "a", DType::F32, { 2 } } };
        QVERIFY(writeFile(file.toStdString(), specs, Data { f32(2) }, {}, error));
        const QByteArray missing = path("\x1b[31mmissing.safetensors");
        for (const QList<QByteArray> &args : { QList<QByteArray> { "check", file }, { "info", file },
                 { "audit", file }, { "check", missing }, { "info", missing }, { "audit", missing },
                 { "sha256", missing }, { "diff", file, missing } }) {
            const auto run = test::runInspectRaw(args);
            QVERIFY2(terminalSafe(run.out), (args.join(' ') + ": " + run.out).constData());
            QVERIFY2(terminalSafe(run.err), (args.join(' ') + ": " + run.err).constData());
            QVERIFY2((run.out + run.err).contains("\\x1b[31m"), args.join(' ').constData());
        }
        if (QStandardPaths::findExecutable(u"script"_s).isEmpty())
            QSKIP("script(1) is not installed");
        for (const char *command : { "audit", "sha256" }) {
            QProcess script;
            QProcessEnvironment env = QProcessEnvironment::systemEnvironment();
            env.insert(u"STB_FILE"_s, QString::fromUtf8(file));
            env.insert(u"STB_INSPECT"_s, QStringLiteral(STB_INSPECT_PATH));
            script.setProcessEnvironment(env);
            script.start(u"script"_s,
                { u"-qec"_s, u"\"$STB_INSPECT\" %1 \"$STB_FILE\""_s.arg(QLatin1String(command)),
                    u"/dev/null"_s });
            QVERIFY(script.waitForFinished(60000));
            const QByteArray terminal = script.readAllStandardOutput();
            QVERIFY2(!terminal.contains("\x1b[31m"), terminal.constData());
            QVERIFY2(!terminal.contains("\xc2\x9b"), terminal.constData());
            QVERIFY2(terminal.contains("\\x1b[31mred\\xc2\\x9b"), terminal.constData());
        }
    }

    // Item 11: sha256 prints what sha256sum prints, byte for byte, and `sha256sum -c` accepts it.
    void sha256LikeSha256sum()
    {
        if (QStandardPaths::findExecutable(u"sha256sum"_s).isEmpty())
            QSKIP("sha256sum is not installed");
        QList<QByteArray> names = { "plain.safetensors", "back\\slash.safetensors", "new\nline.safetensors",
            "carriage\rreturn.safetensors", "both\\and\n.safetensors", "bad\xff\xfe.safetensors" };
        QList<QByteArray> args = { "sha256" };
        for (const auto &name : names) {
            QVERIFY(test::writeBytes(raw(name.toStdString()), test::bytesOf(name.toStdString())));
            args.append(path(name));
        }
        const auto ours = test::runInspectRaw(args);
        QCOMPARE(ours.exitCode, 0);
        const QByteArray sha256sum = QFile::encodeName(QStandardPaths::findExecutable(u"sha256sum"_s));
        QCOMPARE(ours.out, test::runRaw(sha256sum, args.mid(1)).out);

        const QByteArray list = path("sums.txt");
        QVERIFY(test::writeBytes(list.toStdString(), test::bytesOf(ours.out.toStdString())));
        const auto check = test::runRaw(sha256sum, { "-c", "--quiet", list });
        QCOMPARE(check.exitCode, 0);
        QCOMPARE(check.out + check.err, QByteArray());
    }

    // Item 4: a valid model of more shards than descriptors allowed (ulimit -n 1024, soft and
    // hard, so raising the soft limit cannot help): each shard's descriptor closes once mapped.
    void moreShardsThanDescriptors()
    {
        const QByteArray folder = path("many");
        QVERIFY(QDir().mkpath(QFile::decodeName(folder)));
        constexpr int kShards = 1100;
        std::string error;
        std::string map;
        for (int i = 0; i < kShards; ++i) {
            const std::string name = "t" + std::to_string(i);
            const std::string shard = "model-" + std::to_string(i) + ".safetensors";
            const std::vector<TensorSpec> specs = { { name, DType::F32, { 1 } } };
            QVERIFY(writeFile(folder.toStdString() + "/" + shard, specs, Data { f32(1) }, {}, error));
            map += (i ? ",\"" : "\"") + name + "\":\"" + shard + "\"";
        }
        const QByteArray index = folder + "/model.safetensors.index.json";
        std::ofstream(index.toStdString())
            << R"({"metadata":{"total_size":)" << 4 * kShards << R"(},"weight_map":{)" << map << "}}";
        const auto run = test::runInspectRaw({ "check", index }, 1024);
        QCOMPARE(run.exitCode, 0);
        QVERIFY2(run.out.contains(index + ": valid (1100 tensors in 1100 shards)"),
            run.out.right(400).constData());
        const auto audit = test::runInspectRaw({ "audit", index }, 1024);
        QCOMPARE(audit.exitCode, 0);
    }

    // Item 5: a path that is not valid UTF-8 reaches open() byte for byte.
    void pathNotUtf8()
    {
        const std::string file = raw("bad\xff\xfe.safetensors");
        std::string error;
        const std::vector<TensorSpec> specs = { { "a", DType::F32, { 2 } } };
        QVERIFY(writeFile(file, specs, Data { f32(2) }, {}, error));
        const QByteArray bytes = QByteArray::fromStdString(file);
        for (const QList<QByteArray> &args :
            { QList<QByteArray> { "check", bytes }, { "info", bytes }, { "audit", bytes },
                { "sha256", bytes }, { "diff", bytes, bytes }, { "info", "--json", bytes } }) {
            const auto run = test::runInspectRaw(args);
            QVERIFY2(run.exitCode == 0, (args.join(' ') + ": " + run.err).constData());
            // sha256 into a pipe writes the name as sha256sum does, raw (see sha256LikeSha256sum).
            QVERIFY(args[0] == "sha256" || terminalSafe(run.out));
        }
        QVERIFY(test::runInspectRaw({ "check", bytes }).out.contains("bad\\xff\\xfe.safetensors: valid"));
        // An option's value keeps its bytes too (-o); a tensor name operand is matched and shown escaped.
        const QByteArray out = QByteArray::fromStdString(raw("out\xff.npy"));
        const auto exported = test::runInspectRaw({ "export", bytes, "a", "-o", out });
        QVERIFY2(exported.exitCode == 0, exported.err.constData());
        QVERIFY2(::access(out.constData(), F_OK) == 0, exported.out.constData());
        QVERIFY(terminalSafe(exported.out));
        const std::string named = raw("named.safetensors");
        const std::vector<TensorSpec> odd = { { "w\xc2\x9b", DType::F32, { 2 } } };
        QVERIFY(writeFile(named, odd, Data { f32(2) }, {}, error));
        const auto located = test::runInspectRaw({ "locate", QByteArray::fromStdString(named), "w\xc2\x9b" });
        QVERIFY2(located.exitCode == 0, located.err.constData());
        QVERIFY2(located.out.contains("'w\\xc2\\x9b'"), located.out.constData());
        QVERIFY(terminalSafe(located.out));
    }

    // Item 12: an index of many problems lists the first 10,000 and counts the rest.
    void indexProblemsCapped()
    {
        std::string error;
        const std::vector<TensorSpec> specs = { { "t0", DType::F32, { 1 } } };
        QVERIFY(writeFile(raw("one.safetensors"), specs, Data { f32(1) }, {}, error));
        const QByteArray index = path("capped.safetensors.index.json");
        std::string map = R"("t0":"one.safetensors")";
        for (int i = 1; i <= 10'005; ++i)
            map += ",\"gone." + std::to_string(i) + "\":\"one.safetensors\"";
        std::ofstream(index.toStdString()) << R"({"weight_map":{)" << map << "}}";
        const auto run = test::runInspectRaw({ "check", index });
        QCOMPARE(run.exitCode, 1);
        QVERIFY2(run.out.contains("  and 5 more (only the first 10,000 are listed)\n"),
            run.out.right(600).constData());
        QVERIFY2(run.out.contains("(10,005 problems in all)"), run.out.right(300).constData());
        QCOMPARE(run.out.count("index-missing-tensor"), 10'001); // 10,000 listed and the verdict
        const auto json = test::runInspectRaw({ "check", "--json", index });
        QCOMPARE(QJsonDocument::fromJson(json.out).object()[u"diagnostic_count"_s].toInt(), 10'005);
    }

    // Item 6: ".." inside a name is not a path component.
    void dotDotInsideShardName()
    {
        std::string error;
        const std::vector<TensorSpec> specs = { { "a", DType::F32, { 2 } } };
        QVERIFY(writeFile(raw("model..safetensors"), specs, Data { f32(2) }, {}, error));
        const QByteArray index = path("dotdot.safetensors.index.json");
        std::ofstream(index.toStdString())
            << R"({"metadata":{"total_size":8},"weight_map":{"a":"model..safetensors"}})";
        const auto run = test::runInspectRaw({ "check", index });
        QCOMPARE(run.exitCode, 0);
        std::ofstream(index.toStdString()) << R"({"weight_map":{"a":".."}})";
        QCOMPARE(test::runInspectRaw({ "check", index }).exitCode, 1);
    }

    // Item 13: an index over 100,000,000 bytes is a finding with a rule id, not "cannot read".
    void indexTooLarge()
    {
        const QByteArray index = path("huge.safetensors.index.json");
        QFile file(QFile::decodeName(index));
        QVERIFY(file.open(QIODevice::WriteOnly));
        QVERIFY(file.resize(100'000'001)); // sparse
        file.close();
        const auto run = test::runInspectRaw({ "check", index });
        QCOMPARE(run.exitCode, 1);
        QVERIFY2(run.out.contains("index-too-large") && run.out.contains("too large"), run.out.constData());
        const auto json = test::runInspectRaw({ "check", "--json", index });
        QCOMPARE(json.exitCode, 1);
        QCOMPARE(QJsonDocument::fromJson(json.out).object()[u"error"_s].toObject()[u"rule"_s].toString(),
            u"index-too-large"_s);
    }

    // Item 16: a tensor whose bytes cannot be read makes the audit exit 1 and say why.
    void auditUnreadable()
    {
        const QByteArray file = path("short.safetensors");
        QVERIFY(test::writeBytes(file.toStdString(),
            test::rawFile(R"({"a":{"dtype":"F32","shape":[2],"data_offsets":[0,8]}})", 4)));
        const auto run = test::runInspectRaw({ "audit", file });
        QCOMPARE(run.exitCode, 1);
        QVERIFY2(run.out.contains("1 unreadable (\"a\": bytes 66\xe2\x80\x93"
                                  "70 lie past the end of the file (file is 66 bytes))"),
            run.out.constData());
        QCOMPARE(test::runInspectRaw({ "audit", "--json", file }).exitCode, 1);
    }

    // Item 17: shards linked outside the index's folder (Hugging Face's cache) are followed,
    // and info says where they lead.
    void symlinkedShards()
    {
        const QByteArray blobs = path("hub/blobs"), snapshot = path("hub/snapshots/abc");
        QVERIFY(QDir().mkpath(QFile::decodeName(blobs)) && QDir().mkpath(QFile::decodeName(snapshot)));
        std::string error;
        const std::vector<TensorSpec> specs = { { "a", DType::F32, { 2 } } };
        QVERIFY(writeFile((blobs + "/0123abcd").toStdString(), specs, Data { f32(2) }, {}, error));
        QVERIFY(::symlink("../../blobs/0123abcd", (snapshot + "/model-1.safetensors").constData()) == 0);
        const QByteArray index = snapshot + "/model.safetensors.index.json";
        std::ofstream(index.toStdString())
            << R"({"metadata":{"total_size":8},"weight_map":{"a":"model-1.safetensors"}})";
        QCOMPARE(test::runInspectRaw({ "check", index }).exitCode, 0);
        const auto info = test::runInspectRaw({ "info", index });
        QCOMPARE(info.exitCode, 0);
        const QByteArray resolved
            = QFileInfo(QFile::decodeName(blobs + "/0123abcd")).canonicalFilePath().toUtf8();
        QVERIFY2(info.out.contains("  model-1.safetensors -> " + resolved + "\n"), info.out.constData());
        const auto json = test::runInspectRaw({ "check", "--json", index });
        QCOMPARE(QJsonDocument::fromJson(json.out)
                     .object()[u"shards"_s]
                     .toArray()[0]
                     .toObject()[u"resolved_path"_s]
                     .toString()
                     .toUtf8(),
            resolved);
    }

    // Item 14: one-pass scans give their pages back: after sha256, audit, diff, locate, heatmap or
    // export of sparse files, their pages are not left in the page cache (mincore on a fresh
    // mapping sees what is cached). diff drops an identical pair after pass 1 and a changed one
    // after pass 2.
    void scansDropPages()
    {
        constexpr qint64 kData = 64 << 20;
        const QByteArray file = path("sparse.safetensors"), changed = path("sparse-changed.safetensors");
        qint64 size = 0;
        for (const QByteArray &name : { file, changed }) {
            QVERIFY(test::writeBytes(name.toStdString(),
                test::rawFile(R"({"a":{"dtype":"U8","shape":[67108864],"data_offsets":[0,67108864]}})")));
            QFile sparse(QFile::decodeName(name));
            QVERIFY(sparse.resize(sparse.size() + kData)); // a hole: nothing cached until read
            size = sparse.size();
        }
        {
            QFile edit(QFile::decodeName(changed));
            QVERIFY(edit.open(QIODevice::ReadWrite));
            QVERIFY(edit.seek(size - 1));
            QVERIFY(edit.putChar('\x01')); // the last element differs: pass 2 reads the pair
        }
        const std::vector<std::pair<QByteArrayList, QByteArrayList>> runs {
            // arguments, files scanned
            { { "sha256", file }, { file } },
            { { "audit", file }, { file } },
            { { "diff", file, file }, { file } },
            { { "diff", file, changed }, { file, changed } },
            { { "locate", file, "a" }, { file } },
            { { "heatmap", file, "a", "--size", "64x64", "--json" }, { file } },
            { { "export", file, "a", "-o", path("a.npy") }, { file } },
        };
        for (const auto &[arguments, scanned] : runs) {
            const auto run = test::runInspectRaw(arguments);
            QVERIFY2(run.exitCode == 0 || run.exitCode == 1, run.err.constData());
            for (const QByteArray &name : scanned) {
                const long cached = cachedPages(name, size);
                QVERIFY(cached >= 0);
                QVERIFY2(cached < size / ::sysconf(_SC_PAGESIZE) / 10,
                    qPrintable(
                        u"%1: %2 pages of %3 still cached"_s.arg(QString::fromUtf8(arguments.join(' ')))
                            .arg(cached)
                            .arg(QString::fromUtf8(name))));
            }
        }
    }

    // ...and keep what was cached before they ran: a file read just before (a user's working
    // set) is still in the page cache after sha256, audit, diff, locate, heatmap or export of it.
    void scansKeepCachedPages()
    {
        constexpr qint64 kData = 32 << 20;
        const QByteArray file = path("cached.safetensors");
        QVERIFY(test::writeBytes(file.toStdString(),
            test::rawFile(R"({"a":{"dtype":"U8","shape":[33554432],"data_offsets":[0,33554432]}})")));
        QFile sparse(QFile::decodeName(file));
        QVERIFY(sparse.resize(sparse.size() + kData));
        const qint64 size = sparse.size();
        const long pages = size / ::sysconf(_SC_PAGESIZE);
        for (const QByteArrayList &arguments :
            { QByteArrayList { "sha256", file }, { "audit", file }, { "diff", file, file },
                { "locate", file, "a" }, { "heatmap", file, "a", "--size", "64x64", "--json" },
                { "export", file, "a", "-o", path("a.npy") } }) {
            QVERIFY(sparse.open(QIODevice::ReadOnly));
            QCOMPARE(sparse.readAll().size(), size); // now every page is cached
            sparse.close();
            QVERIFY(cachedPages(file, size) > pages * 9 / 10);
            const auto run = test::runInspectRaw(arguments);
            QVERIFY2(run.exitCode == 0 || run.exitCode == 1, run.err.constData());
            const long cached = cachedPages(file, size);
            QVERIFY2(cached > pages * 9 / 10,
                qPrintable(u"%1: %2 of %3 pages left cached"_s.arg(QString::fromUtf8(arguments.join(' ')))
                               .arg(cached)
                               .arg(pages)));
        }
    }

private:
    // Pages of the first `size` bytes of `name` in the page cache.
    static long cachedPages(const QByteArray &name, qint64 size)
    {
        const int fd = ::open(name.constData(), O_RDONLY);
        if (fd < 0)
            return -1;
        void *map = ::mmap(nullptr, static_cast<std::size_t>(size), PROT_READ, MAP_SHARED, fd, 0);
        ::close(fd);
        if (map == MAP_FAILED)
            return -1;
        const long page = ::sysconf(_SC_PAGESIZE);
        std::vector<unsigned char> resident(static_cast<std::size_t>((size + page - 1) / page));
        const bool ok = ::mincore(map, static_cast<std::size_t>(size), resident.data()) == 0;
        ::munmap(map, static_cast<std::size_t>(size));
        return ok ? static_cast<long>(
                   std::count_if(resident.begin(), resident.end(), [](unsigned char r) { return r & 1; }))
                  : -1;
    }

    QByteArray path(const QByteArray &name) const { return QFile::encodeName(m_dir.path()) + '/' + name; }
    std::string raw(const std::string &name)
    {
        m_made.append(path(QByteArray::fromStdString(name)));
        return m_made.last().toStdString();
    }

    QTemporaryDir m_dir;
    QList<QByteArray> m_made;
};

QTEST_GUILESS_MAIN(tst_Hostile)
#include "tst_hostile.moc"
