// parseHeader must call a file valid exactly when the reference (safetensors 0.8,
// SafeTensors::read_metadata) does, and name the rule the reference breaks on first. Every
// expected verdict here is derived from the reference's code path (serde_json + serde derive for
// HashMetadata/TensorInfo, then Metadata::validate, then the coverage check), never from our
// implementation; offsets are the byte where a person should look, found in the test's own JSON.
#include "core/format/header.h"
#include "core/text/textformat.h"

#include "core/format/headercheck.h"

#include "core/format/dtype.h"
#include "core/format/writer.h"
#include "tests/support/ruletostring.h"
#include "tests/support/testfiles.h"

#include <QByteArray>
#include <QFile>
#include <QStringList>
#include <QTemporaryDir>
#include <QTest>

#include <algorithm>
#include <cstdint>
#include <initializer_list>
#include <set>
#include <string>
#include <string_view>
#include <vector>

using namespace stb;
using namespace Qt::StringLiterals;

Q_DECLARE_METATYPE(stb::Rule)
Q_DECLARE_METATYPE(std::vector<stb::Rule>)

namespace {

// "Any tensor": the reference picks one of several tensors with the same extent by
// HashMap order (random per process), so such rows cannot name the tensor.
const QString kAnyTensor = u"*"_s;

QByteArray toQByteArray(const std::vector<std::byte> &bytes)
{
    return QByteArray(reinterpret_cast<const char *>(bytes.data()), static_cast<qsizetype>(bytes.size()));
}

// Length prefix + header + `dataBytes` zero bytes; `length` replaces the real header length.
QByteArray rawFile(std::string_view json, std::size_t dataBytes = 0, long long length = -1)
{
    return toQByteArray(test::rawFile(json, dataBytes, 0, length));
}

// checkHeader (what `check` runs) must find exactly what parseHeader finds, without the tensor
// list: the same diagnostics in the same order, and as many tensors. Every parse below asks.
void verifyCheckAgrees(std::span<const std::byte> bytes, std::uint64_t fileSize, const Header &header)
{
    const HeaderCheck check = checkHeader(bytes, fileSize);
    QCOMPARE(check.tensorCount, header.tensors.size());
    QCOMPARE(check.diagnostics.size(), header.diagnostics.size());
    QCOMPARE(check.diagnostics.dropped(), header.diagnostics.dropped());
    for (std::size_t i = 0; i < header.diagnostics.size(); ++i) {
        const Diagnostic &expected = header.diagnostics[i];
        const Diagnostic &found = check.diagnostics[i];
        QCOMPARE(found.rule, expected.rule);
        QCOMPARE(found.message, expected.message);
        QCOMPARE(found.offset, expected.offset);
        QCOMPARE(found.tensor, expected.tensor);
    }
    QCOMPARE(firstError(check.diagnostics), header.verdict() ? &check.diagnostics[0] : nullptr);
}

Header parse(const QByteArray &file, qint64 fileSize = -1)
{
    const auto bytes = std::as_bytes(std::span(file.constData(), static_cast<std::size_t>(file.size())));
    const std::uint64_t size = fileSize < 0 ? bytes.size() : static_cast<std::uint64_t>(fileSize);
    Header header = parseHeader(bytes, size);
    verifyCheckAgrees(bytes, size, header);
    return header;
}

// One tensor entry, compact as the reference writes it.
std::string entry(std::string_view name, std::string_view dtype, std::string_view shape, std::uint64_t begin,
    std::uint64_t end)
{
    return "\"" + std::string(name) + "\":{\"dtype\":\"" + std::string(dtype)
        + "\",\"shape\":" + std::string(shape) + ",\"data_offsets\":[" + std::to_string(begin) + ","
        + std::to_string(end) + "]}";
}

std::string object(std::initializer_list<std::string> members)
{
    std::string out = "{";
    for (const auto &m : members) {
        if (out.size() > 1)
            out += ',';
        out += m;
    }
    return out + "}";
}

// Pads with spaces so that the data region starts on a multiple of 8, as the reference writer does.
std::string padded(std::string json)
{
    json.append((8 - json.size() % 8) % 8, ' ');
    return json;
}

// Absolute file offset of the `nth` occurrence of `needle` in a header (the header starts at 8).
qint64 at(std::string_view json, std::string_view needle, int nth = 0)
{
    std::size_t pos = json.find(needle);
    for (int i = 0; i < nth && pos != std::string_view::npos; ++i)
        pos = json.find(needle, pos + 1);
    if (pos == std::string_view::npos)
        qFatal("test bug: \"%s\" not in the header", std::string(needle).c_str());
    return 8 + static_cast<qint64>(pos);
}

// Absolute file offset just after the `nth` occurrence of `needle`: where the value of a key starts.
qint64 after(std::string_view json, std::string_view needle, int nth = 0)
{
    return at(json, needle, nth) + static_cast<qint64>(needle.size());
}

QString qs(std::string_view text)
{
    return QString::fromUtf8(text.data(), static_cast<qsizetype>(text.size()));
}

using Rules = std::vector<Rule>;

// Sorted, so a row lists them in any order.
Rules sorted(Rules rules)
{
    std::sort(rules.begin(), rules.end());
    return rules;
}

Rules warningRules(const Header &header)
{
    Rules rules;
    for (const auto &d : header.diagnostics) {
        if (!d.isError())
            rules.push_back(d.rule);
    }
    return sorted(rules);
}

QByteArray describe(const Header &header)
{
    QByteArray out;
    for (const auto &d : header.diagnostics)
        out += QByteArray(d.isError() ? "error " : "warning ") + ruleId(d.rule).data() + " @"
            + QByteArray::number(d.offset) + " [" + d.tensor.c_str() + "] " + d.message.c_str() + "\n";
    return out;
}

// The reference's own golden files (safetensors/src/tensor.rs, test_empty, test_serialization
// and test_serialization_forced_alignement).
QByteArray goldenEmpty()
{
    return QByteArray("\x08\0\0\0\0\0\0\0{}      ", 16);
}

QByteArray goldenFramework()
{
    return QByteArray("\x28\0\0\0\0\0\0\0", 8) + "{\"__metadata__\":{\"framework\":\"pt\"}}     ";
}

QByteArray goldenF32()
{
    static const unsigned char bytes[] = { 64, 0, 0, 0, 0, 0, 0, 0, 123, 34, 97, 116, 116, 110, 46, 48, 34,
        58, 123, 34, 100, 116, 121, 112, 101, 34, 58, 34, 70, 51, 50, 34, 44, 34, 115, 104, 97, 112, 101, 34,
        58, 91, 49, 44, 50, 44, 51, 93, 44, 34, 100, 97, 116, 97, 95, 111, 102, 102, 115, 101, 116, 115, 34,
        58, 91, 48, 44, 50, 52, 93, 125, 125, 0, 0, 0, 0, 0, 0, 128, 63, 0, 0, 0, 64, 0, 0, 64, 64, 0, 0, 128,
        64, 0, 0, 160, 64 };
    return QByteArray(reinterpret_cast<const char *>(bytes), sizeof bytes);
}

QByteArray goldenAligned()
{
    static const unsigned char bytes[] = { 72, 0, 0, 0, 0, 0, 0, 0, 123, 34, 97, 116, 116, 110, 48, 34, 58,
        123, 34, 100, 116, 121, 112, 101, 34, 58, 34, 70, 51, 50, 34, 44, 34, 115, 104, 97, 112, 101, 34, 58,
        91, 49, 44, 49, 44, 50, 44, 51, 93, 44, 34, 100, 97, 116, 97, 95, 111, 102, 102, 115, 101, 116, 115,
        34, 58, 91, 48, 44, 50, 52, 93, 125, 125, 32, 32, 32, 32, 32, 32, 32, 0, 0, 0, 0, 0, 0, 128, 63, 0, 0,
        0, 64, 0, 0, 64, 64, 0, 0, 128, 64, 0, 0, 160, 64 };
    return QByteArray(reinterpret_cast<const char *>(bytes), sizeof bytes);
}

// Bits per element from rules.md, and the dtypes it says older readers do not know.
struct DTypeCase {
    const char *name;
    unsigned bits;
    bool isNew;
};
constexpr DTypeCase kDTypes[] = {
    { "BOOL", 8, false },
    { "U8", 8, false },
    { "I8", 8, false },
    { "I16", 16, false },
    { "U16", 16, false },
    { "I32", 32, false },
    { "U32", 32, false },
    { "I64", 64, false },
    { "U64", 64, false },
    { "F16", 16, false },
    { "BF16", 16, false },
    { "F32", 32, false },
    { "F64", 64, false },
    { "C64", 64, true },
    { "F8_E4M3", 8, false },
    { "F8_E5M2", 8, false },
    { "F8_E8M0", 8, true },
    { "F8_E4M3FNUZ", 8, true },
    { "F8_E5M2FNUZ", 8, true },
    { "F6_E2M3", 6, true },
    { "F6_E3M2", 6, true },
    { "F4", 4, true },
};

} // namespace

class tst_Header : public QObject {
    Q_OBJECT

private slots:
    void rules_data();
    void rules();
    void dtypeSizes_data();
    void dtypeSizes();
    void goldenBytesMatchWriter();
    void goldenContents();
    void namesAndMetadataDecoded();
    void duplicateNameKeepsLast();
    void duplicateNameAmongMany();
    void salvage();
    void manyTensors();
    void warnings_data();
    void warnings();
    void referenceWrittenFilesAreClean();
    void truncatedPrefix();
};

void tst_Header::rules_data()
{
    QTest::addColumn<QByteArray>("file");
    QTest::addColumn<qint64>("fileSize"); // -1: the file is all of `file`
    QTest::addColumn<bool>("valid");
    QTest::addColumn<Rule>("rule");
    QTest::addColumn<QString>("reference");
    QTest::addColumn<QString>("tensor");
    QTest::addColumn<qint64>("offset");
    QTest::addColumn<QString>("message"); // a part of the message, or empty

    const auto ok = [](const char *name, const QByteArray &file, qint64 fileSize = -1) {
        QTest::newRow(name) << file << fileSize << true << Rule{} << QString() << QString() << qint64(0)
                            << QString();
    };
    const auto bad
        = [](const char *name, const QByteArray &file, Rule rule, const char *reference,
              const QString &tensor, qint64 offset, qint64 fileSize = -1, const QByteArray &message = {}) {
              QTest::newRow(name) << file << fileSize << false << rule
                                  << QString::fromLatin1(reference) << tensor << offset
                                  << QString::fromUtf8(message);
          };
    const auto json = [&](const char *name, const std::string &header, std::size_t data,
                          const QString &tensor, qint64 offset) {
        bad(name, rawFile(header, data), Rule::HeaderJson, "InvalidHeaderDeserialization", tensor, offset);
    };
    const QString a = u"a"_s;
    const QString b = u"b"_s;
    const QString none;
    const std::string f32a = entry("a", "F32", "[1]", 0, 4); // 4 bytes of data

    // The reference's golden files.
    ok("golden: empty", goldenEmpty());
    ok("golden: framework metadata", goldenFramework());
    ok("golden: one F32 tensor", goldenF32());
    ok("golden: forced alignment", goldenAligned());

    // header-too-small: fewer than 8 bytes.
    bad("header-too-small: empty file", QByteArray(), Rule::HeaderTooSmall, "HeaderTooSmall", none, 0);
    bad("header-too-small: 7 bytes", QByteArray(7, '\0'), Rule::HeaderTooSmall, "HeaderTooSmall", none, 0);
    json("header-json: 8 bytes, empty header", "", 0, none, 8);

    // header-too-large: N > 100,000,000, checked before N is compared with the file.
    bad("header-too-large: 100,000,001", rawFile("{}", 0, 100'000'001), Rule::HeaderTooLarge, "HeaderTooLarge",
        none, 0);
    bad("header-too-large: 2^64-1", QByteArray(8, '\xff') + "{}", Rule::HeaderTooLarge, "HeaderTooLarge", none,
        0);
    bad("header-length: 100,000,000 is not too large", rawFile("{}", 0, 100'000'000), Rule::HeaderLength,
        "InvalidHeaderLength", none, 0);

    // header-length: 8 + N beyond the end of the file.
    bad("header-length: one byte past the end", rawFile("{}", 0, 3), Rule::HeaderLength, "InvalidHeaderLength",
        none, 0);
    bad("header-length: past data too", rawFile("{}", 4, 7), Rule::HeaderLength, "InvalidHeaderLength", none, 0);
    ok("header-length: N reaches the end exactly", rawFile("{}"));
    bad("header-json: N cuts the JSON short", rawFile("{}  ", 0, 1), // the header is "{"
        Rule::HeaderJson, "InvalidHeaderDeserialization", none, 9);

    // header-utf8: Rust's str::from_utf8; the offset is the first byte of the bad sequence.
    {
        const auto utf8 = [&](const char *name, const std::string &bad) {
            const std::string header = "{\"__metadata__\":{\"k\":\"" + bad + "\"}}";
            QTest::newRow(name) << rawFile(header) << qint64(-1) << false << Rule::HeaderUtf8
                                << u"InvalidHeader"_s << QString() << at(header, bad) << QString();
        };
        utf8("header-utf8: lone continuation byte", "\x80");
        utf8("header-utf8: overlong C0", "\xc0\xaf");
        utf8("header-utf8: overlong E0 80", "\xe0\x80\x80");
        utf8("header-utf8: surrogate ED A0", "\xed\xa0\x80");
        utf8("header-utf8: above U+10FFFF", "\xf4\x90\x80\x80");
        utf8("header-utf8: FF", "\xff");
        utf8("header-utf8: truncated in the middle", "\xe2\x82");
        ok("header-utf8: four-byte character", rawFile("{\"__metadata__\":{\"k\":\"\xf0\x9f\x98\x80\"}}"));
        bad("header-utf8: truncated at the end", rawFile("{}  \xe2\x82"), Rule::HeaderUtf8, "InvalidHeader",
            none, 8 + 4);
        bad("header-utf8: checked before JSON", rawFile("\xff"), Rule::HeaderUtf8, "InvalidHeader", none, 8);
        // The JSON reader stops at the '}' before reaching the bad byte: UTF-8 still decides.
        bad("header-utf8: after a JSON error", rawFile("{\"a\":} \xff"), Rule::HeaderUtf8, "InvalidHeader",
            none, 8 + 7);
        bad("header-utf8: in a name",
            rawFile("{\"a\xff\":{\"dtype\":\"F32\",\"shape\":[1],\"data_offsets\":[0,4]}}", 4),
            Rule::HeaderUtf8, "InvalidHeader", none, 8 + 3);
        ok("header-utf8: data bytes are not text",
            rawFile(padded(object({ entry("a", "U8", "[2]", 0, 2) })), 0) + "\xff\xfe");
    }

    // header-json, the top level: one object, JSON whitespace only, nothing after it.
    json("header-json: top-level array", "[]", 0, none, 8);
    json("header-json: top-level string", "\"x\"", 0, none, 8);
    json("header-json: top-level null", "null", 0, none, 8);
    json("header-json: top-level number", "0", 0, none, 8);
    json("header-json: only whitespace", "        ", 0, none, 16);
    json("header-json: trailing characters", "{} x", 0, none, 8 + 3);
    json("header-json: second object", "{}{}", 0, none, 8 + 2);
    json("header-json: NUL padding", std::string("{}\0\0", 4), 0, none, 8 + 2);
    json("header-json: byte order mark", "\xef\xbb\xbf{}", 0, none, 8);
    json("header-json: form feed", "{}\f", 0, none, 8 + 2);
    json("header-json: trailing comma", "{" + f32a + ",}", 4, none, at("{" + f32a + ",}", ",}") + 1);
    ok("header-json: every whitespace kind around", rawFile("\t\r\n {}\n\r\t "));

    // header-json, numbers: serde_json parses every value (flatten buffers them), so a number
    // that overflows a double fails even in a field the reference then ignores.
    {
        const auto ignored = [&](const std::string &value) {
            return "{\"a\":{\"dtype\":\"F32\",\"shape\":[1],\"x\":" + value + ",\"data_offsets\":[0,4]}}";
        };
        const std::string big = ignored("1e400");
        json("header-json: 1e400 in an ignored field", big, 4, none, at(big, "1e400"));
        const std::string digits = ignored("[1" + std::string(399, '0') + "]");
        json("header-json: 400-digit integer in an ignored field", digits, 4, none, after(digits, "\"x\":["));
        ok("header-json: 1e-400 in an ignored field", rawFile(ignored("1e-400"), 4));
        ok("header-json: anything else in an ignored field",
            rawFile(ignored("[-0,1.5,1e2,-7,18446744073709551616,null,true,\"s\",{\"k\":[]}]"), 4));
        const std::string zero = ignored("01");
        json("header-json: leading zero in an ignored field", zero, 4, none, at(zero, "01"));
    }

    // header-json, nesting: serde_json's limit of 127 levels, counted from the top object.
    {
        const auto deep = [&](int arrays) {
            return "{\"a\":{\"dtype\":\"F32\",\"shape\":[1],\"data_offsets\":[0,4],\"x\":"
                + std::string(arrays, '[') + std::string(arrays, ']') + "}}";
        };
        ok("header-json: 127 levels", rawFile(deep(125), 4));
        const std::string tooDeep = deep(126);
        json("header-json: 128 levels", tooDeep, 4, none, after(tooDeep, "\"x\":") + 125);
    }

    // header-json, strings.
    {
        const std::string control = "{\"a\x01\":{\"dtype\":\"F32\",\"shape\":[1],\"data_offsets\":[0,4]}}";
        json("header-json: raw control character in a name", control, 4, none, at(control, "\x01"));
        ok("header-json: escaped control character in a name",
            rawFile("{\"a\\u0001\":{\"dtype\":\"F32\",\"shape\":[1],\"data_offsets\":[0,4]}}", 4));
        const std::string lone = "{\"\\ud800\":{\"dtype\":\"F32\",\"shape\":[1],\"data_offsets\":[0,4]}}";
        json("header-json: lone surrogate in a name", lone, 4, none, at(lone, "\\"));
        const std::string trailing = "{\"__metadata__\":{\"k\":\"x\\udc00\"}}";
        json("header-json: lone trailing surrogate in metadata", trailing, 0, none, at(trailing, "\\"));
        ok("header-json: surrogate pair in a name",
            rawFile("{\"\\ud83d\\ude00\":{\"dtype\":\"F32\",\"shape\":[1],\"data_offsets\":[0,4]}}", 4));
        const std::string escape = "{\"a\\x\":{\"dtype\":\"F32\",\"shape\":[1],\"data_offsets\":[0,4]}}";
        json("header-json: invalid escape in a name", escape, 4, none, at(escape, "\\"));
    }

    // header-json, __metadata__: Option<HashMap<String, String>>.
    {
        ok("header-json: __metadata__ null", rawFile("{\"__metadata__\":null}"));
        ok("header-json: __metadata__ empty", rawFile("{\"__metadata__\":{}}"));
        const auto meta = [&](const char *name, const std::string &value) {
            const std::string header = "{\"__metadata__\":{\"k\":" + value + "}}";
            json(name, header, 0, none, after(header, "\"k\":"));
        };
        meta("header-json: __metadata__ number value", "1");
        meta("header-json: __metadata__ null value", "null");
        meta("header-json: __metadata__ bool value", "true");
        meta("header-json: __metadata__ object value", "{}");
        meta("header-json: __metadata__ array value", "[\"x\"]");
        const std::string str = "{\"__metadata__\":\"pt\"}";
        json("header-json: __metadata__ is a string", str, 0, none, after(str, ":"));
        const std::string arr = "{\"__metadata__\":[]}";
        json("header-json: __metadata__ is an array", arr, 0, none, after(arr, ":"));
        const std::string twice = "{\"__metadata__\":{},\"__metadata__\":{}}";
        json("header-json: duplicate __metadata__", twice, 0, none, at(twice, "\"__metadata__\"", 1));
        const std::string afterNull = "{\"__metadata__\":null,\"__metadata__\":{\"k\":\"v\"}}";
        json("header-json: duplicate __metadata__ after null", afterNull, 0, none,
            at(afterNull, "\"__metadata__\"", 1));
        ok("header-json: __metadata__ spelt with an escape",
            rawFile("{\"__metadata\\u005f_\":{\"k\":\"v\"}}"));
        json("header-json: __Metadata__ is a tensor", "{\"__Metadata__\":{\"k\":\"v\"}}", 0,
            u"__Metadata__"_s, 9);
    }

    // header-json, tensor entries: serde's derived TensorInfo read from buffered content.
    {
        // The writers' compact form is read by a shortcut; these forms take the general path.
        ok("header-json: spaces inside an entry",
            rawFile("{\"a\": {\"dtype\": \"F32\", \"shape\": [ 1 ], \"data_offsets\": [0, 4]}}", 4));
        ok("header-json: fields in another order",
            rawFile("{\"a\":{\"shape\":[1],\"data_offsets\":[0,4],\"dtype\":\"F32\"}}", 4));
        ok("header-json: unknown fields ignored",
            rawFile("{\"a\":{\"dtype\":\"F32\",\"extra\":{\"k\":[1,2]},\"shape\":[1],\"x\":1,\"x\":2,"
                    "\"data_offsets\":[0,4]}}",
                4));
        const auto twice = [&](const char *name, const char *field, const char *value) {
            const std::string header = "{\"a\":{\"dtype\":\"F32\",\"shape\":[1],\"data_offsets\":[0,4],\""
                + std::string(field) + "\":" + value + "}}";
            json(name, header, 4, a, after(header, "\"" + std::string(field) + "\":", 1));
        };
        twice("header-json: duplicate dtype", "dtype", "\"F32\"");
        twice("header-json: duplicate shape", "shape", "[1]");
        twice("header-json: duplicate data_offsets", "data_offsets", "[0,4]");
        json("header-json: missing dtype", "{\"a\":{\"shape\":[1],\"data_offsets\":[0,4]}}", 4, a, 9);
        json("header-json: missing shape", "{\"a\":{\"dtype\":\"F32\",\"data_offsets\":[0,4]}}", 4, a, 9);
        json("header-json: missing data_offsets", "{\"a\":{\"dtype\":\"F32\",\"shape\":[1]}}", 4, a, 9);
        json("header-json: empty entry", "{\"a\":{}}", 0, a, 9);
        json("header-json: entry is null", "{\"a\":null}", 0, a, 8 + 5);
        json("header-json: entry is a string", "{\"a\":\"F32\"}", 0, a, 8 + 5);
        json("header-json: entry is a number", "{\"a\":4}", 0, a, 8 + 5);
        ok("header-json: entry as a 3-element array", rawFile("{\"a\":[\"F32\",[1],[0,4]]}", 4));
        ok("header-json: array entry with object dtype", rawFile("{\"a\":[{\"F32\":null},[1],[0,4]]}", 4));
        json("header-json: array entry with 2 elements", "{\"a\":[\"F32\",[1]]}", 0, a, 9);
        json("header-json: array entry with 4 elements", "{\"a\":[\"F32\",[1],[0,4],null]}", 4, a, 9);
        json("header-json: empty array entry", "{\"a\":[]}", 0, a, 9);
        const std::string order = "{\"a\":[[1],\"F32\",[0,4]]}";
        json("header-json: array entry in the wrong order", order, 4, a, at(order, "[1]"));
    }

    // header-json, dtype: a unit variant, written as its name or as {"NAME": null}.
    {
        ok("header-json: dtype {\"F32\": null}",
            rawFile("{\"a\":{\"dtype\":{\"F32\":null},\"shape\":[1],\"data_offsets\":[0,4]}}", 4));
        ok("header-json: dtype name with escapes",
            rawFile("{\"a\":{\"dtype\":\"F\\u0033\\u0032\",\"shape\":[1],\"data_offsets\":[0,4]}}", 4));
        const auto dtype = [&](const char *name, const std::string &value) {
            const std::string header
                = "{\"a\":{\"dtype\":" + value + ",\"shape\":[1],\"data_offsets\":[0,4]}}";
            json(name, header, 4, a, after(header, "\"dtype\":"));
        };
        dtype("header-json: unknown dtype", "\"F33\"");
        dtype("header-json: lower-case dtype", "\"f32\"");
        dtype("header-json: dtype with a space", "\"F32 \"");
        dtype("header-json: dtype number", "11");
        dtype("header-json: dtype null", "null");
        dtype("header-json: dtype array", "[\"F32\"]");
        dtype("header-json: dtype empty object", "{}");
        dtype("header-json: dtype object with two keys", "{\"F32\":null,\"F16\":null}");
        // flatten hands each entry over as borrowed content (ContentRefDeserializer), whose
        // deserialize_unit takes only null: unlike owned content it refuses {} for a unit.
        dtype("header-json: dtype object with value {}", "{\"F32\":{}}");
        dtype("header-json: dtype object with value 0", "{\"F32\":0}");
        dtype("header-json: dtype object with value []", "{\"F32\":[]}");
        dtype("header-json: dtype object with value \"\"", "{\"F32\":\"\"}");
        dtype("header-json: dtype object with a non-empty object", "{\"F32\":{\"k\":null}}");
        dtype("header-json: dtype object naming an unknown dtype", "{\"F33\":null}");
    }

    // header-json, shape: Vec<usize>.
    {
        ok("header-json: scalar shape", rawFile(object({ entry("a", "F32", "[]", 0, 4) }), 4));
        const auto shape = [&](const char *name, const std::string &value) {
            const std::string header
                = "{\"a\":{\"dtype\":\"F32\",\"shape\":" + value + ",\"data_offsets\":[0,4]}}";
            json(name, header, 4, a, after(header, "\"shape\":"));
        };
        shape("header-json: negative dimension", "[-1]");
        shape("header-json: minus zero dimension", "[-0]");
        shape("header-json: fraction dimension", "[1.0]");
        shape("header-json: exponent dimension", "[1e0]");
        shape("header-json: string dimension", "[\"1\"]");
        shape("header-json: null dimension", "[null]");
        shape("header-json: dimension beyond 2^64-1", "[18446744073709551616]");
        const std::string zero = "{\"a\":{\"dtype\":\"F32\",\"shape\":[01],\"data_offsets\":[0,4]}}";
        json("header-json: leading zero dimension", zero, 4, none, at(zero, "01"));
        shape("header-json: bad dimension after good ones", "[1,1,-1]");
        shape("header-json: shape null", "null");
        shape("header-json: shape object", "{}");
        shape("header-json: shape number", "1");
        const std::string comma = "{\"a\":{\"dtype\":\"F32\",\"shape\":[1,],\"data_offsets\":[0,4]}}";
        json("header-json: trailing comma in shape", comma, 4, none, at(comma, ",]") + 1);
    }

    // header-json, data_offsets: (usize, usize), exactly two elements.
    {
        const auto offsets = [&](const char *name, const std::string &value) {
            const std::string header
                = "{\"a\":{\"dtype\":\"F32\",\"shape\":[1],\"data_offsets\":" + value + "}}";
            json(name, header, 4, a, after(header, "\"data_offsets\":"));
        };
        offsets("header-json: one offset", "[0]");
        offsets("header-json: three offsets", "[0,4,8]");
        offsets("header-json: no offsets", "[]");
        offsets("header-json: fraction offset", "[0,4.0]");
        offsets("header-json: exponent offset", "[0,4e0]");
        offsets("header-json: minus zero offset", "[-0,4]");
        offsets("header-json: negative offset", "[0,-4]");
        offsets("header-json: offset beyond 2^64-1", "[0,18446744073709551616]");
        const std::string zero = "{\"a\":{\"dtype\":\"F32\",\"shape\":[1],\"data_offsets\":[00,4]}}";
        json("header-json: leading zero offset", zero, 4, none, at(zero, "00"));
        offsets("header-json: offsets as an object", "{\"0\":0,\"1\":4}");
        offsets("header-json: offsets as a string", "\"0,4\"");
        offsets("header-json: offsets null", "null");
    }

    // offsets: sorted by (BEGIN, END), each BEGIN is the previous END, END >= BEGIN.
    {
        const std::string hole = object({ f32a, entry("b", "F32", "[1]", 8, 12) });
        bad("offsets: hole", rawFile(hole, 12), Rule::Offsets, "InvalidOffset", b, at(hole, "\"b\""), -1,
            "a hole of 4 bytes");
        const std::string overlap
            = object({ entry("a", "F32", "[2]", 0, 8), entry("b", "F32", "[1]", 4, 8) });
        bad("offsets: overlap", rawFile(overlap, 8), Rule::Offsets, "InvalidOffset", b, at(overlap, "\"b\""), -1,
            "overlap by 4 bytes");
        const std::string backwards = object({ f32a, entry("b", "F32", "[0]", 4, 0) });
        bad("offsets: end before begin", rawFile(backwards, 4), Rule::Offsets, "InvalidOffset", b,
            at(backwards, "\"b\""), -1, "before it begins");
        const std::string late = object({ entry("a", "F32", "[1]", 4, 8) });
        bad("offsets: first tensor not at 0", rawFile(late, 8), Rule::Offsets, "InvalidOffset", a,
            at(late, "\"a\""));
        const std::string same = object({ f32a, entry("b", "F32", "[1]", 0, 4) });
        bad("offsets: two tensors, one extent", rawFile(same, 4), Rule::Offsets, "InvalidOffset", kAnyTensor, 0);
        const std::string emptyAfterHole
            = object({ f32a, entry("e", "F32", "[0]", 8, 8), entry("b", "F32", "[1]", 8, 12) });
        bad("offsets: zero-size tensor after a hole", rawFile(emptyAfterHole, 12), Rule::Offsets, "InvalidOffset",
            u"e"_s, at(emptyAfterHole, "\"e\""));
        const std::string max = object({ entry("a", "U8", "[0]", UINT64_MAX, UINT64_MAX) });
        bad("offsets: begin at 2^64-1", rawFile(max), Rule::Offsets, "InvalidOffset", a, 9);
        ok("offsets: header order is not data order",
            rawFile(object({ entry("b", "F32", "[1]", 4, 8), entry("a", "F32", "[1]", 0, 4) }), 8));
        ok("offsets: zero-size tensors anywhere",
            rawFile(object({ entry("z", "F32", "[0]", 0, 0), f32a, entry("y", "U8", "[0,7]", 4, 4) }), 4));
    }

    // overflow: checked_mul over the shape, then by the bits per element.
    {
        const std::string count = object({ entry("a", "U8", "[4294967296,4294967296]", 0, 0) });
        bad("overflow: element count", rawFile(count), Rule::Overflow, "ValidationOverflow", a, 9);
        const std::string beforeZero = object({ entry("a", "U8", "[4294967296,4294967296,0]", 0, 0) });
        bad("overflow: before a later zero dimension", rawFile(beforeZero), Rule::Overflow, "ValidationOverflow",
            a, 9);
        ok("overflow: zero dimension first",
            rawFile(object({ entry("a", "U8", "[0,4294967296,4294967296]", 0, 0) })));
        // 2^61 bytes fit in 64 bits but 2^64 bits do not: the reference counts bits.
        const std::string bits
            = object({ entry("a", "U8", "[2305843009213693952]", 0, 2305843009213693952ull) });
        bad("overflow: U8 [2^61] in bits", rawFile(bits), Rule::Overflow, "ValidationOverflow", a, 9);
        const std::string f32 = object({ entry("a", "F32", "[4611686018427387904]", 0, 0) });
        bad("overflow: F32 [2^62] in bits", rawFile(f32), Rule::Overflow, "ValidationOverflow", a, 9);
        const std::string fits
            = object({ entry("a", "U8", "[2305843009213693951]", 0, 2305843009213693951ull) });
        bad("coverage: U8 [2^61-1] fits", rawFile(fits), Rule::Coverage, "MetadataIncompleteBuffer", u"a"_s,
            8 + static_cast<qint64>(fits.size()), -1, "2,305,843,009,213,693,951");
    }

    // sub-byte: element count x bits must be whole bytes (F4, F6).
    {
        const auto sub = [&](const char *name, const char *dtype, const char *shape, std::uint64_t end) {
            bad(name, rawFile(object({ entry("a", dtype, shape, 0, end) }), end), Rule::SubByte,
                "MisalignedSlice", a, 9);
        };
        sub("sub-byte: F4 [3]", "F4", "[3]", 2);
        sub("sub-byte: F4 scalar", "F4", "[]", 1);
        sub("sub-byte: F4 [3] with no bytes", "F4", "[3]", 0);
        sub("sub-byte: F6_E2M3 [1]", "F6_E2M3", "[1]", 1);
        sub("sub-byte: F6_E3M2 [2]", "F6_E3M2", "[2]", 2);
        ok("sub-byte: F4 [2] in 1 byte", rawFile(object({ entry("a", "F4", "[2]", 0, 1) }), 1));
        ok("sub-byte: F4 [2,3] in 3 bytes", rawFile(object({ entry("a", "F4", "[2,3]", 0, 3) }), 3));
        ok("sub-byte: F6_E2M3 [4] in 3 bytes", rawFile(object({ entry("a", "F6_E2M3", "[4]", 0, 3) }), 3));
        ok("sub-byte: F4 [0]", rawFile(object({ entry("a", "F4", "[0]", 0, 0) })));
        bad("size: F4 [2] in 2 bytes", rawFile(object({ entry("a", "F4", "[2]", 0, 2) }), 2), Rule::Size,
            "TensorInvalidInfo", a, 9);
    }

    // size: END - BEGIN equals the bytes dtype and shape call for.
    {
        const auto size = [&](const char *name, const char *dtype, const char *shape, std::uint64_t end) {
            bad(name, rawFile(object({ entry("a", dtype, shape, 0, end) }), end), Rule::Size, "TensorInvalidInfo",
                a, 9);
        };
        size("size: too few bytes", "F32", "[2]", 4);
        size("size: too many bytes", "F32", "[2]", 12);
        size("size: scalar with no bytes", "F32", "[]", 0);
        size("size: empty tensor with bytes", "F32", "[0]", 4);
        ok("size: scalar", rawFile(object({ entry("a", "F32", "[]", 0, 4) }), 4));
        ok("size: empty tensors",
            rawFile(object({ entry("a", "F32", "[0]", 0, 0), entry("b", "I64", "[0,5]", 0, 0) })));
    }

    // Which error the reference meets first.
    {
        const std::string sizeFirst
            = object({ entry("a", "F32", "[2]", 0, 4), entry("b", "F32", "[1]", 8, 12) });
        bad("order: size of an earlier tensor before a later hole", rawFile(sizeFirst, 12), Rule::Size,
            "TensorInvalidInfo", a, 9);
        const std::string offsetsFirst = object({ entry("a", "F32", "[2]", 4, 8) });
        bad("order: offsets before size of the same tensor", rawFile(offsetsFirst, 8), Rule::Offsets,
            "InvalidOffset", a, 9);
        const std::string jsonFirst
            = object({ entry("a", "F33", "[1]", 0, 4), entry("b", "F32", "[1]", 8, 12) });
        json("order: header-json before offsets", jsonFirst, 12, a, after(jsonFirst, "\"dtype\":"));
        const std::string badThenGood
            = "{\"a\":{\"dtype\":\"F33\",\"shape\":[1],\"data_offsets\":[0,4]}," + f32a + "}";
        json("order: bad entry, then a good one of the same name", badThenGood, 4, a,
            after(badThenGood, "\"dtype\":"));
        const std::string goodThenBad
            = "{" + f32a + ",\"a\":{\"dtype\":\"F33\",\"shape\":[1],\"data_offsets\":[0,4]}}";
        json("order: good entry, then a bad one of the same name", goodThenBad, 4, a,
            after(goodThenBad, "\"dtype\":", 1));
        ok("order: duplicate name, the last entry decides (valid)",
            rawFile(object({ entry("a", "U8", "[2]", 0, 2), f32a }), 4));
        const std::string lastDecides = object({ f32a, entry("a", "F32", "[1]", 4, 8) });
        bad("order: duplicate name, the last entry decides (offsets)", rawFile(lastDecides, 8), Rule::Offsets,
            "InvalidOffset", a, at(lastDecides, "\"a\"", 1));
        bad("order: offsets before coverage", rawFile(object({ entry("a", "F32", "[1]", 4, 8) }), 100),
            Rule::Offsets, "InvalidOffset", a, 9);
    }

    // coverage: 8 + N + the last END is the file size.
    {
        bad("coverage: one trailing byte", rawFile(object({ f32a }), 5), Rule::Coverage,
            "MetadataIncompleteBuffer", none, 8 + static_cast<qint64>(object({ f32a }).size()) + 4, -1,
            "1 trailing bytes");
        const std::string two = object({ entry("a", "F32", "[2]", 0, 8) });
        bad("coverage: missing bytes", rawFile(two, 4), Rule::Coverage, "MetadataIncompleteBuffer", u"a"_s,
            8 + static_cast<qint64>(two.size()) + 4, -1, "truncated");
        bad("coverage: data after an empty header", rawFile("{}", 1), Rule::Coverage, "MetadataIncompleteBuffer",
            none, 8 + 2, -1, "1 trailing bytes");
        bad("coverage: metadata only, with data", rawFile("{\"__metadata__\":{}}", 8), Rule::Coverage,
            "MetadataIncompleteBuffer", none, 8 + 19, -1, "8 trailing bytes");

        // Beyond 4 GiB: only the header exists in memory; the file size says where the file ends.
        const std::string huge = object({ entry("a", "U8", "[5000000000]", 0, 5'000'000'000ull) });
        const qint64 hugeStart = 8 + static_cast<qint64>(huge.size());
        bad("coverage: 5 GB tensor, no data", rawFile(huge), Rule::Coverage, "MetadataIncompleteBuffer",
            u"a"_s, hugeStart, -1, "need 5,000,000,000 bytes of data but the file holds 0");
        ok("coverage: 5 GB tensor with its bytes", rawFile(huge), hugeStart + 5'000'000'000);
        const std::string straddle = object({ entry("a", "U8", "[4294967296]", 0, 4294967296ull),
            entry("b", "F32", "[1]", 4294967296ull, 4294967300ull) });
        const qint64 straddleEnd = 8 + static_cast<qint64>(straddle.size()) + 4294967300;
        ok("coverage: tensors across 4 GiB", rawFile(straddle), straddleEnd);
        bad("coverage: one byte short after 4 GiB", rawFile(straddle), Rule::Coverage,
            "MetadataIncompleteBuffer", u"b"_s, straddleEnd - 1, straddleEnd - 1,
            "need 4,294,967,300 bytes of data but the file holds 4,294,967,299");
        bad("coverage: one byte extra after 4 GiB", rawFile(straddle), Rule::Coverage,
            "MetadataIncompleteBuffer", none, straddleEnd, straddleEnd + 1,
            "end at byte " + QByteArray::fromStdString(formatCount(std::uint64_t(straddleEnd)))
                + " but the file goes on to "
                + QByteArray::fromStdString(formatCount(std::uint64_t(straddleEnd + 1))));
    }
}

void tst_Header::rules()
{
    QFETCH(QByteArray, file);
    QFETCH(qint64, fileSize);
    QFETCH(bool, valid);
    QFETCH(Rule, rule);
    QFETCH(QString, reference);
    QFETCH(QString, tensor);
    QFETCH(qint64, offset);
    QFETCH(QString, message);

    const Header header = parse(file, fileSize);
    QCOMPARE(header.fileSize, static_cast<std::uint64_t>(fileSize < 0 ? file.size() : fileSize));
    // Errors first (the first is the verdict), then warnings.
    const auto firstWarning = std::find_if(header.diagnostics.begin(), header.diagnostics.end(),
        [](const Diagnostic &d) { return !d.isError(); });
    QVERIFY2(
        std::none_of(firstWarning, header.diagnostics.end(), [](const Diagnostic &d) { return d.isError(); }),
        describe(header).constData());

    if (valid) {
        QVERIFY2(header.valid(), describe(header).constData());
        QCOMPARE(header.errorCount(), std::size_t(0));
        return;
    }
    QVERIFY2(!header.valid(), describe(header).constData());
    const Diagnostic *verdict = header.verdict();
    QVERIFY(verdict);
    QCOMPARE(verdict->severity(), Severity::Error);
    QCOMPARE(verdict->rule, rule);
    QCOMPARE(qs(verdict->reference()), reference);
    if (tensor != kAnyTensor) {
        QCOMPARE(qs(verdict->tensor), tensor);
        QCOMPARE(static_cast<qint64>(verdict->offset), offset);
    } else {
        QVERIFY(!verdict->tensor.empty());
    }
    QVERIFY2(qs(verdict->message).contains(message), verdict->message.c_str());
    QVERIFY(!verdict->message.empty());
}

void tst_Header::dtypeSizes_data()
{
    QTest::addColumn<QByteArray>("file");
    QTest::addColumn<bool>("valid");
    QTest::addColumn<bool>("isNew");

    for (const auto &d : kDTypes) {
        // Shape [2, 2]: four elements are whole bytes for every width (4 x 4 and 4 x 6 bits too).
        const std::uint64_t bytes = 4 * d.bits / 8;
        for (const std::uint64_t end : { bytes, bytes + 1 }) {
            const std::string header = padded(object({ entry("t", d.name, "[2,2]", 0, end) }));
            const QByteArray name = QByteArray(d.name) + (end == bytes ? " exact" : " one byte more");
            QTest::newRow(name.constData()) << rawFile(header, end) << (end == bytes) << d.isNew;
        }
    }
}

void tst_Header::dtypeSizes()
{
    QFETCH(QByteArray, file);
    QFETCH(bool, valid);
    QFETCH(bool, isNew);

    const Header header = parse(file);
    QCOMPARE(header.valid(), valid);
    if (!valid) {
        QCOMPARE(header.verdict()->rule, Rule::Size);
        QCOMPARE(header.verdict()->reference(), std::string_view("TensorInvalidInfo"));
        QCOMPARE(header.verdict()->tensor, std::string("t"));
    }
    QCOMPARE(header.tensors.size(), std::size_t(1));
    // The data starts on a multiple of 8, so the only warning a dtype can earn is its novelty.
    QCOMPARE(warningRules(header), isNew ? Rules { Rule::NewDtype } : Rules {});
}

void tst_Header::goldenBytesMatchWriter()
{
    // Our writer must produce the reference's golden bytes, or "clean" files in these tests would
    // not be what the reference writes.
    QCOMPARE(toQByteArray(serialize({}, {}, {})), goldenEmpty());
    QCOMPARE(toQByteArray(serialize({}, {}, { { "framework", "pt" } })), goldenFramework());
    const TensorSpec spec { "attn.0", DType::F32, { 1, 2, 3 } };
    const QByteArray golden = goldenF32();
    std::vector<std::vector<std::byte>> data(1);
    for (qsizetype i = 72; i < golden.size(); ++i)
        data[0].push_back(static_cast<std::byte>(golden[i]));
    QCOMPARE(toQByteArray(serialize(std::span(&spec, 1), data, {})), golden);
}

void tst_Header::goldenContents()
{
    const Header empty = parse(goldenEmpty());
    QVERIFY(empty.valid());
    QVERIFY(empty.tensors.empty());
    QVERIFY(!empty.hasMetadata);
    QCOMPARE(empty.headerLength, std::uint64_t(8));
    QCOMPARE(empty.dataStart, std::uint64_t(16));
    QVERIFY(empty.diagnostics.empty());

    const Header framework = parse(goldenFramework());
    QVERIFY(framework.valid());
    QVERIFY(framework.hasMetadata);
    QCOMPARE(framework.metadata.size(), std::size_t(1));
    QCOMPARE(framework.metadata[0].first, std::string("framework"));
    QCOMPARE(framework.metadata[0].second, std::string("pt"));
    QVERIFY(framework.diagnostics.empty());

    const Header f32 = parse(goldenF32());
    QVERIFY(f32.valid());
    QVERIFY(f32.diagnostics.empty());
    QCOMPARE(f32.headerLength, std::uint64_t(64));
    QCOMPARE(f32.dataStart, std::uint64_t(72));
    QCOMPARE(f32.tensors.size(), std::size_t(1));
    const TensorInfo &t = f32.tensors[0];
    QCOMPARE(t.name, std::string("attn.0"));
    QCOMPARE(t.dtype, DType::F32);
    QCOMPARE(t.shape, (std::vector<std::uint64_t> { 1, 2, 3 }));
    QCOMPARE(t.begin, std::uint64_t(0));
    QCOMPARE(t.end, std::uint64_t(24));
    QCOMPARE(t.headerOffset, std::uint64_t(9)); // the '"' of "attn.0"
    QCOMPARE(f32.fileOffset(t), std::uint64_t(72));

    const Header nullMeta = parse(rawFile("{\"__metadata__\":null}"));
    QVERIFY(nullMeta.valid());
    QVERIFY(!nullMeta.hasMetadata);
    const Header emptyMeta = parse(rawFile("{\"__metadata__\":{}}"));
    QVERIFY(emptyMeta.valid());
    QVERIFY(emptyMeta.hasMetadata);
    QVERIFY(emptyMeta.metadata.empty());
}

void tst_Header::namesAndMetadataDecoded()
{
    const std::string header
        = "{\"__metadata\\u005f_\":{\"z\":\"1\",\"a\\n\":\"\\u00e9\"},"
          "\"\\ud83d\\ude00\":{\"dtype\":{\"U8\":null},\"shape\":[1],\"data_offsets\":[0,1]},"
          "\"x\\u0001\":[\"U8\",[1],[1,2]]}";
    const Header h = parse(rawFile(header, 2));
    QVERIFY2(h.valid(), describe(h).constData());
    QVERIFY(h.hasMetadata);
    QCOMPARE(h.metadata.size(), std::size_t(2));
    QCOMPARE(h.metadata[0].first, std::string("a\n")); // sorted by key
    QCOMPARE(h.metadata[0].second, std::string("\xc3\xa9"));
    QCOMPARE(h.metadata[1].first, std::string("z"));
    QCOMPARE(h.tensors.size(), std::size_t(2));
    QCOMPARE(h.tensors[0].name, std::string("\xf0\x9f\x98\x80"));
    QCOMPARE(h.tensors[0].dtype, DType::U8);
    QCOMPARE(h.tensors[0].headerOffset, static_cast<std::uint64_t>(at(header, "\"\\ud83d")));
    QCOMPARE(h.tensors[1].name, std::string("x\x01"));
    QCOMPARE(h.tensors[1].begin, std::uint64_t(1));
    QCOMPARE(h.tensors[1].headerOffset, static_cast<std::uint64_t>(at(header, "\"x\\u0001\"")));
}

void tst_Header::duplicateNameKeepsLast()
{
    const std::string header = padded(object({ entry("a", "U8", "[2]", 0, 2), entry("b", "U8", "[2]", 4, 6),
        entry("a", "F32", "[1]", 0, 4), entry("b", "U8", "[2]", 4, 6) }));
    const Header h = parse(rawFile(header, 6));
    QVERIFY2(h.valid(), describe(h).constData());
    QCOMPARE(h.tensors.size(), std::size_t(2));
    const auto a
        = std::find_if(h.tensors.begin(), h.tensors.end(), [](const TensorInfo &t) { return t.name == "a"; });
    QVERIFY(a != h.tensors.end());
    QCOMPARE(a->dtype, DType::F32);
    QCOMPARE(a->headerOffset, static_cast<std::uint64_t>(at(header, "\"a\"", 1)));
    QCOMPARE(warningRules(h), (Rules { Rule::DuplicateName, Rule::DuplicateName }));
}

void tst_Header::duplicateNameAmongMany()
{
    // 20,000 names, the first written again at the end: found however far apart they are.
    constexpr int kCount = 20'000;
    std::string header = "{";
    for (int i = 0; i < kCount; ++i)
        header += entry("model.layers." + std::to_string(i) + ".weight", "U8", "[1]",
                      static_cast<std::uint64_t>(i), static_cast<std::uint64_t>(i) + 1)
            + ",";
    header += entry("model.layers.0.weight", "U8", "[1]", kCount, kCount + 1) + "}";
    const Header h = parse(rawFile(padded(header), kCount + 1));
    QCOMPARE(warningRules(h), (Rules { Rule::DuplicateName }));
    QCOMPARE(h.tensors.size(), std::size_t(kCount));
    QVERIFY(!h.valid()); // the bytes of the first entry are now a hole
    QCOMPARE(h.verdict()->rule, Rule::Offsets);
}

void tst_Header::salvage()
{
    // One unreadable entry makes the file invalid, but the viewer still shows the others.
    const std::string header = "{\"__metadata__\":{\"k\":\"v\"}," + entry("a", "F32", "[1]", 0, 4) + ","
        + entry("b", "F33", "[1]", 4, 8) + ","
        + "\"c\":{\"dtype\":\"F32\",\"shape\":[-1],\"data_offsets\":[8,12]}," + entry("d", "I8", "[4]", 8, 12)
        + "}";
    const Header h = parse(rawFile(header, 12));
    QVERIFY(!h.valid());
    QCOMPARE(h.verdict()->rule, Rule::HeaderJson);
    QCOMPARE(h.verdict()->tensor, std::string("b"));
    std::vector<std::string> names;
    for (const auto &t : h.tensors)
        names.push_back(t.name);
    QCOMPARE(names, (std::vector<std::string> { "a", "d" }));
    QCOMPARE(h.tensors[1].dtype, DType::I8);
    QCOMPARE(h.tensors[1].begin, std::uint64_t(8));
    QVERIFY(h.hasMetadata);
    QCOMPARE(h.metadata.size(), std::size_t(1));
    // Both bad entries are reported, in header order.
    QCOMPARE(h.errorCount(), std::size_t(2));
    QCOMPARE(h.diagnostics[1].tensor, std::string("c"));
    QCOMPARE(h.diagnostics[1].rule, Rule::HeaderJson);
}

void tst_Header::manyTensors()
{
    // 100,000 one-byte tensors, written in reverse data order so the parser has to sort them.
    constexpr int kCount = 100'000;
    std::string header = "{";
    for (int i = kCount - 1; i >= 0; --i) {
        if (i != kCount - 1)
            header += ',';
        header += entry("t." + std::to_string(i), "U8", "[1]", static_cast<std::uint64_t>(i),
            static_cast<std::uint64_t>(i) + 1);
    }
    header += '}';
    const Header h = parse(rawFile(padded(header), kCount));
    QVERIFY2(h.valid(), h.diagnostics.empty() ? "" : h.diagnostics.front().message.c_str());
    QVERIFY(h.diagnostics.empty());
    QCOMPARE(h.tensors.size(), std::size_t(kCount));
    std::set<std::string> names;
    for (const auto &t : h.tensors)
        names.insert(t.name);
    QCOMPARE(names.size(), std::size_t(kCount));
    for (int i = 0; i < kCount; i += 9973)
        QVERIFY(names.count("t." + std::to_string(i)));
    QVERIFY(names.count("t." + std::to_string(kCount - 1)));
    const auto order = h.fileOrder();
    QCOMPARE(h.tensors[order.front()].name, std::string("t.0"));
    QCOMPARE(h.tensors[order.back()].name, "t." + std::to_string(kCount - 1));
}

void tst_Header::warnings_data()
{
    QTest::addColumn<QByteArray>("file");
    QTest::addColumn<Rules>("expected"); // warning rules
    QTest::addColumn<QString>("tensor"); // of the first warning; kAnyTensor: not checked
    QTest::addColumn<qint64>("offset"); // of the first warning; -1: not checked

    const auto row = [](const char *name, const QByteArray &file, const Rules &expected,
                         const QString &tensor = kAnyTensor,
                         qint64 offset = -1) { QTest::newRow(name) << file << expected << tensor << offset; };
    const std::string f32a = entry("a", "F32", "[1]", 0, 4);
    const QString a = u"a"_s;

    row("clean: golden empty", goldenEmpty(), {});
    row("clean: golden tensor", goldenF32(), {});
    row("clean: trailing whitespace", rawFile("{}   \n\t\r"), {});

    const std::string dup = padded(object({ f32a, f32a }));
    row("duplicate-name", rawFile(dup, 4), { Rule::DuplicateName }, a, 9);
    row("duplicate-name: three times", rawFile(padded(object({ f32a, f32a, f32a })), 4),
        { Rule::DuplicateName, Rule::DuplicateName }, a, 9);
    row("clean: same name in metadata and tensors",
        rawFile(padded("{\"__metadata__\":{\"a\":\"x\"}," + f32a + "}"), 4), {});

    row("leading-whitespace: space", rawFile(" {}"), { Rule::LeadingWhitespace }, u""_s, 8);
    row("leading-whitespace: newline", rawFile("\n{}"), { Rule::LeadingWhitespace }, u""_s, 8);
    row("leading-whitespace: tab and duplicate name", rawFile(padded("\t" + object({ f32a, f32a })), 4),
        { Rule::DuplicateName, Rule::LeadingWhitespace });

    const std::string shared = padded(object({ entry("e", "F32", "[0]", 0, 0), f32a }));
    row("shared-offset: empty tensor before a full one", rawFile(shared, 4), { Rule::SharedOffset }, u"e"_s,
        at(shared, "\"e\""));
    const std::string twoEmpty
        = padded(object({ entry("e", "F32", "[0]", 0, 0), entry("f", "U8", "[0]", 0, 0) }));
    row("shared-offset: two empty tensors", rawFile(twoEmpty), { Rule::SharedOffset });
    const std::string between
        = padded(object({ f32a, entry("e", "F32", "[0]", 4, 4), entry("b", "F32", "[1]", 4, 8) }));
    row("shared-offset: empty tensor between two", rawFile(between, 8), { Rule::SharedOffset }, u"e"_s,
        at(between, "\"e\""));
    row("clean: empty tensor at the end",
        rawFile(padded(object({ f32a, entry("e", "F32", "[0]", 4, 4) })), 4), {});

    {
        // The header is cut so that the data starts at 8 + N = 2 (mod 4).
        std::string header = object({ f32a });
        while ((8 + header.size()) % 4 != 2)
            header += ' ';
        row("misaligned: F32 at 2 mod 4", rawFile(header, 4), { Rule::Misaligned }, a,
            8 + static_cast<qint64>(header.size()));
        std::string f16 = object({ entry("h", "F16", "[1]", 0, 2) });
        if ((8 + f16.size()) % 2 == 0)
            f16 += ' ';
        row("misaligned: F16 at an odd offset", rawFile(f16, 2), { Rule::Misaligned }, u"h"_s,
            8 + static_cast<qint64>(f16.size()));
        std::string u8 = object({ entry("u", "U8", "[1]", 0, 1) });
        if ((8 + u8.size()) % 2 == 0)
            u8 += ' ';
        row("clean: U8 at an odd offset", rawFile(u8, 1), {});
        std::string empty = object({ entry("z", "F64", "[0]", 0, 0) });
        if ((8 + empty.size()) % 2 == 0)
            empty += ' ';
        row("clean: empty F64 at an odd offset", rawFile(empty), {});
        std::string second = object({ entry("x", "U8", "[1]", 0, 1), entry("y", "I16", "[1]", 1, 3) });
        second = padded(second);
        row("misaligned: I16 after one byte", rawFile(second, 3), { Rule::Misaligned }, u"y"_s,
            8 + static_cast<qint64>(second.size()) + 1);
    }

    {
        // Trailing spaces make the header long without making JSON work.
        std::string big = "{}";
        big.resize(25'000'001, ' ');
        row("large-header: 25,000,001 bytes", rawFile(big), { Rule::LargeHeader }, u""_s, 0);
        big.resize(25'000'000);
        row("clean: 25,000,000 bytes", rawFile(big), {});
    }

    const std::string f4 = object({ entry("q", "F4", "[2]", 0, 1) });
    row("new-dtype: F4", rawFile(f4, 1), { Rule::NewDtype }, u"q"_s, 9);
    row("new-dtype: two F4 tensors, one warning",
        rawFile(object({ entry("q", "F4", "[2]", 0, 1), entry("r", "F4", "[2]", 1, 2) }), 2),
        { Rule::NewDtype }, u"q"_s, 9);
    row("new-dtype: two new dtypes",
        rawFile(padded(object({ entry("c", "C64", "[1]", 0, 8), entry("e", "F8_E8M0", "[1]", 8, 9) })), 9),
        { Rule::NewDtype, Rule::NewDtype });
    row("clean: F8_E4M3", rawFile(object({ entry("q", "F8_E4M3", "[2]", 0, 2) }), 2), {});

    const auto meta = [&](const char *name, const std::string &value, const Rules &expected) {
        row(name, rawFile("{\"__metadata__\":{\"config\":" + value + "}}"), expected);
    };
    meta("metadata-json: object", "\"{\\\"a\\\":[1,2]}\"", { Rule::MetadataJson });
    meta("metadata-json: array", "\"[1,2]\"", { Rule::MetadataJson });
    meta("metadata-json: with whitespace", "\"  {\\\"a\\\":1}\\n\"", { Rule::MetadataJson });
    meta("clean: metadata that only looks like JSON", "\"{not json\"", {});
    meta("clean: metadata with two JSON values", "\"{} {}\"", {});
    meta("clean: plain metadata", "\"pt\"", {});
    meta("clean: metadata holding a JSON number", "\"42\"", {});

    const std::string twice = "{\"__metadata__\":{\"k\":\"1\",\"j\":\"x\",\"k\":\"2\"}}";
    row("duplicate-metadata-key", rawFile(twice), { Rule::DuplicateMetadataKey }, u""_s,
        at(twice, "\"k\"", 1));
}

void tst_Header::warnings()
{
    QFETCH(QByteArray, file);
    QFETCH(Rules, expected);
    QFETCH(QString, tensor);
    QFETCH(qint64, offset);

    const Header header = parse(file);
    QVERIFY2(header.valid(), describe(header).constData());
    QCOMPARE(warningRules(header), sorted(expected));
    QCOMPARE(header.warningCount(), static_cast<std::size_t>(expected.size()));
    if (expected.empty())
        return;
    const Diagnostic &first = header.diagnostics.front();
    QCOMPARE(first.severity(), Severity::Warning);
    QVERIFY(first.reference().empty()); // the reference raises nothing for these
    QVERIFY(!first.message.empty());
    if (tensor != kAnyTensor)
        QCOMPARE(qs(first.tensor), tensor);
    if (offset >= 0)
        QCOMPARE(static_cast<qint64>(first.offset), offset);
}

void tst_Header::referenceWrittenFilesAreClean()
{
    const auto model = test::makeSampleModel(2, 16);
    const QByteArray bytes = toQByteArray(serialize(model.specs, model.data, model.metadata));
    QVERIFY(!bytes.isEmpty());
    const Header h = parse(bytes);
    QVERIFY2(h.valid(), describe(h).constData());
    QVERIFY2(h.diagnostics.empty(), describe(h).constData());
    QCOMPARE(h.tensors.size(), model.specs.size());
    QCOMPARE(h.metadata.size(), model.metadata.size());

    // The same through a file on disk, with every old dtype and an odd-sized tensor of each.
    std::vector<TensorSpec> specs;
    std::vector<std::vector<std::byte>> data;
    for (const auto &d : kDTypes) {
        if (d.isNew)
            continue;
        const DType dtype = *dtypeFromName(d.name);
        specs.push_back({ std::string("t.") + d.name, dtype, { 3 } });
        data.emplace_back(3 * d.bits / 8, std::byte { 0x5a });
    }
    QTemporaryDir dir;
    QVERIFY(dir.isValid());
    const QString path = dir.filePath(u"clean.safetensors"_s);
    std::string error;
    QVERIFY2(writeFile(path.toStdString(), specs, data, { { "format", "pt" } }, error), error.c_str());
    QFile file(path);
    QVERIFY(file.open(QIODevice::ReadOnly));
    const Header fromDisk = parse(file.readAll());
    QVERIFY2(fromDisk.valid(), describe(fromDisk).constData());
    QVERIFY2(fromDisk.diagnostics.empty(), describe(fromDisk).constData());
    QCOMPARE(fromDisk.tensors.size(), specs.size());
}

void tst_Header::truncatedPrefix()
{
    // A prefix shorter than 8 + N, for a file that is long enough, is the caller's mistake; the
    // parser must refuse rather than read past the span.
    const QByteArray file = rawFile(object({ entry("a", "F32", "[1]", 0, 4) }), 4);
    const QByteArray prefix = file.left(20);
    const Header h = parse(prefix, file.size());
    QVERIFY(!h.valid());
    QCOMPARE(h.verdict()->rule, Rule::HeaderLength);
    QVERIFY(h.tensors.empty());
}

QTEST_GUILESS_MAIN(tst_Header)
#include "tst_header.moc"
