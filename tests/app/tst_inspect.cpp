// safetensors-inspect as scripts meet it: the program run as a process, its lines, its JSON and
// its exit codes.
#include "core/format/writer.h"
#include "tests/support/golden.h"
#include "tests/support/inspectprocess.h"
#include "tests/support/testfiles.h"

#include <QFile>
#include <QFileInfo>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QProcess>
#include <QRegularExpression>
#include <QTemporaryDir>
#include <QTest>

#include <cmath>
#include <cstring>
#include <fstream>

using namespace Qt::StringLiterals;
using namespace stb;

namespace {

using Run = test::InspectRun;

Run inspect(const QStringList &arguments) { return test::runInspect(arguments, 60000); }

} // namespace

class tst_Inspect : public QObject {
    Q_OBJECT

private slots:
    void initTestCase()
    {
        QVERIFY(m_dir.isValid());
        m_valid = path(u"valid.safetensors"_s);
        const auto model = test::makeSampleModel(2, 16);
        std::string error;
        QVERIFY(writeFile(m_valid.toStdString(), model.specs, model.data, model.metadata, error));
        m_tensorCount = static_cast<int>(model.specs.size());
        m_invalid = path(u"hole.safetensors"_s);
        QVERIFY(test::writeBytes(m_invalid.toStdString(),
                                 test::rawFile(R"({"a":{"dtype":"F32","shape":[1],"data_offsets":[0,4]},)"
                                               R"("b":{"dtype":"F32","shape":[1],"data_offsets":[8,12]}})",
                                               12)));
    }

    void checkLines()
    {
        const Run run = inspect({u"check"_s, m_valid, m_invalid});
        QCOMPARE(run.exitCode, 1);
        const QStringList lines = run.out.split(u'\n', Qt::SkipEmptyParts);
        QCOMPARE(lines.size(), 2);
        QCOMPARE(lines[0], u"%1: valid (%2 tensors)"_s.arg(m_valid).arg(m_tensorCount));
        // The key "b" sits at byte 8 + 54 of the file.
        QCOMPARE(lines[1], u"%1: invalid: offsets (InvalidOffset) at byte 62: tensor \"b\" data_offsets [8, 12] "
                           "begins at 8 but the previous tensor ends at 4: a hole of 4 bytes"_s.arg(m_invalid));
    }

    void exitCodes_data()
    {
        QTest::addColumn<QStringList>("arguments");
        QTest::addColumn<int>("exitCode");
        QTest::newRow("all valid") << QStringList{u"check"_s, u"VALID"_s} << 0;
        QTest::newRow("one invalid") << QStringList{u"check"_s, u"VALID"_s, u"INVALID"_s} << 1;
        QTest::newRow("unreadable path") << QStringList{u"check"_s, u"VALID"_s, u"/nonexistent/x.safetensors"_s} << 2;
        QTest::newRow("a directory") << QStringList{u"check"_s, u"/tmp"_s} << 2;
        QTest::newRow("no command") << QStringList{} << 2;
        QTest::newRow("unknown command") << QStringList{u"frobnicate"_s, u"VALID"_s} << 2;
        QTest::newRow("check without file") << QStringList{u"check"_s} << 2;
        QTest::newRow("info with two files") << QStringList{u"info"_s, u"VALID"_s, u"VALID"_s} << 2;
        QTest::newRow("unknown option") << QStringList{u"check"_s, u"--frob"_s, u"VALID"_s} << 2;
        QTest::newRow("option of another command") << QStringList{u"check"_s, u"--bins"_s, u"5"_s, u"VALID"_s} << 2;
        QTest::newRow("option before the command") << QStringList{u"--json"_s, u"check"_s, u"VALID"_s} << 0;
        QTest::newRow("unknown option, no command") << QStringList{u"--frob"_s} << 2;
        // The forms QCommandLineParser took, which the CLI's own reader keeps.
        QTest::newRow("value after =") << QStringList{u"audit"_s, u"--bins=3"_s, u"VALID"_s} << 0;
        QTest::newRow("value missing at the end") << QStringList{u"audit"_s, u"VALID"_s, u"--bins"_s} << 2;
        QTest::newRow("a flag given a value") << QStringList{u"check"_s, u"--json=yes"_s, u"VALID"_s} << 2;
        QTest::newRow("option after the operand") << QStringList{u"check"_s, u"VALID"_s, u"--json"_s} << 0;
        QTest::newRow("-- ends the options") << QStringList{u"check"_s, u"--"_s, u"VALID"_s} << 0;
        QTest::newRow("after --, an option is an operand") << QStringList{u"info"_s, u"VALID"_s, u"--"_s, u"--json"_s} << 2;
        QTest::newRow("help among flags") << QStringList{u"check"_s, u"-h"_s} << 0;
        QTest::newRow("audit --bins not a number") << QStringList{u"audit"_s, u"--bins"_s, u"x"_s, u"VALID"_s} << 2;
        QTest::newRow("audit --bins not whole") << QStringList{u"audit"_s, u"--bins"_s, u"2.5"_s, u"VALID"_s} << 2;
        QTest::newRow("audit --bins 0") << QStringList{u"audit"_s, u"--bins"_s, u"0"_s, u"VALID"_s} << 2;
        QTest::newRow("audit --bins 3") << QStringList{u"audit"_s, u"--bins"_s, u"3"_s, u"VALID"_s} << 0;
        QTest::newRow("sha256 takes no --json") << QStringList{u"sha256"_s, u"--json"_s, u"VALID"_s} << 2;
        QTest::newRow("sha256") << QStringList{u"sha256"_s, u"VALID"_s} << 0;
        QTest::newRow("help") << QStringList{u"--help"_s} << 0;
        QTest::newRow("command help") << QStringList{u"audit"_s, u"--help"_s} << 0;
        QTest::newRow("version") << QStringList{u"--version"_s} << 0;
        QTest::newRow("info valid") << QStringList{u"info"_s, u"VALID"_s} << 0;
        QTest::newRow("info invalid") << QStringList{u"info"_s, u"INVALID"_s} << 1;
        // No tensor of a file the reference rejects can be trusted, even where its bytes read.
        QTest::newRow("audit valid") << QStringList { u"audit"_s, u"VALID"_s } << 0;
        QTest::newRow("audit invalid") << QStringList { u"audit"_s, u"INVALID"_s } << 1;
        QTest::newRow("audit --json invalid") << QStringList { u"audit"_s, u"--json"_s, u"INVALID"_s } << 1;
    }
    void exitCodes()
    {
        QFETCH(QStringList, arguments);
        QFETCH(int, exitCode);
        arguments.replaceInStrings(u"INVALID"_s, m_invalid);
        arguments.replaceInStrings(u"VALID"_s, m_valid);
        const Run run = inspect(arguments);
        QCOMPARE(run.exitCode, exitCode);
        if (exitCode == 2 && !arguments.isEmpty() && arguments.size() > 1 && arguments[0] == u"check"_s)
            QVERIFY(!run.err.isEmpty());
    }

    // Each command prints its own help: its usage line and exactly the options it takes.
    void commandHelp_data()
    {
        QTest::addColumn<QString>("command");
        QTest::addColumn<QString>("usage");
        QTest::addColumn<QStringList>("options");
        QTest::newRow("check") << u"check"_s << u"check [--json] FILE..."_s << QStringList{u"--json"_s};
        QTest::newRow("info") << u"info"_s << u"info [--json] FILE"_s << QStringList{u"--json"_s};
        QTest::newRow("audit") << u"audit"_s << u"audit [--json] [--bins N] [--raw] FILE"_s
                               << QStringList{u"--json"_s, u"--bins"_s};
        QTest::newRow("diff") << u"diff"_s << u"diff [--json] [--atol X] [--rtol Y] [--by-layer] [--raw] A B"_s
                              << QStringList{u"--json"_s, u"--atol"_s, u"--rtol"_s, u"--by-layer"_s, u"--raw"_s};
        QTest::newRow("sha256") << u"sha256"_s << u"sha256 FILE..."_s << QStringList{};
    }
    void commandHelp()
    {
        QFETCH(QString, command);
        QFETCH(QString, usage);
        QFETCH(QStringList, options);
        for (const QStringList &arguments : {QStringList{command, u"--help"_s}, QStringList{u"-h"_s, command}}) {
            const Run run = inspect(arguments);
            QCOMPARE(run.exitCode, 0);
            QVERIFY(run.err.isEmpty());
            QVERIFY2(run.out.startsWith(u"Usage: safetensors-inspect "_s + usage + u'\n'), qPrintable(run.out));
            for (const QString &option : {u"--json"_s, u"--bins"_s, u"--atol"_s, u"--rtol"_s})
                QCOMPARE(run.out.contains(u"\n  "_s + option), options.contains(option));
        }
    }

    // An option the command does not take is a usage error that names the options it does take.
    void unknownOptionPerCommand_data()
    {
        QTest::addColumn<QStringList>("arguments");
        QTest::addColumn<QString>("valid");
        QTest::newRow("check --bins") << QStringList{u"check"_s, u"--bins"_s, u"5"_s, u"F"_s}
                                      << u"check takes --json, -h/--help"_s;
        QTest::newRow("info --atol") << QStringList{u"info"_s, u"--atol"_s, u"1"_s, u"F"_s}
                                     << u"info takes --json, -h/--help"_s;
        QTest::newRow("audit --rtol") << QStringList{u"audit"_s, u"--rtol"_s, u"1"_s, u"F"_s}
                                      << u"audit takes --json, --bins, --raw, -h/--help"_s;
        QTest::newRow("diff --bins") << QStringList{u"diff"_s, u"--bins"_s, u"5"_s, u"F"_s, u"F"_s}
                                     << u"diff takes --json, --atol, --rtol, --by-layer, --raw, -h/--help"_s;
        QTest::newRow("sha256 --json") << QStringList{u"sha256"_s, u"--json"_s, u"F"_s} << u"sha256 takes -h/--help"_s;
    }
    void unknownOptionPerCommand()
    {
        QFETCH(QStringList, arguments);
        QFETCH(QString, valid);
        arguments.replaceInStrings(u"F"_s, m_valid);
        const Run run = inspect(arguments);
        QCOMPARE(run.exitCode, 2);
        QVERIFY(run.out.isEmpty());
        QVERIFY2(run.err.startsWith(u"safetensors-inspect "_s + arguments[0] + u": "_s), qPrintable(run.err));
        QVERIFY2(run.err.contains(valid), qPrintable(run.err));
    }

    // The overview lists every command of the table, each summary in one column two spaces or
    // more after the longest "command OPERANDS" (once "locate FILE NAME" ran into its text).
    void overviewHelp()
    {
        const Run run = inspect({u"--help"_s});
        QCOMPARE(run.exitCode, 0);
        const QStringList commands { u"check"_s, u"info"_s, u"audit"_s, u"diff"_s, u"sha256"_s, u"locate"_s,
            u"heatmap"_s, u"export"_s, u"layers"_s };
        for (const auto &command : commands)
            QVERIFY2(run.out.contains(u"\n  "_s + command + u' '), qPrintable(command));
        const qsizetype column = run.out.indexOf(u"is each file valid"_s)
            - run.out.lastIndexOf(u'\n', run.out.indexOf(u"is each file valid"_s)) - 1;
        const QStringList lines = run.out.split(u'\n');
        const qsizetype first = lines.indexOf(u"Commands:"_s) + 1;
        QVERIFY(first > 0);
        for (qsizetype i = first; i < lines.size() && !lines[i].isEmpty(); ++i) {
            const QString &line = lines[i];
            QVERIFY2(line.size() > column && line[column] != u' ' && line.sliced(column - 2, 2) == u"  "_s,
                qPrintable(line));
        }
    }

    // A command's options in the same way: every help text in one column after the option.
    void commandHelpColumns_data()
    {
        QTest::addColumn<QString>("command");
        for (const char *command :
            { "check", "info", "audit", "diff", "sha256", "locate", "heatmap", "export", "layers" })
            QTest::newRow(command) << QString::fromLatin1(command);
    }
    void commandHelpColumns()
    {
        QFETCH(QString, command);
        const Run run = inspect({ command, u"--help"_s });
        QCOMPARE(run.exitCode, 0);
        const QStringList lines = run.out.split(u'\n');
        const qsizetype first = lines.indexOf(u"Options:"_s) + 1;
        QVERIFY(first > 0);
        const QString helpLine = lines.last().isEmpty() ? lines[lines.size() - 2] : lines.last();
        QVERIFY2(helpLine.startsWith(u"  -h, --help  "_s), qPrintable(helpLine));
        const qsizetype column = helpLine.indexOf(u"Print this help."_s);
        for (qsizetype i = first; i < lines.size() && !lines[i].isEmpty(); ++i) {
            const QString &line = lines[i];
            QVERIFY2(line.size() > column && line[column] != u' ' && line.sliced(column - 2, 2) == u"  "_s,
                qPrintable(line));
        }
    }

    void checkJson()
    {
        const Run run = inspect({u"check"_s, u"--json"_s, m_valid, m_invalid, u"/nonexistent"_s});
        QCOMPARE(run.exitCode, 2);
        const QStringList lines = run.out.split(u'\n', Qt::SkipEmptyParts);
        QCOMPARE(lines.size(), 3);
        QJsonObject objects[3];
        for (int i = 0; i < 3; ++i) {
            QJsonParseError error;
            objects[i] = QJsonDocument::fromJson(lines[i].toUtf8(), &error).object();
            QCOMPARE(error.error, QJsonParseError::NoError);
            QCOMPARE(objects[i].keys(),
                     (QStringList{u"diagnostic_count"_s, u"error"_s, u"file"_s, u"valid"_s, u"warnings"_s}));
        }
        QCOMPARE(objects[0][u"valid"_s].toBool(), true);
        QCOMPARE(objects[0][u"diagnostic_count"_s].toInt(), 0);
        QCOMPARE(objects[1][u"diagnostic_count"_s].toInt(), 1);
        QVERIFY(objects[0][u"error"_s].isNull());
        QCOMPARE(objects[1][u"valid"_s].toBool(), false);
        const QJsonObject error = objects[1][u"error"_s].toObject();
        QCOMPARE(error[u"rule"_s].toString(), u"offsets"_s);
        QCOMPARE(error[u"reference"_s].toString(), u"InvalidOffset"_s);
        QCOMPARE(error[u"offset"_s].toInteger(), 62);
        QCOMPARE(error[u"tensor"_s].toString(), u"b"_s);
        QVERIFY(!error[u"message"_s].toString().isEmpty());
        QCOMPARE(objects[2][u"error"_s].toObject()[u"rule"_s].toString(), u"unreadable"_s);
    }

    // More problems than a file keeps (10,000): text says how many more, JSON carries the total.
    void problemsBeyondTheCap()
    {
        constexpr int kCount = 10005;
        std::string json = "{";
        for (int i = 0; i < kCount; ++i) // F32 [1] in 8 bytes: a "size" error each
            json += std::string(i ? "," : "") + "\"t" + std::to_string(i)
                + "\":{\"dtype\":\"F32\",\"shape\":[1],\"data_offsets\":[" + std::to_string(8 * i) + ","
                + std::to_string(8 * i + 8) + "]}";
        json += "}";
        json.resize((json.size() + 7) / 8 * 8, ' '); // data aligned: no "misaligned" warnings
        const QString file = path(u"many.safetensors"_s);
        QVERIFY(test::writeBytes(file.toStdString(), test::rawFile(json, 8 * kCount)));

        Run run = inspect({u"info"_s, file});
        QCOMPARE(run.exitCode, 1);
        QCOMPARE(run.out.count(u"\n  error: size (TensorInvalidInfo)"_s), 9999); // all stored but the verdict
        QVERIFY2(run.out.contains(u"\n  and 5 more (only the first 10,000 of a file are kept)\n"_s),
                 qPrintable(run.out.left(2000)));

        run = inspect({u"check"_s, u"--json"_s, file});
        QCOMPARE(run.exitCode, 1);
        QCOMPARE(QJsonDocument::fromJson(run.out.toUtf8()).object()[u"diagnostic_count"_s].toInt(), kCount);
    }

    void infoJson()
    {
        const Run run = inspect({u"info"_s, u"--json"_s, m_valid});
        QCOMPARE(run.exitCode, 0);
        const QJsonObject info = QJsonDocument::fromJson(run.out.toUtf8()).object();
        for (const auto &key : {u"file"_s, u"valid"_s, u"error"_s, u"warnings"_s, u"file_size"_s, u"header_length"_s,
                                u"data_start"_s, u"tensor_count"_s, u"parameter_count"_s, u"parameters_by_dtype"_s,
                                u"metadata"_s, u"tensors"_s})
            QVERIFY2(info.contains(key), qPrintable(key));
        QCOMPARE(info[u"file_size"_s].toInteger(), QFileInfo(m_valid).size());
        QCOMPARE(info[u"data_start"_s].toInteger(), info[u"header_length"_s].toInteger() + 8);
        QCOMPARE(info[u"tensor_count"_s].toInt(), m_tensorCount);
        QCOMPARE(info[u"metadata"_s].toObject()[u"format"_s].toString(), u"pt"_s);
        const QJsonArray tensors = info[u"tensors"_s].toArray();
        QCOMPARE(tensors.size(), m_tensorCount);
        qint64 parameters = 0, byDtype = 0;
        for (const auto &value : tensors) {
            const QJsonObject t = value.toObject();
            qint64 product = 1;
            for (const auto &d : t[u"shape"_s].toArray())
                product *= d.toInteger();
            QCOMPARE(t[u"parameters"_s].toInteger(), product);
            QCOMPARE(t[u"file_offset"_s].toInteger(),
                     info[u"data_start"_s].toInteger() + t[u"data_offsets"_s].toArray()[0].toInteger());
            QVERIFY(!t.contains(u"shard"_s));
            parameters += product;
        }
        for (const auto &count : info[u"parameters_by_dtype"_s].toObject())
            byDtype += count.toInteger();
        QCOMPARE(info[u"parameter_count"_s].toInteger(), parameters);
        QCOMPARE(byDtype, parameters);
    }

    void infoText()
    {
        const Run run = inspect({u"info"_s, m_valid});
        QCOMPARE(run.exitCode, 0);
        QVERIFY(run.out.contains(u"Validity:     valid"_s));
        QVERIFY(run.out.contains(QRegularExpression(u"\\nmodel\\.layers\\.1\\.mlp\\.up_proj\\.weight +BF16 +\\[64, 16\\] +1,024 +2,048 +\\d+\\n"_s)));
        QVERIFY(run.out.contains(u"NAME"_s));
        // The whole text, exactly: the file's path becomes <file>.
        QString text = run.out;
        text.replace(m_valid, u"<file>"_s);
        QString why;
        QVERIFY2(test::matchesGolden(u"info.txt"_s, text, why), qPrintable(why));
    }

    void shardedIndex()
    {
        std::string error;
        const std::vector<TensorSpec> first = {{"a", DType::F32, {2}}};
        const std::vector<TensorSpec> second = {{"b", DType::F32, {2}}};
        const std::vector<std::vector<std::byte>> data = {std::vector<std::byte>(8)};
        QVERIFY(writeFile(path(u"s1.safetensors"_s).toStdString(), first, data, {}, error));
        QVERIFY(writeFile(path(u"s2.safetensors"_s).toStdString(), second, data, {}, error));
        const QString index = path(u"model.safetensors.index.json"_s);
        std::ofstream(index.toStdString()) << R"({"metadata":{"total_size":16},"weight_map":{"a":"s1.safetensors","b":"s2.safetensors"}})";
        Run run = inspect({u"check"_s, index});
        QCOMPARE(run.exitCode, 0);
        QVERIFY(run.out.contains(u"%1: valid (2 tensors in 2 shards)"_s.arg(index)));
        QVERIFY(run.out.contains(u"s2.safetensors: valid (1 tensor)"_s));

        run = inspect({u"info"_s, u"--json"_s, index});
        QCOMPARE(run.exitCode, 0);
        const QJsonObject info = QJsonDocument::fromJson(run.out.toUtf8()).object();
        QCOMPARE(info[u"tensors"_s].toArray()[1].toObject()[u"shard"_s].toString(), u"s2.safetensors"_s);

        std::ofstream(index.toStdString()) << R"({"metadata":{"total_size":20},"weight_map":{"a":"s1.safetensors","b":"../s2.safetensors"}})";
        run = inspect({u"check"_s, index});
        QCOMPARE(run.exitCode, 1);
        QVERIFY(run.out.contains(u"index-shard-name"_s));
        QVERIFY(run.out.contains(u"index-unlisted-tensor"_s) == false);
    }

    void diff()
    {
        // b: one value of one tensor changed by 0.001 (0.000999928 in F32); c: byte-identical copy of the valid file.
        std::string error;
        const std::vector<TensorSpec> specs = {{"w", DType::F32, {2}}, {"same", DType::F32, {1}}};
        auto bytes = [](std::initializer_list<float> v) {
            std::vector<std::byte> out(v.size() * 4);
            std::memcpy(out.data(), std::data(v), out.size());
            return out;
        };
        QVERIFY(writeFile(path(u"da.safetensors"_s).toStdString(), specs,
                          std::vector<std::vector<std::byte>>{bytes({1.0f, 2.0f}), bytes({5.0f})}, {}, error));
        QVERIFY(writeFile(path(u"db.safetensors"_s).toStdString(), specs,
                          std::vector<std::vector<std::byte>>{bytes({1.0f, 2.001f}), bytes({5.0f})}, {}, error));
        const QString a = path(u"da.safetensors"_s), b = path(u"db.safetensors"_s);

        QCOMPARE(inspect({u"diff"_s, a, a}).exitCode, 0);
        Run run = inspect({u"diff"_s, a, b});
        QCOMPARE(run.exitCode, 1);
        QVERIFY(run.out.contains(QRegularExpression(u"\\nw +changed +F32 \\[2\\] +F32 \\[2\\] +0\\.00099\\d+ +1 "_s)));
        QVERIFY(run.out.contains(u"1 changed · 1 identical: different"_s));
        QCOMPARE(inspect({u"diff"_s, u"--atol"_s, u"0.01"_s, a, b}).exitCode, 0);
        QCOMPARE(inspect({u"diff"_s, u"--rtol"_s, u"0.0001"_s, a, b}).exitCode, 1);
        QCOMPARE(inspect({u"diff"_s, u"--atol"_s, u"-1"_s, a, b}).exitCode, 2);
        QCOMPARE(inspect({u"diff"_s, a}).exitCode, 2);
        QCOMPARE(inspect({u"diff"_s, a, u"/nonexistent"_s}).exitCode, 2);

        run = inspect({u"diff"_s, u"--json"_s, a, b});
        const QJsonObject j = QJsonDocument::fromJson(run.out.toUtf8()).object();
        QCOMPARE(j[u"summary"_s].toObject()[u"changed"_s].toInt(), 1);
        QCOMPARE(j[u"summary"_s].toObject()[u"identical"_s].toInt(), 1);
        const QJsonArray tensors = j[u"tensors"_s].toArray();
        QCOMPARE(tensors.size(), 2); // identical ones are listed too
        const QJsonObject w = tensors[1].toObject();
        QCOMPARE(w[u"name"_s].toString(), u"w"_s);
        QCOMPARE(w[u"status"_s].toString(), u"changed"_s);
        QCOMPARE(w[u"argmax"_s].toInt(), 1);
        QCOMPARE(w[u"n_different"_s].toInt(), 1);
        QVERIFY(std::fabs(w[u"max_abs_diff"_s].toDouble() - 0.001) < 1e-6);
    }

    // A tensor that cannot be read on a side is "unreadable" (never identical): a line names it,
    // the side and why, the summary counts it apart, and diff exits 1.
    void diffUnreadable_data()
    {
        QTest::addColumn<QString>(
            "a"); // "file", "truncated", or an index: "index" / "index-truncated" / "index-missing"
        QTest::addColumn<QString>("b");
        QTest::addColumn<QString>("line");
        const QString past
            = u"w: unreadable in B: bytes 132\u2013140 lie past the end of the file (file is 132 bytes)"_s;
        QTest::newRow("B truncated") << u"file"_s << u"truncated"_s << past;
        QTest::newRow("both truncated") << u"truncated"_s << u"truncated"_s
                                        << u"w: unreadable in A: bytes 132\u2013140 lie past the end of the "
                                           u"file (file is 132 bytes); in B: bytes "
                                           "132\u2013140 lie past the end of the file (file is 132 bytes)"_s;
        QTest::newRow("a shard truncated")
            << u"index"_s << u"index-truncated"_s
            << u"w: unreadable in B: bytes 72\u201380 lie past the end of shard \"w-cut.safetensors\" (72 bytes)"_s;
        QTest::newRow("a shard missing")
            << u"index"_s << u"index-missing"_s
            << u"w: unreadable in B: shard \"gone.safetensors\" cannot be read: No such file or directory"_s;
    }
    void diffUnreadable()
    {
        QFETCH(QString, a);
        QFETCH(QString, b);
        QFETCH(QString, line);
        std::string error;
        const std::vector<TensorSpec> specs = { { "a", DType::F32, { 1 } }, { "w", DType::F32, { 4 } } };
        const std::vector<std::vector<std::byte>> data
            = { std::vector<std::byte>(4), std::vector<std::byte>(16) };
        QVERIFY(writeFile(path(u"u.safetensors"_s).toStdString(), specs, data, {}, error));
        QVERIFY(QFile::copy(path(u"u.safetensors"_s), path(u"u-cut.safetensors"_s))
            || QFile::exists(path(u"u-cut.safetensors"_s)));
        QVERIFY(QFile::resize(path(u"u-cut.safetensors"_s), QFileInfo(path(u"u.safetensors"_s)).size() - 8));
        // Shards: "a" alone, "w" alone (whole and cut short), and indexes over them.
        using Specs = std::vector<TensorSpec>;
        using Data = std::vector<std::vector<std::byte>>;
        QVERIFY(writeFile(
            path(u"a.safetensors"_s).toStdString(), Specs { specs[0] }, Data { data[0] }, {}, error));
        QVERIFY(writeFile(
            path(u"w.safetensors"_s).toStdString(), Specs { specs[1] }, Data { data[1] }, {}, error));
        QVERIFY(writeFile(
            path(u"w-cut.safetensors"_s).toStdString(), Specs { specs[1] }, Data { data[1] }, {}, error));
        QVERIFY(QFile::resize(path(u"w-cut.safetensors"_s), QFileInfo(path(u"w.safetensors"_s)).size() - 8));
        auto index = [&](const QString &name, const char *wShard) {
            std::ofstream(path(name).toStdString())
                << "{\"weight_map\":{\"a\":\"a.safetensors\",\"w\":\"" << wShard << "\"}}";
            return path(name);
        };
        auto side = [&](const QString &kind) {
            if (kind == u"file"_s)
                return path(u"u.safetensors"_s);
            if (kind == u"truncated"_s)
                return path(u"u-cut.safetensors"_s);
            if (kind == u"index"_s)
                return index(u"whole.safetensors.index.json"_s, "w.safetensors");
            if (kind == u"index-truncated"_s)
                return index(u"cut.safetensors.index.json"_s, "w-cut.safetensors");
            return index(u"missing.safetensors.index.json"_s, "gone.safetensors");
        };
        const QString pathA = side(a), pathB = side(b);

        Run run = inspect({ u"diff"_s, pathA, pathB });
        QCOMPARE(run.exitCode, 1);
        QVERIFY2(run.out.contains(QRegularExpression(u"\nw +unreadable "_s)), qPrintable(run.out));
        QVERIFY2(run.out.contains(u'\n' + line + u'\n'), qPrintable(run.out));
        QVERIFY2(run.out.contains(u"1 unreadable \u00b7 1 identical: not known to be equivalent"_s),
            qPrintable(run.out));

        run = inspect({ u"diff"_s, u"--json"_s, pathA, pathB });
        QCOMPARE(run.exitCode, 1);
        const QJsonObject j = QJsonDocument::fromJson(run.out.toUtf8()).object();
        QCOMPARE(j[u"summary"_s].toObject()[u"unreadable"_s].toInt(), 1);
        QCOMPARE(j[u"summary"_s].toObject()[u"identical"_s].toInt(), 1);
        QCOMPARE(j[u"equivalent"_s].toBool(), false);
        const QJsonObject w = j[u"tensors"_s].toArray()[1].toObject();
        QCOMPARE(w[u"name"_s].toString(), u"w"_s);
        QCOMPARE(w[u"status"_s].toString(), u"unreadable"_s);
        QCOMPARE(w[u"readable"_s].toBool(true), false);
        const QString whyB = w[u"unreadable"_s].toObject()[u"b"_s].toString();
        QVERIFY2(!whyB.isEmpty() && line.contains(whyB), qPrintable(whyB));
        QCOMPARE(w[u"unreadable"_s].toObject()[u"a"_s].isNull(), !line.contains(u"in A: "_s));
    }

    // audit never ends in "No findings" when tensors cannot be read or the file is invalid: the
    // check's verdict starts the summary, listed tensors no shard holds are rows of their own,
    // JSON says "valid", and the exit status is 1.
    void auditUnreadableOrInvalid_data()
    {
        QTest::addColumn<QString>("kind");
        QTest::addColumn<QString>("summary"); // in the text summary line
        QTest::addColumn<QString>("row"); // a line of the table, or empty
        QTest::addColumn<int>("rows"); // JSON tensors
        QTest::newRow("a shard missing")
            << u"missing"_s
            << u": invalid: index-missing-shard at byte 44: shard \"gone.safetensors\" cannot be read: No "
               u"such "
               "file or directory (2 problems in all); 1 unreadable (\"w\": shard \"gone.safetensors\" "
               "cannot be "
               "read: No such file or directory) (2 tensors, 1 value, 4 B)\n"_s
            << u"w     -      -        -    -     -    -    -    -      -  unreadable bytes: shard "
               "\"gone.safetensors\" cannot be read: No such file or directory"_s
            << 2;
        QTest::newRow("header length past the end")
            << u"header"_s
            << u": invalid: header-length (InvalidHeaderLength) at byte 0: the header length says the header "
               u"ends "
               "at byte 1,008 but the file has only 20 bytes; no other findings in 0 tensors (0 values, 0 B)\n"_s
            << QString() << 0;
        QTest::newRow("truncated") << u"truncated"_s
                                   << u": invalid: coverage (MetadataIncompleteBuffer) at byte"_s << QString()
                                   << 1;
        QTest::newRow("valid") << u"valid"_s << u": No findings in 1 tensor (1 value, 4 B)\n"_s << QString()
                               << 1;
    }
    void auditUnreadableOrInvalid()
    {
        QFETCH(QString, kind);
        QFETCH(QString, summary);
        QFETCH(QString, row);
        QFETCH(int, rows);
        std::string error;
        using Specs = std::vector<TensorSpec>;
        using Data = std::vector<std::vector<std::byte>>;
        const std::vector<std::byte> three { std::byte { 0 }, std::byte { 0 }, std::byte { 0x40 },
            std::byte { 0x40 } };
        QString file = path(u"audit-%1.safetensors"_s.arg(kind));
        if (kind == u"missing"_s) {
            QVERIFY(writeFile(path(u"audit-a.safetensors"_s).toStdString(),
                Specs { { "a", DType::F32, { 1 } } }, Data { three }, {}, error));
            file = path(u"audit.safetensors.index.json"_s);
            std::ofstream(file.toStdString())
                << "{\"weight_map\": {\"a\": \"audit-a.safetensors\", \"w\": \"gone.safetensors\"}}";
        } else if (kind == u"header"_s) {
            QVERIFY(test::writeBytes(file.toStdString(), test::rawFile("{}          ", 0, 0, 1000)));
        } else {
            QVERIFY(writeFile(
                file.toStdString(), Specs { { "w", DType::F32, { 1 } } }, Data { three }, {}, error));
            if (kind == u"truncated"_s)
                QVERIFY(QFile::resize(file, QFileInfo(file).size() - 2));
        }
        const bool fine = kind == u"valid"_s;

        const Run text = inspect({ u"audit"_s, file });
        const Run &run = text;
        QCOMPARE(run.exitCode, fine ? 0 : 1);
        QVERIFY2(run.out.contains(u'\n' + file + summary), qPrintable(run.out));
        QVERIFY2(!run.out.contains(u"No findings"_s) || fine, qPrintable(run.out));
        if (!row.isEmpty())
            QVERIFY2(run.out.contains(u'\n' + row + u'\n'), qPrintable(run.out));

        const Run json = inspect({ u"audit"_s, u"--json"_s, file });
        QCOMPARE(json.exitCode, fine ? 0 : 1);
        const QJsonObject j = QJsonDocument::fromJson(json.out.toUtf8()).object();
        QCOMPARE(j[u"valid"_s].toBool(!fine), fine);
        QCOMPARE(j[u"error"_s].isNull(), fine);
        QCOMPARE(j[u"summary"_s].toObject()[u"valid"_s].toBool(!fine), fine);
        QCOMPARE(j[u"tensors"_s].toArray().size(), rows);
        QVERIFY(text.out.contains(j[u"summary"_s].toObject()[u"text"_s].toString()));
    }

private:
    QString path(const QString &name) const { return m_dir.path() + u'/' + name; }

    QTemporaryDir m_dir;
    QString m_valid;
    QString m_invalid;
    int m_tensorCount = 0;
};

QTEST_GUILESS_MAIN(tst_Inspect)
#include "tst_inspect.moc"
