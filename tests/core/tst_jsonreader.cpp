// The JSON reader must accept exactly what serde_json accepts (the reference parser of
// safetensors). Expected verdicts come from serde_json's grammar and limits (RFC 8259 plus its
// recursion limit of 128 and its refusal of numbers beyond a double), not from our own code;
// error positions are the byte where a reader first knows the text is wrong.
#include "core/format/jsonreader.h"

#include <QByteArray>
#include <QTest>

#include <algorithm>
#include <cstdint>
#include <limits>
#include <string>
#include <string_view>
#include <vector>

using namespace stb;

Q_DECLARE_METATYPE(stb::JsonReader::Number::Type)

namespace {

constexpr qint64 kValid = -1;

std::string_view view(const QByteArray &bytes)
{
    return { bytes.constData(), static_cast<std::size_t>(bytes.size()) };
}

// `depth` arrays nested inside each other: [[[...]]].
QByteArray nestedArrays(int depth)
{
    return QByteArray(depth, '[') + QByteArray(depth, ']');
}

// `depth` objects nested inside each other: {"a":{"a":{}}}.
QByteArray nestedObjects(int depth)
{
    QByteArray text;
    for (int i = 1; i < depth; ++i)
        text += "{\"a\":";
    text += "{}";
    text += QByteArray(depth - 1, '}');
    return text;
}

} // namespace

class tst_JsonReader : public QObject {
    Q_OBJECT

private slots:
    void grammar_data();
    void grammar();
    void numberTypes_data();
    void numberTypes();
    void stringDecoding_data();
    void stringDecoding();
    void duplicateKeysStayVisible();
    void pullApi();
    void depthThroughPullApi();
    void failureIsSticky();
    void invalidUtf8_data();
    void invalidUtf8();
};

void tst_JsonReader::grammar_data()
{
    QTest::addColumn<QByteArray>("text");
    QTest::addColumn<qint64>("errorPosition"); // kValid when serde_json accepts the text

    const auto ok = [](const char *name, const QByteArray &text) { QTest::newRow(name) << text << kValid; };
    const auto bad = [](const char *name, const QByteArray &text, qint64 position) {
        QTest::newRow(name) << text << position;
    };

    // Numbers: RFC 8259 grammar, and serde_json's range: anything a double can hold (underflow
    // to zero is fine), nothing that overflows it, however it is spelled.
    ok("zero", "0");
    ok("minus zero", "-0");
    ok("integer", "123");
    ok("negative", "-123");
    ok("fraction", "1.5");
    ok("exponent", "1e5");
    ok("exponent upper plus", "1E+5");
    ok("exponent minus", "1e-5");
    ok("minus zero fraction", "-0.0e-0");
    ok("u64 max", "18446744073709551615");
    ok("beyond u64 is a double", "18446744073709551616");
    ok("300 digits", "1" + QByteArray(299, '0'));
    ok("double max", "1.7976931348623157e308");
    ok("1e308", "1e308");
    ok("tenth of 1e309", "0.1e309");
    ok("underflow to zero", "1e-400");
    ok("zero with huge exponent", "0e99999");
    ok("tiny with huge negative exponent", "1e-99999999999999999999");
    bad("leading zero", "01", 0);
    bad("negative leading zero", "-01", 0);
    bad("dot without digits", "1.", 0);
    bad("dot first", ".5", 0);
    bad("plus sign", "+1", 0);
    bad("bare minus", "-", 0);
    bad("double minus", "--1", 0);
    bad("empty exponent", "1e", 0);
    bad("exponent sign only", "1e+", 0);
    bad("fraction then empty exponent", "1.5E", 0);
    bad("hex", "0x10", 1);
    bad("Infinity", "Infinity", 0);
    bad("minus Infinity", "-Infinity", 0);
    bad("NaN", "NaN", 0);
    bad("1e309 overflows a double", "1e309", 0);
    bad("negative overflow", "-1e309", 0);
    bad("10e308 overflows", "10e308", 0);
    bad("1.8e308 overflows", "1.8e308", 0);
    bad("400 digits overflow", "1" + QByteArray(399, '0'), 0);
    bad("huge exponent", "1e99999999999999999999", 0);
    bad("overflow inside an array", "[1, 1e400]", 4);
    // Within an ulp of DBL_MAX serde_json's own arithmetic decides, not correct rounding (the
    // expected verdicts come from replaying serde_json's f64_from_parts: the significand's first
    // u64-sized digits, as a double, times a power of ten).
    bad("1.7976931348623158e308 (rounds to DBL_MAX, serde overflows)", "1.7976931348623158e308", 0);
    bad("17976931348623158079e289 (serde overflows)", "17976931348623158079e289", 0);
    ok("179769313486231599e291 (rounds to inf, serde stays finite)", "179769313486231599e291");
    ok("179769313486231584e291 (rounds to inf, serde stays finite)", "179769313486231584e291");
    ok("17976931348623157e292", "17976931348623157e292");
    ok("fraction digits beyond a u64 are dropped", "1.00000000000000000000000000009e308");
    ok("exponent beyond i32 with zero significand", "0.0e2147483648");
    ok("negative exponent beyond i32", "1e-2147483648");
    bad("exponent at i32 max", "1e2147483647", 0);
    bad("exponent beyond i32", "1e2147483648", 0);
    bad("2^1024 - 2^970 written out",
        "1797693134862315807937289714053034150799341327100378269361737789804449682927647509466490179775872070"
        "9633028641669288791094655554785194040263065748867150582068190890200070838367627385484581771153176447"
        "5730270069855571366959622842914819860834936475292719074168444365510704342711559699508093042880177904"
        "174497792",
        0);
    ok("309 nines times 1e-1", QByteArray(309, '9') + "e-1");

    // Literals.
    ok("true", "true");
    ok("false", "false");
    ok("null", "null");
    bad("True", "True", 0);
    bad("NULL", "NULL", 0);
    bad("truncated true", "tru", 0);
    bad("truncated null", "nul", 0);
    bad("literal with a tail", "truex", 4);

    // Strings: no raw control characters, only the JSON escapes, paired surrogates only.
    ok("empty string", "\"\"");
    ok("all simple escapes", "\"\\\"\\\\\\/\\b\\f\\n\\r\\t\"");
    ok("unicode escape", "\"\\u0041\"");
    ok("escaped NUL", "\"\\u0000\"");
    ok("upper-case hex", "\"\\u00E9\\uABCD\"");
    ok("surrogate pair", "\"\\ud83d\\ude00\"");
    ok("raw UTF-8", "\"\xc3\xa9\xe2\x82\xac\xf0\x9f\x98\x80\"");
    ok("DEL is not a control character", "\"\x7f\"");
    bad("raw control character", "\"a\x01z\"", 2);
    bad("raw tab", "\"a\tz\"", 2);
    bad("raw newline", "\"a\nz\"", 2);
    bad("raw NUL", QByteArray("\"a\0z\"", 5), 2);
    bad("unknown escape", "\"a\\x41\"", 2);
    bad("single-quote escape", "\"\\'\"", 1);
    bad("upper-case U escape", "\"\\U0041\"", 1);
    bad("short unicode escape", "\"\\u12\"", 1);
    bad("non-hex unicode escape", "\"\\u12G4\"", 1);
    bad("lone leading surrogate", "\"\\ud800\"", 1);
    bad("lone trailing surrogate", "\"\\udc00\"", 1);
    bad("leading surrogate then letter", "\"\\ud800x\"", 1);
    bad("leading surrogate then other escape", "\"\\ud800\\n\"", 1);
    bad("leading surrogate then non-surrogate", "\"\\ud800\\u0041\"", 1);
    bad("two leading surrogates", "\"\\ud800\\ud800\"", 1);
    bad("unterminated string", "\"abc", 0);
    bad("unterminated after backslash", "\"abc\\", 0);
    bad("single quotes", "'a'", 0);

    // Containers.
    ok("empty array", "[]");
    ok("empty object", "{}");
    ok("array", "[1,\"a\",null,true,[],{}]");
    ok("object", "{\"a\":1,\"b\":[{}]}");
    ok("empty key", "{\"\":0}");
    bad("trailing comma in array", "[1,]", 3);
    bad("trailing comma in object", "{\"a\":1,}", 7);
    bad("trailing comma with whitespace", "[1, ]", 4);
    bad("leading comma", "[,1]", 1);
    bad("double comma", "[1,,2]", 3);
    bad("missing comma", "[1 2]", 3);
    bad("missing colon", "{\"a\" 1}", 5);
    bad("missing value", "{\"a\":}", 5);
    bad("unquoted key", "{a:1}", 1);
    bad("number key", "{1:2}", 1);
    bad("single-quoted key", "{'a':1}", 1);
    bad("unclosed array", "[", 1);
    bad("unclosed object", "{\"a\":1", 6);
    bad("close without open", "]", 0);
    bad("mismatched close", "[}", 1);
    bad("comment", "[1 /* c */]", 3);

    // Whitespace is space, tab, newline and carriage return, nothing else.
    ok("all four whitespace kinds", " \t\n\r[ \t\n\r1 \t\n\r, \t\n\r2 \t\n\r] \t\n\r");
    bad("form feed", "\f[]", 0);
    bad("vertical tab", "[]\v", 2);
    bad("no-break space", "[\xc2\xa0]", 1);
    bad("byte order mark", "\xef\xbb\xbf[]", 0);
    bad("NUL after the value", QByteArray("[]\0", 3), 2);
    bad("empty text", "", 0);
    bad("only whitespace", "   ", 3);

    // One value only.
    bad("two values", "[] []", 3);
    bad("two numbers", "1 2", 2);
    bad("object then garbage", "{}x", 2);

    // serde_json's recursion limit: 127 levels of nesting pass, 128 fail at the 128th opener.
    ok("127 nested arrays", nestedArrays(127));
    bad("128 nested arrays", nestedArrays(128), 127);
    ok("127 nested objects", nestedObjects(127));
    bad("128 nested objects", nestedObjects(128), 127 * 5);
    ok("127 levels mixed", "{\"a\":" + nestedArrays(126) + "}");
    bad("128 levels mixed", "{\"a\":" + nestedArrays(127) + "}", 5 + 126);
    ok("wide is not deep", "[" + QByteArray("[],").repeated(1000) + "[]]");
}

void tst_JsonReader::grammar()
{
    QFETCH(QByteArray, text);
    QFETCH(qint64, errorPosition);

    JsonReader reader(view(text));
    const bool ok = reader.skipValue() && reader.atEnd();
    if (errorPosition == kValid) {
        QVERIFY2(ok, qPrintable(QString::fromStdString(reader.error())));
        QVERIFY(!reader.failed());
        QCOMPARE(reader.position(), static_cast<std::size_t>(text.size()));
    } else {
        QVERIFY(!ok);
        QVERIFY(reader.failed());
        QVERIFY(!reader.error().empty());
        QCOMPARE(static_cast<qint64>(reader.errorPosition()), errorPosition);
    }
}

void tst_JsonReader::numberTypes_data()
{
    QTest::addColumn<QByteArray>("text");
    QTest::addColumn<JsonReader::Number::Type>("type");
    QTest::addColumn<quint64>("value");

    using T = JsonReader::Number::Type;
    // What a usize field (shape, data_offsets) can take: serde_json hands an integer over as u64
    // only when it has no fraction, no exponent and no minus sign and fits 64 bits; "-0" becomes
    // the double -0.0, anything past 2^64-1 a double.
    QTest::newRow("zero") << QByteArray("0") << T::Unsigned << quint64(0);
    QTest::newRow("small") << QByteArray("4096") << T::Unsigned << quint64(4096);
    QTest::newRow("beyond 4 GiB") << QByteArray("5000000000") << T::Unsigned << quint64(5'000'000'000);
    QTest::newRow("u64 max") << QByteArray("18446744073709551615") << T::Unsigned
                             << std::numeric_limits<quint64>::max();
    QTest::newRow("u64 max + 1") << QByteArray("18446744073709551616") << T::Fraction << quint64(0);
    QTest::newRow("40 digits") << QByteArray("1234567890123456789012345678901234567890") << T::Fraction
                               << quint64(0);
    QTest::newRow("minus zero") << QByteArray("-0") << T::Negative << quint64(0);
    QTest::newRow("negative") << QByteArray("-1") << T::Negative << quint64(0);
    QTest::newRow("one point zero") << QByteArray("1.0") << T::Fraction << quint64(0);
    QTest::newRow("exponent") << QByteArray("1e2") << T::Fraction << quint64(0);
    QTest::newRow("exponent zero") << QByteArray("1E0") << T::Fraction << quint64(0);
    QTest::newRow("negative exponent") << QByteArray("100e-2") << T::Fraction << quint64(0);
}

void tst_JsonReader::numberTypes()
{
    QFETCH(QByteArray, text);
    QFETCH(JsonReader::Number::Type, type);
    QFETCH(quint64, value);

    JsonReader reader(view(text));
    QCOMPARE(reader.peek(), JsonReader::Kind::Number);
    JsonReader::Number number;
    QVERIFY(reader.readNumber(number));
    QCOMPARE(number.type, type);
    QCOMPARE(static_cast<quint64>(number.value), value);
    QVERIFY(reader.atEnd());
}

void tst_JsonReader::stringDecoding_data()
{
    QTest::addColumn<QByteArray>("text");
    QTest::addColumn<QByteArray>("decoded");

    QTest::newRow("plain") << QByteArray("\"abc\"") << QByteArray("abc");
    QTest::newRow("empty") << QByteArray("\"\"") << QByteArray();
    QTest::newRow("simple escapes") << QByteArray("\"\\\"\\\\\\/\\b\\f\\n\\r\\t\"")
                                    << QByteArray("\"\\/\b\f\n\r\t");
    QTest::newRow("ASCII escape") << QByteArray("\"F\\u0033\\u0032\"") << QByteArray("F32");
    QTest::newRow("NUL escape") << QByteArray("\"a\\u0000b\"") << QByteArray("a\0b", 3);
    QTest::newRow("two-byte escape") << QByteArray("\"\\u00e9\"") << QByteArray("\xc3\xa9");
    QTest::newRow("three-byte escape") << QByteArray("\"\\u20AC\"") << QByteArray("\xe2\x82\xac");
    QTest::newRow("last BMP") << QByteArray("\"\\uffff\"") << QByteArray("\xef\xbf\xbf");
    QTest::newRow("surrogate pair") << QByteArray("\"\\uD83D\\uDE00\"") << QByteArray("\xf0\x9f\x98\x80");
    QTest::newRow("highest pair") << QByteArray("\"\\udbff\\udfff\"") << QByteArray("\xf4\x8f\xbf\xbf");
    QTest::newRow("raw UTF-8 kept") << QByteArray("\"\xc3\xa9x\"") << QByteArray("\xc3\xa9x");
    QTest::newRow("escapes between runs") << QByteArray("\"ab\\ncd\\u0041ef\"") << QByteArray("ab\ncdAef");
}

void tst_JsonReader::stringDecoding()
{
    QFETCH(QByteArray, text);
    QFETCH(QByteArray, decoded);

    JsonReader reader(view(text));
    std::string out = "stale";
    QVERIFY(reader.readString(out));
    QCOMPARE(QByteArray(out.data(), static_cast<qsizetype>(out.size())), decoded);
    QVERIFY(reader.atEnd());
}

void tst_JsonReader::duplicateKeysStayVisible()
{
    // A DOM parser would keep one "a"; the header parser needs to see both.
    const QByteArray text = "{\"a\":1, \"a\" : 2,\"b\":3}";
    JsonReader reader(view(text));
    QVERIFY(reader.beginObject());
    std::string key;
    std::vector<std::string> keys;
    while (reader.nextKey(key)) {
        keys.push_back(key);
        QVERIFY(reader.skipValue());
    }
    QVERIFY(!reader.failed());
    QCOMPARE(keys, (std::vector<std::string> { "a", "a", "b" }));
    QVERIFY(reader.atEnd());
}

void tst_JsonReader::pullApi()
{
    const QByteArray text = " {\"s\": [1, -2, 3.5], \"t\": true, \"n\": null, \"o\": {}} ";
    JsonReader reader(view(text));
    QCOMPARE(reader.peek(), JsonReader::Kind::Object);
    QCOMPARE(reader.position(), std::size_t(1)); // peek skips whitespace
    QVERIFY(reader.beginObject());
    std::string key;

    QVERIFY(reader.nextKey(key));
    QCOMPARE(key, std::string("s"));
    QCOMPARE(reader.peek(), JsonReader::Kind::Array);
    QVERIFY(reader.beginArray());
    JsonReader::Number number;
    QVERIFY(reader.nextElement());
    QVERIFY(reader.readNumber(number));
    QCOMPARE(number.type, JsonReader::Number::Type::Unsigned);
    QCOMPARE(number.value, std::uint64_t(1));
    QVERIFY(reader.nextElement());
    QVERIFY(reader.readNumber(number));
    QCOMPARE(number.type, JsonReader::Number::Type::Negative);
    QVERIFY(reader.nextElement());
    QVERIFY(reader.readNumber(number));
    QCOMPARE(number.type, JsonReader::Number::Type::Fraction);
    QVERIFY(!reader.nextElement()); // ']' consumed
    QVERIFY(!reader.failed());

    QVERIFY(reader.nextKey(key));
    QCOMPARE(key, std::string("t"));
    QCOMPARE(reader.peek(), JsonReader::Kind::Bool);
    bool flag = false;
    QVERIFY(reader.readBool(flag));
    QVERIFY(flag);

    QVERIFY(reader.nextKey(key));
    QCOMPARE(reader.peek(), JsonReader::Kind::Null);
    QVERIFY(reader.readNull());

    QVERIFY(reader.nextKey(key));
    QCOMPARE(key, std::string("o"));
    QVERIFY(reader.beginObject());
    QVERIFY(!reader.nextKey(key));
    QVERIFY(!reader.nextKey(key)); // the outer object closes
    QVERIFY(!reader.failed());
    QVERIFY(reader.atEnd());

    // Asking for the wrong kind is an error at the value.
    JsonReader wrong(" [1]");
    std::string text2;
    QVERIFY(!wrong.readString(text2));
    QVERIFY(wrong.failed());
    QCOMPARE(wrong.errorPosition(), std::size_t(1));
}

void tst_JsonReader::depthThroughPullApi()
{
    // The limit counts every container the reader has entered, however it was entered.
    const QByteArray text = nestedArrays(128);
    JsonReader reader(view(text));
    for (int i = 0; i < JsonReader::kMaxDepth; ++i) {
        QVERIFY(reader.beginArray());
        if (i + 1 < JsonReader::kMaxDepth)
            QVERIFY(reader.nextElement());
    }
    QVERIFY(reader.nextElement());
    QVERIFY(!reader.beginArray());
    QCOMPARE(reader.errorPosition(), std::size_t(127));
    QCOMPARE(JsonReader::kMaxDepth, 127);
}

void tst_JsonReader::failureIsSticky()
{
    JsonReader reader("[1,]");
    QVERIFY(!reader.skipValue());
    const std::string first = reader.error();
    const std::size_t where = reader.errorPosition();
    QCOMPARE(reader.peek(), JsonReader::Kind::Invalid);
    QVERIFY(!reader.atEnd());
    QVERIFY(!reader.skipValue());
    QVERIFY(!reader.fail("later", 0));
    QCOMPARE(reader.error(), first); // the first error is the one reported
    QCOMPARE(reader.errorPosition(), where);
}

void tst_JsonReader::invalidUtf8_data()
{
    QTest::addColumn<QByteArray>("bytes");
    QTest::addColumn<qint64>("firstBad"); // Rust's Utf8Error::valid_up_to, or kValid

    const auto row = [](const char *name, const QByteArray &bytes, qint64 firstBad) {
        QTest::newRow(name) << bytes << firstBad;
    };
    // Valid: every length, the edges of each range.
    row("empty", "", kValid);
    row("ASCII", "hello, world", kValid);
    row("U+0080", "\xc2\x80", kValid);
    row("U+07FF", "\xdf\xbf", kValid);
    row("U+0800", "\xe0\xa0\x80", kValid);
    row("U+D7FF", "\xed\x9f\xbf", kValid);
    row("U+E000", "\xee\x80\x80", kValid);
    row("U+FFFF", "\xef\xbf\xbf", kValid);
    row("U+10000", "\xf0\x90\x80\x80", kValid);
    row("emoji", "\xf0\x9f\x98\x80", kValid);
    row("U+10FFFF", "\xf4\x8f\xbf\xbf", kValid);
    row("mixed after a long ASCII run", "abcdefghijklmnop\xc3\xa9xyz\xf0\x9f\x98\x80", kValid);
    row("NUL is valid UTF-8", QByteArray("a\0b", 3), kValid);

    // Invalid: the index of the first byte of the sequence that breaks.
    row("lone continuation", "\x80", 0);
    row("continuation after ASCII", "a\xbf", 1);
    row("overlong C0", "\xc0\xaf", 0);
    row("overlong C1", "\xc1\xbf", 0);
    row("overlong E0 80", "\xe0\x80\x80", 0);
    row("overlong E0 9F", "\xe0\x9f\xbf", 0);
    row("overlong F0 80", "\xf0\x80\x80\x80", 0);
    row("overlong F0 8F", "\xf0\x8f\xbf\xbf", 0);
    row("surrogate ED A0", "\xed\xa0\x80", 0);
    row("surrogate ED BF", "\xed\xbf\xbf", 0);
    row("above U+10FFFF F4 90", "\xf4\x90\x80\x80", 0);
    row("F5 lead", "\xf5\x80\x80\x80", 0);
    row("F8 lead", "\xf8\x88\x80\x80\x80", 0);
    row("FE", "\xfe", 0);
    row("FF", "ab\xff", 2);
    row("truncated two-byte", "\xc3", 0);
    row("truncated three-byte", "ab\xe2\x82", 2);
    row("truncated four-byte", "\xf0\x9f\x98", 0);
    row("two-byte then ASCII",
        "\xc3"
        "A",
        0);
    row("three-byte broken in the middle",
        "\xe2"
        "A\xac",
        0);
    row("three-byte broken at the end",
        "\xe2\x82"
        "A",
        0);
    row("extra continuation", "\xf0\x9f\x98\x80\x80", 4);
    row("after 8 ASCII bytes", "12345678\x80", 8);
    row("after 7 ASCII bytes", "1234567\x80", 7);
    row("after 16 ASCII bytes", "0123456789abcdef\xc0\x80", 16);
    row("after valid multibyte", "\xc3\xa9\xe2\x82\xac\xed\xa0\x80", 5);
}

void tst_JsonReader::invalidUtf8()
{
    QFETCH(QByteArray, bytes);
    QFETCH(qint64, firstBad);

    const std::size_t result = findInvalidUtf8(view(bytes));
    if (firstBad == kValid)
        QCOMPARE(result, std::string_view::npos);
    else
        QCOMPARE(static_cast<qint64>(result), firstBad);

    // The reader checks strings itself and agrees: the same bytes as a JSON string are read
    // whole, as a view of the text, or fail at the same byte. (Control bytes are JSON's own
    // error.)
    if (std::any_of(bytes.begin(), bytes.end(), [](char c) { return static_cast<unsigned char>(c) < 0x20; }))
        return;
    const QByteArray quoted = '"' + bytes + '"';
    const std::string_view text = view(quoted);
    JsonReader reader(text);
    std::string scratch;
    std::string_view read;
    if (firstBad == kValid) {
        QVERIFY2(reader.readString(read, scratch), reader.error().c_str());
        QCOMPARE(static_cast<const void *>(read.data()), static_cast<const void *>(text.data() + 1));
        QCOMPARE(read.size(), static_cast<std::size_t>(bytes.size()));
    } else {
        QVERIFY(!reader.readString(read, scratch));
        QCOMPARE(static_cast<qint64>(reader.errorPosition()), firstBad + 1);
    }
}

QTEST_GUILESS_MAIN(tst_JsonReader)
#include "tst_jsonreader.moc"
