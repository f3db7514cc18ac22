#include "core/text/escape.h"

#include "core/format/utf8.h"

#include <cstdint>

namespace stb {

namespace {

constexpr char kHex[] = "0123456789abcdef";

// Characters a terminal or a renderer acts on instead of showing, and invisible ones that make
// two different names look the same (`lm_head\u200b.weight` beside `lm_head.weight`).
bool isControl(char32_t c)
{
    return c < 0x20 || (c >= 0x7F && c <= 0x9F) || c == 0xAD || c == 0x61C || c == 0x180E
        || (c >= 0x200B && c <= 0x200F) || (c >= 0x2028 && c <= 0x202E) || (c >= 0x2060 && c <= 0x2069)
        || c == 0xFEFF || (c >= 0xFFF9 && c <= 0xFFFB);
}

// True for a byte that is certainly printable ASCII needing no escape: the fast path.
bool plainAscii(unsigned char c)
{
    return c >= 0x20 && c < 0x7F && c != '\\' && c != '"';
}

void appendHexByte(std::string &out, unsigned char c)
{
    out += "\\x";
    out += kHex[c >> 4];
    out += kHex[c & 15];
}

void appendUnicodeEscape(std::string &out, char32_t c)
{
    out += "\\u";
    for (int shift = 12; shift >= 0; shift -= 4)
        out += kHex[(c >> shift) & 15];
}

// Walks `text`: runs of bytes for which plain(byte) holds are copied as they are; every other
// character goes to onChar(out, codePoint, bytes), with kInvalid as the code point of a byte
// that does not start valid UTF-8 (then `bytes` is that one byte).
constexpr char32_t kInvalid = 0xFFFFFFFF;

template<typename Plain, typename OnChar>
void walk(std::string_view text, std::string &out, Plain plain, OnChar onChar)
{
    const auto *s = reinterpret_cast<const unsigned char *>(text.data());
    std::size_t i = 0;
    while (i < text.size()) {
        const std::size_t start = i;
        while (i < text.size() && plain(s[i]))
            ++i;
        out.append(text.substr(start, i - start));
        if (i >= text.size())
            break;
        const std::size_t len = utf8SequenceLength(text, i);
        if (len == 0) {
            onChar(out, kInvalid, text.substr(i, 1));
            ++i;
            continue;
        }
        onChar(out, decodeUtf8(s + i, len), text.substr(i, len));
        i += len;
    }
}

} // namespace

std::string escapeText(std::string_view text)
{
    std::string out;
    out.reserve(text.size());
    walk(text, out, plainAscii, [](std::string &out, char32_t c, std::string_view bytes) {
        if (c == '\\' || c == '"') {
            out += '\\';
            out += static_cast<char>(c);
        } else if (c == kInvalid || isControl(c)) {
            for (char b : bytes)
                appendHexByte(out, static_cast<unsigned char>(b));
        } else {
            out.append(bytes);
        }
    });
    return out;
}

std::string escapeJsonString(std::string_view text)
{
    std::string out;
    out.reserve(text.size() + 2);
    out += '"';
    walk(text, out, plainAscii, [](std::string &out, char32_t c, std::string_view bytes) {
        switch (c) {
        case kInvalid:
            out += "\\ufffd";
            break;
        case '"':
            out += "\\\"";
            break;
        case '\\':
            out += "\\\\";
            break;
        case '\b':
            out += "\\b";
            break;
        case '\f':
            out += "\\f";
            break;
        case '\n':
            out += "\\n";
            break;
        case '\r':
            out += "\\r";
            break;
        case '\t':
            out += "\\t";
            break;
        default:
            if (isControl(c))
                appendUnicodeEscape(out, c);
            else
                out.append(bytes);
        }
    });
    out += '"';
    return out;
}

void escapeJsonControls(std::string &json)
{
    const auto *s = reinterpret_cast<const unsigned char *>(json.data());
    std::size_t i = 0;
    // Most output needs nothing: copy only from the first character that does.
    for (; i < json.size(); ++i) {
        if (s[i] >= 0x7F) {
            const std::size_t len = utf8SequenceLength(json, i);
            if (len == 0 || isControl(decodeUtf8(s + i, len)))
                break;
            i += len - 1;
        }
    }
    if (i == json.size())
        return;
    std::string out(json, 0, i);
    out.reserve(json.size() + 16);
    // JSON's own syntax and C0 (escaped by the serializer) are ASCII: only the rest is looked at.
    walk(
        std::string_view(json).substr(i), out, [](unsigned char c) { return c < 0x7F; },
        [](std::string &out, char32_t c, std::string_view bytes) {
            if (c == kInvalid)
                out += "\\ufffd";
            else if (isControl(c))
                appendUnicodeEscape(out, c);
            else
                out.append(bytes);
        });
    json = std::move(out);
}

} // namespace stb
