// Typed findings: the table of rules, the one diagnostic list with its cap, and messages whose
// length does not grow with the names in them.
#include "core/format/diagnostic.h"
#include "core/format/header.h"
#include "core/text/textformat.h"
#include "tests/support/ruletostring.h"
#include "tests/support/testfiles.h"

#include <QTest>

#include <set>
#include <string>

using namespace stb;
using namespace Qt::StringLiterals;

Q_DECLARE_METATYPE(stb::Rule)
Q_DECLARE_METATYPE(stb::Severity)

namespace {

// A header of `count` F32 [1] tensors named by `name(i)`, each with 8 bytes where 4 are needed:
// one "size" error per tensor.
template<typename Name>
Header oversizedTensors(std::size_t count, Name name)
{
    std::string json = "{";
    for (std::size_t i = 0; i < count; ++i) {
        json += (i ? ",\"" : "\"") + name(i) + "\":{\"dtype\":\"F32\",\"shape\":[1],\"data_offsets\":["
            + std::to_string(8 * i) + "," + std::to_string(8 * i + 8) + "]}";
    }
    json += "}";
    json.resize((json.size() + 7) / 8 * 8, ' '); // data aligned: no "misaligned" warnings
    return parseHeader(test::rawFile(json, 8 * count));
}

} // namespace

class tst_Diagnostic : public QObject {
    Q_OBJECT

private slots:
    // The ids and reference names are the CLI's contract (docs/rules.md, README).
    void ruleTable_data()
    {
        QTest::addColumn<Rule>("rule");
        QTest::addColumn<QString>("id");
        QTest::addColumn<QString>("reference");
        QTest::addColumn<Severity>("severity");
        const auto row = [](Rule rule, const char *id, const char *reference, Severity severity) {
            QTest::newRow(id) << rule << QString::fromLatin1(id) << QString::fromLatin1(reference) << severity;
        };
        const Severity E = Severity::Error, W = Severity::Warning;
        row(Rule::HeaderTooSmall, "header-too-small", "HeaderTooSmall", E);
        row(Rule::HeaderTooLarge, "header-too-large", "HeaderTooLarge", E);
        row(Rule::HeaderLength, "header-length", "InvalidHeaderLength", E);
        row(Rule::HeaderUtf8, "header-utf8", "InvalidHeader", E);
        row(Rule::HeaderJson, "header-json", "InvalidHeaderDeserialization", E);
        row(Rule::Offsets, "offsets", "InvalidOffset", E);
        row(Rule::Overflow, "overflow", "ValidationOverflow", E);
        row(Rule::SubByte, "sub-byte", "MisalignedSlice", E);
        row(Rule::Size, "size", "TensorInvalidInfo", E);
        row(Rule::Coverage, "coverage", "MetadataIncompleteBuffer", E);
        row(Rule::DuplicateName, "duplicate-name", "", W);
        row(Rule::DuplicateMetadataKey, "duplicate-metadata-key", "", W);
        row(Rule::LeadingWhitespace, "leading-whitespace", "", W);
        row(Rule::LargeHeader, "large-header", "", W);
        row(Rule::SharedOffset, "shared-offset", "", W);
        row(Rule::Misaligned, "misaligned", "", W);
        row(Rule::NewDtype, "new-dtype", "", W);
        row(Rule::MetadataJson, "metadata-json", "", W);
        row(Rule::IndexJson, "index-json", "", E);
        row(Rule::IndexTooLarge, "index-too-large", "", E);
        row(Rule::IndexShardName, "index-shard-name", "", E);
        row(Rule::IndexMissingShard, "index-missing-shard", "", E);
        row(Rule::IndexDuplicateTensor, "index-duplicate-tensor", "", E);
        row(Rule::IndexMissingTensor, "index-missing-tensor", "", E);
        row(Rule::IndexWrongShard, "index-wrong-shard", "", E);
        row(Rule::IndexUnlistedTensor, "index-unlisted-tensor", "", E);
        row(Rule::IndexTotalSize, "index-total-size", "", E);
    }
    void ruleTable()
    {
        QFETCH(Rule, rule);
        QFETCH(QString, id);
        QFETCH(QString, reference);
        QFETCH(Severity, severity);
        QCOMPARE(QString::fromStdString(std::string(ruleId(rule))), id);
        QCOMPARE(QString::fromStdString(std::string(referenceName(rule))), reference);
        QCOMPARE(ruleSeverity(rule), severity);
        const Diagnostic d = diagnose(rule, "m", 7, "t");
        QCOMPARE(d.isError(), severity == Severity::Error);
        QCOMPARE(d.tensor, std::string("t"));
    }
    void everyRuleHasItsOwnId()
    {
        std::set<std::string_view> ids;
        for (std::size_t i = 0; i < kRuleCount; ++i)
            ids.insert(ruleId(static_cast<Rule>(i)));
        QCOMPARE(ids.size(), kRuleCount);
    }

    void diagnosticLine_data()
    {
        QTest::addColumn<Rule>("rule");
        QTest::addColumn<QString>("line");
        QTest::newRow("reference rule") << Rule::Offsets << u"offsets (InvalidOffset) at byte 62: msg"_s;
        QTest::newRow("our own rule") << Rule::IndexTotalSize << u"index-total-size at byte 62: msg"_s;
    }
    void diagnosticLine()
    {
        QFETCH(Rule, rule);
        QFETCH(QString, line);
        QCOMPARE(QString::fromStdString(stb::diagnosticLine(diagnose(rule, "msg", 62))), line);
    }

    // The list keeps the first kCap and counts the rest; errors stay before warnings.
    void listKeepsTheFirstAndCountsTheRest()
    {
        DiagnosticList list;
        for (std::size_t i = 0; i < DiagnosticList::kCap + 5; ++i)
            list.add(diagnose(i % 2 ? Rule::Misaligned : Rule::Offsets, std::to_string(i), i));
        QCOMPARE(list.size(), DiagnosticList::kCap);
        QCOMPARE(list.dropped(), std::size_t(5));
        QCOMPARE(list.total(), DiagnosticList::kCap + 5);
        QCOMPARE(list[1].message, std::string("1"));
        list.putErrorsFirst();
        QCOMPARE(list[0].message, std::string("0"));
        QCOMPARE(list[1].message, std::string("2"));
        QVERIFY(list[DiagnosticList::kCap / 2 - 1].isError());
        QVERIFY(!list[DiagnosticList::kCap / 2].isError());
    }

    // The parser's errors and warnings both go through the cap.
    void parserErrorsAreCapped()
    {
        const std::size_t count = DiagnosticList::kCap + 123;
        const Header h = oversizedTensors(count, [](std::size_t i) { return "t" + std::to_string(i); });
        QCOMPARE(h.diagnostics.size(), DiagnosticList::kCap);
        QCOMPARE(h.diagnostics.total(), count);
        QCOMPARE(h.verdict()->rule, Rule::Size);
    }
    void duplicateNameWarningsAreCapped()
    {
        const std::size_t count = DiagnosticList::kCap + 10;
        std::string json = "{";
        for (std::size_t i = 0; i < count; ++i)
            json += (i ? "," : "") + std::string(R"("a":{"dtype":"U8","shape":[0],"data_offsets":[0,0]})");
        const Header h = parseHeader(test::rawFile(json + "}"));
        QVERIFY(h.valid());
        QCOMPARE(h.diagnostics.size(), DiagnosticList::kCap);
        QCOMPARE(h.diagnostics.total(), count - 1);
        QCOMPARE(h.diagnostics.front().rule, Rule::DuplicateName);
    }

    // A name of a megabyte is shown by its first 200 bytes and its length.
    void longNamesAreBoundedInMessages()
    {
        const std::string longName(1 << 20, 'n');
        const Header h = oversizedTensors(1, [&](std::size_t) { return longName; });
        const Diagnostic *verdict = h.verdict();
        QVERIFY(verdict);
        QCOMPARE(verdict->tensor, longName); // the tensor itself is still found by its full name
        QVERIFY2(verdict->message.size() < 400, verdict->message.c_str());
        QVERIFY(verdict->message.find("\"" + std::string(kQuotedNameBytes, 'n') + "\u2026\" (1,048,576 bytes)")
                != std::string::npos);
    }
    void quotedName_data()
    {
        QTest::addColumn<QByteArray>("name");
        QTest::addColumn<QByteArray>("quoted");
        QTest::newRow("short") << QByteArray("a.weight") << QByteArray("\"a.weight\"");
        QTest::newRow("escaped") << QByteArray("a\"\n") << QByteArray("\"a\\\"\\x0a\"");
        QTest::newRow("exactly the limit") << QByteArray(200, 'x') << "\"" + QByteArray(200, 'x') + "\"";
        QTest::newRow("one over") << QByteArray(201, 'x') << "\"" + QByteArray(200, 'x') + "\u2026\" (201 bytes)";
        // A two-byte character across the cut is left out whole, never split.
        QTest::newRow("cut before a character") << QByteArray(199, 'x') + "\xc3\xa9" + QByteArray(10, 'y')
                                                << "\"" + QByteArray(199, 'x') + "\u2026\" (211 bytes)";
    }
    void quotedName()
    {
        QFETCH(QByteArray, name);
        QFETCH(QByteArray, quoted);
        QCOMPARE(QByteArray::fromStdString(stb::quotedName(name.toStdString())), quoted);
    }
};

QTEST_GUILESS_MAIN(tst_Diagnostic)
#include "tst_diagnostic.moc"
