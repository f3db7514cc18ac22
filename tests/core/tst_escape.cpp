// The one escaping of hostile text (core/text/escape.h): what is escaped, in which form, and
// that the result never carries a control character or invalid UTF-8.
#include "core/format/utf8.h"
#include "core/report/report.h"
#include "core/text/escape.h"

#include <QTest>

#include <string>

using namespace stb;

Q_DECLARE_METATYPE(std::string)

namespace {

// True when `text` holds no byte a terminal acts on: valid UTF-8 without C0, DEL, C1 or bidi
// controls.
bool terminalSafe(const std::string &text)
{
    if (findInvalidUtf8(text) != std::string::npos)
        return false;
    for (std::size_t i = 0; i < text.size(); ++i) {
        const auto c = static_cast<unsigned char>(text[i]);
        if (c < 0x20 || c == 0x7F)
            return false;
        if (c == 0xC2 && i + 1 < text.size() && static_cast<unsigned char>(text[i + 1]) <= 0x9F)
            return false;
        if (c == 0xE2 && i + 2 < text.size()) {
            const auto b = static_cast<unsigned char>(text[i + 1]),
                       d = static_cast<unsigned char>(text[i + 2]);
            if ((b == 0x80 && d >= 0xAA && d <= 0xAE) || (b == 0x81 && d >= 0xA6 && d <= 0xA9))
                return false;
        }
    }
    return true;
}

} // namespace

class tst_Escape : public QObject {
    Q_OBJECT

private slots:
    void forms_data()
    {
        QTest::addColumn<std::string>("input");
        QTest::addColumn<std::string>("text");
        QTest::addColumn<std::string>("json");
        auto row = [](const char *name, std::string in, std::string text, std::string json) {
            QTest::newRow(name) << in << text << json;
        };
        row("plain", "model.layers.0.weight", "model.layers.0.weight", "\"model.layers.0.weight\"");
        row("empty", "", "", "\"\"");
        row("ESC sequence", "\x1b]0;T\a\x1b[31m", "\\x1b]0;T\\x07\\x1b[31m",
            "\"\\u001b]0;T\\u0007\\u001b[31m\"");
        row("NUL", std::string("a\0b", 3), "a\\x00b", "\"a\\u0000b\"");
        row("newline and tab", "a\nb\tc", "a\\x0ab\\x09c", "\"a\\nb\\tc\"");
        row("DEL", "a\x7f", "a\\x7f", "\"a\\u007f\"");
        row("C1 CSI U+009B",
            "a\xc2\x9b"
            "31m",
            "a\\xc2\\x9b31m", "\"a\\u009b31m\"");
        row("C1 first U+0080", "\xc2\x80", "\\xc2\\x80", "\"\\u0080\"");
        row("no-break space U+00A0 passes", "\xc2\xa0", "\xc2\xa0", "\"\xc2\xa0\"");
        row("RLO U+202E",
            "abc\xe2\x80\xae"
            "fdp.exe",
            "abc\\xe2\\x80\\xaefdp.exe", "\"abc\\u202efdp.exe\"");
        row("LRE U+202A", "\xe2\x80\xaa", "\\xe2\\x80\\xaa", "\"\\u202a\"");
        row("LRI U+2066", "\xe2\x81\xa6", "\\xe2\\x81\\xa6", "\"\\u2066\"");
        row("PDI U+2069", "\xe2\x81\xa9", "\\xe2\\x81\\xa9", "\"\\u2069\"");
        row("U+202F passes", "\xe2\x80\xaf", "\xe2\x80\xaf", "\"\xe2\x80\xaf\"");
        row("zero-width space U+200B", "lm_head\xe2\x80\x8b.weight", "lm_head\\xe2\\x80\\x8b.weight",
            "\"lm_head\\u200b.weight\"");
        row("line separator U+2028", "a\xe2\x80\xa8", "a\\xe2\\x80\\xa8", "\"a\\u2028\"");
        row("BOM U+FEFF", "\xef\xbb\xbfx", "\\xef\\xbb\\xbfx", "\"\\ufeffx\"");
        row("soft hyphen U+00AD", "a\xc2\xad", "a\\xc2\\xad", "\"a\\u00ad\"");
        row("word joiner U+2060", "\xe2\x81\xa0", "\\xe2\\x81\\xa0", "\"\\u2060\"");
        row("invalid bytes", "bad\xff\xfe", "bad\\xff\\xfe", "\"bad\\ufffd\\ufffd\"");
        row("lone lead byte", "\xe2\x80", "\\xe2\\x80", "\"\\ufffd\\ufffd\"");
        row("overlong slash", "\xc0\xaf", "\\xc0\\xaf", "\"\\ufffd\\ufffd\"");
        row("surrogate", "\xed\xa0\x80", "\\xed\\xa0\\x80", "\"\\ufffd\\ufffd\\ufffd\"");
        row("backslash and quote", "a\\\"b", "a\\\\\\\"b", "\"a\\\\\\\"b\"");
        row("UTF-8 passes", "\xc3\xa9\xe6\x97\xa5\xf0\x9f\x98\x80", "\xc3\xa9\xe6\x97\xa5\xf0\x9f\x98\x80",
            "\"\xc3\xa9\xe6\x97\xa5\xf0\x9f\x98\x80\"");
    }
    void forms()
    {
        QFETCH(std::string, input);
        QFETCH(std::string, text);
        QFETCH(std::string, json);
        QCOMPARE(escapeText(input), text);
        QCOMPARE(escapeJsonString(input), json);
        QVERIFY(terminalSafe(escapeText(input)));
        QVERIFY(terminalSafe(escapeJsonString(input)));
        // A serializer's output made safe in place: safe, and the same string where the input is
        // valid UTF-8 (nlohmann replaces a truncated sequence by one U+FFFD, not one per byte).
        std::string dumped = jsonText(Json(input));
        QVERIFY(terminalSafe(dumped));
        if (findInvalidUtf8(input) == std::string::npos)
            QCOMPARE(Json::parse(dumped).get<std::string>(), Json::parse(json).get<std::string>());
    }

    // Every one- and two-byte input: the output is safe, and escapeText keeps every byte
    // recoverable (unescaping gives the input back).
    void allShortInputs()
    {
        for (int a = 0; a < 256; ++a) {
            for (int b = -1; b < 256; ++b) {
                std::string in(1, static_cast<char>(a));
                if (b >= 0)
                    in += static_cast<char>(b);
                const std::string out = escapeText(in);
                QVERIFY2(terminalSafe(out), out.c_str());
                QVERIFY(terminalSafe(escapeJsonString(in)));
                QCOMPARE(unescape(out), in);
            }
        }
    }

    void jsonControlsInPlace()
    {
        Json j = { { "name\xc2\x9b", "v\xe2\x80\xae\x7f" }, { "ok", "\xc3\xa9" } };
        const std::string text = jsonText(j);
        QVERIFY(terminalSafe(text));
        QCOMPARE(text, std::string("{\"name\\u009b\":\"v\\u202e\\u007f\",\"ok\":\"\xc3\xa9\"}"));
        std::string untouched = "{\"a\":\"\xc3\xa9\"}";
        escapeJsonControls(untouched);
        QCOMPARE(untouched, std::string("{\"a\":\"\xc3\xa9\"}"));
    }

private:
    static std::string unescape(const std::string &text)
    {
        std::string out;
        for (std::size_t i = 0; i < text.size(); ++i) {
            if (text[i] != '\\') {
                out += text[i];
            } else if (text[i + 1] == 'x') {
                out += static_cast<char>(std::stoi(text.substr(i + 2, 2), nullptr, 16));
                i += 3;
            } else {
                out += text[++i];
            }
        }
        return out;
    }
};

QTEST_GUILESS_MAIN(tst_Escape)
#include "tst_escape.moc"
