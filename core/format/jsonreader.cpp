#include "core/format/jsonreader.h"

#include "core/format/jsonnumber.h"
#include "core/format/utf8.h"
#include "core/text/escape.h"

#include <bit>
#include <cstdint>
#include <cstring>
#include <string>

namespace stb {

namespace {

bool isWhitespace(char c) { return c == ' ' || c == '\n' || c == '\t' || c == '\r'; }
bool isDigit(char c) { return c >= '0' && c <= '9'; }

int hexValue(char c)
{
    if (c >= '0' && c <= '9')
        return c - '0';
    if (c >= 'a' && c <= 'f')
        return c - 'a' + 10;
    if (c >= 'A' && c <= 'F')
        return c - 'A' + 10;
    return -1;
}

} // namespace

JsonReader::JsonReader(std::string_view text)
    : m_text(text)
{
}

bool JsonReader::fail(std::string message, std::size_t pos)
{
    if (!m_failed) {
        m_failed = true;
        m_error = std::move(message);
        m_errorPos = pos;
    }
    return false;
}

void JsonReader::skipWhitespace()
{
    while (m_pos < m_text.size() && isWhitespace(m_text[m_pos]))
        ++m_pos;
}

JsonReader::Kind JsonReader::peek()
{
    if (m_failed)
        return Kind::Invalid;
    skipWhitespace();
    if (m_pos >= m_text.size())
        return Kind::Invalid;
    switch (m_text[m_pos]) {
    case '{':
        return Kind::Object;
    case '[':
        return Kind::Array;
    case '"':
        return Kind::String;
    case 't':
    case 'f':
        return Kind::Bool;
    case 'n':
        return Kind::Null;
    default:
        return (m_text[m_pos] == '-' || isDigit(m_text[m_pos])) ? Kind::Number : Kind::Invalid;
    }
}

bool JsonReader::expect(char c, const char *what)
{
    skipWhitespace();
    if (m_pos < m_text.size() && m_text[m_pos] == c) {
        ++m_pos;
        return true;
    }
    if (m_pos >= m_text.size())
        return fail(std::string("the JSON ends where ") + what + " was expected", m_pos);
    // The character quoted whole (one byte when it is not valid UTF-8), escaped: it is hostile.
    const std::size_t length = std::max<std::size_t>(1, utf8SequenceLength(m_text, m_pos));
    return fail(std::string("expected ") + what + " but found '" + escapeText(m_text.substr(m_pos, length)) + "'",
                m_pos);
}

bool JsonReader::enterContainer(char open)
{
    if (m_failed)
        return false;
    skipWhitespace();
    if (m_pos >= m_text.size() || m_text[m_pos] != open)
        return fail(open == '{' ? "expected a JSON object" : "expected a JSON array", m_pos);
    if (static_cast<int>(m_open.size()) >= kMaxDepth)
        return fail("JSON nested deeper than 127 levels (the reference parser's limit)", m_pos);
    ++m_pos;
    m_open.push_back({open == '{', true});
    return true;
}

bool JsonReader::beginObject() { return enterContainer('{'); }
bool JsonReader::beginArray() { return enterContainer('['); }

bool JsonReader::advance(std::string_view *key, std::string *scratch)
{
    if (m_failed || m_open.empty())
        return false;
    Open &open = m_open.back();
    const char close = open.object ? '}' : ']';
    skipWhitespace();
    if (m_pos < m_text.size() && m_text[m_pos] == close) {
        ++m_pos;
        m_open.pop_back();
        return false;
    }
    if (open.first) {
        open.first = false;
    } else {
        if (!expect(',', open.object ? "',' or '}'" : "',' or ']'"))
            return false;
        skipWhitespace();
        if (m_pos < m_text.size() && m_text[m_pos] == close)
            return fail(open.object ? "trailing comma in an object" : "trailing comma in an array",
                        m_pos);
    }
    if (!open.object)
        return true;
    if (m_pos >= m_text.size() || m_text[m_pos] != '"')
        return fail(m_pos >= m_text.size() ? "the JSON ends inside an object"
                                           : "expected a string key",
                    m_pos);
    if (!scanString(key, scratch))
        return false;
    // The usual "key": with nothing between: no call for the colon.
    if (m_pos < m_text.size() && m_text[m_pos] == ':') {
        ++m_pos;
        return true;
    }
    return expect(':', "':'");
}

namespace {

// A string read as `view` (into the text, or into `out` itself when decoded there) left in `out`.
bool keepIn(std::string &out, std::string_view view)
{
    if (view.data() != out.data())
        out.assign(view);
    return true;
}

} // namespace

bool JsonReader::nextKey(std::string &key)
{
    std::string_view view;
    return nextKey(view, key) && keepIn(key, view);
}

bool JsonReader::nextKey(std::string_view &key, std::string &scratch)
{
    if (m_open.empty() || !m_open.back().object)
        return fail("internal: nextKey outside an object", m_pos);
    return advance(&key, &scratch);
}

bool JsonReader::nextElement()
{
    if (m_open.empty() || m_open.back().object)
        return fail("internal: nextElement outside an array", m_pos);
    return advance(nullptr, nullptr);
}

bool JsonReader::readString(std::string &out)
{
    std::string_view view;
    return readString(view, out) && keepIn(out, view);
}

bool JsonReader::readString(std::string_view &out, std::string &scratch)
{
    if (m_failed)
        return false;
    skipWhitespace();
    if (m_pos >= m_text.size() || m_text[m_pos] != '"')
        return fail("expected a string", m_pos);
    return scanString(&out, &scratch);
}

namespace {

// The first byte at or after `i` that ends a plain ASCII run inside a JSON string: '"', '\\', a
// control character or a byte of a multi-byte character (the size of the text when there is
// none). Eight bytes a step: names of 40 bytes and more, byte by byte, were the tokenizer's
// largest cost.
std::size_t findStringSpecial(std::string_view text, std::size_t i)
{
    const char *s = text.data();
    const std::size_t n = text.size();
    if constexpr (std::endian::native == std::endian::little) {
        constexpr std::uint64_t kOnes = 0x0101010101010101ull, kHighs = 0x8080808080808080ull;
        for (; i + 8 <= n; i += 8) {
            std::uint64_t word;
            std::memcpy(&word, s + i, 8);
            // A byte of x is zero: (x - 1) & ~x sets its high bit. Borrows only run upwards from
            // a byte that is a hit, so the lowest flagged byte is the first hit.
            const std::uint64_t quote = word ^ (kOnes * '"');
            const std::uint64_t backslash = word ^ (kOnes * '\\');
            const std::uint64_t hits = (((quote - kOnes) & ~quote) | ((backslash - kOnes) & ~backslash)
                                           | ((word - kOnes * 0x20) & ~word) | word)
                & kHighs;
            if (hits)
                return i + static_cast<std::size_t>(std::countr_zero(hits)) / 8;
        }
    }
    while (i < n && s[i] != '"' && s[i] != '\\' && static_cast<unsigned char>(s[i]) >= 0x20
        && static_cast<unsigned char>(s[i]) < 0x80)
        ++i;
    return i;
}

} // namespace

bool JsonReader::scanString(std::string_view *view, std::string *scratch)
{
    const std::size_t start = m_pos;
    ++m_pos; // opening quote
    // Most strings hold no escape: they are the bytes between the quotes. Their multi-byte
    // characters are checked here (see the class comment).
    std::size_t special = m_pos;
    while (true) {
        special = findStringSpecial(m_text, special);
        if (special >= m_text.size() || static_cast<unsigned char>(m_text[special]) < 0x80)
            break;
        const std::size_t length = utf8SequenceLength(m_text, special);
        if (length == 0)
            return fail("invalid UTF-8 in a string", special);
        special += length;
    }
    if (special < m_text.size() && m_text[special] == '"') {
        if (view)
            *view = m_text.substr(m_pos, special - m_pos);
        m_pos = special + 1;
        return true;
    }
    std::string *out = view ? scratch : nullptr;
    if (out)
        out->clear();
    std::size_t runStart = m_pos;
    m_pos = special;
    auto flush = [&] {
        if (out)
            out->append(m_text.data() + runStart, m_pos - runStart);
    };
    while (true) {
        if (m_pos >= m_text.size())
            return fail("unterminated string", start);
        const char c = m_text[m_pos];
        if (c == '"') {
            flush();
            ++m_pos;
            if (view)
                *view = *out;
            return true;
        }
        if (static_cast<unsigned char>(c) < 0x20)
            return fail("control character inside a string", m_pos);
        if (static_cast<unsigned char>(c) >= 0x80) {
            const std::size_t length = utf8SequenceLength(m_text, m_pos);
            if (length == 0)
                return fail("invalid UTF-8 in a string", m_pos);
            m_pos += length;
            continue;
        }
        if (c != '\\') {
            ++m_pos;
            continue;
        }
        flush();
        const std::size_t escape = m_pos;
        ++m_pos;
        if (m_pos >= m_text.size())
            return fail("unterminated string", start);
        const char e = m_text[m_pos++];
        char simple = 0;
        switch (e) {
        case '"': simple = '"'; break;
        case '\\': simple = '\\'; break;
        case '/': simple = '/'; break;
        case 'b': simple = '\b'; break;
        case 'f': simple = '\f'; break;
        case 'n': simple = '\n'; break;
        case 'r': simple = '\r'; break;
        case 't': simple = '\t'; break;
        case 'u': break;
        default:
            return fail("invalid escape in a string", escape);
        }
        if (simple) {
            if (out)
                *out += simple;
            runStart = m_pos;
            continue;
        }
        auto readHex4 = [&](std::uint32_t &v) {
            if (m_pos + 4 > m_text.size())
                return fail("truncated \\u escape", escape);
            v = 0;
            for (int i = 0; i < 4; ++i) {
                const int h = hexValue(m_text[m_pos + i]);
                if (h < 0)
                    return fail("invalid \\u escape", escape);
                v = v * 16 + static_cast<std::uint32_t>(h);
            }
            m_pos += 4;
            return true;
        };
        std::uint32_t cp = 0;
        if (!readHex4(cp))
            return false;
        if (cp >= 0xDC00 && cp <= 0xDFFF)
            return fail("lone trailing surrogate in a \\u escape", escape);
        if (cp >= 0xD800 && cp <= 0xDBFF) {
            if (m_pos + 2 > m_text.size() || m_text[m_pos] != '\\' || m_text[m_pos + 1] != 'u')
                return fail("lone leading surrogate in a \\u escape", escape);
            m_pos += 2;
            std::uint32_t low = 0;
            if (!readHex4(low))
                return false;
            if (low < 0xDC00 || low > 0xDFFF)
                return fail("lone leading surrogate in a \\u escape", escape);
            cp = 0x10000 + ((cp - 0xD800) << 10) + (low - 0xDC00);
        }
        if (out)
            appendUtf8(*out, cp);
        runStart = m_pos;
    }
}

bool JsonReader::readNumber(Number &out)
{
    if (m_failed)
        return false;
    skipWhitespace();
    return scanNumber(&out);
}

bool JsonReader::scanNumber(Number *out)
{
    const std::size_t start = m_pos;
    const std::size_t n = m_text.size();
    bool negative = false;
    if (m_pos < n && m_text[m_pos] == '-') {
        negative = true;
        ++m_pos;
    }
    if (m_pos >= n || !isDigit(m_text[m_pos]))
        return fail("invalid number", start);
    std::uint64_t value = 0;
    bool overflow = false;
    if (m_text[m_pos] == '0') {
        ++m_pos;
        if (m_pos < n && isDigit(m_text[m_pos]))
            return fail("invalid number (leading zero)", start);
    } else {
        while (m_pos < n && isDigit(m_text[m_pos])) {
            const std::uint64_t digit = static_cast<std::uint64_t>(m_text[m_pos] - '0');
            if (value > (UINT64_MAX - digit) / 10)
                overflow = true;
            else
                value = value * 10 + digit;
            ++m_pos;
        }
    }
    bool fraction = false;
    if (m_pos < n && m_text[m_pos] == '.') {
        fraction = true;
        ++m_pos;
        if (m_pos >= n || !isDigit(m_text[m_pos]))
            return fail("invalid number (no digit after '.')", start);
        while (m_pos < n && isDigit(m_text[m_pos]))
            ++m_pos;
    }
    if (m_pos < n && (m_text[m_pos] == 'e' || m_text[m_pos] == 'E')) {
        fraction = true;
        ++m_pos;
        if (m_pos < n && (m_text[m_pos] == '+' || m_text[m_pos] == '-'))
            ++m_pos;
        if (m_pos >= n || !isDigit(m_text[m_pos]))
            return fail("invalid number (no digit in the exponent)", start);
        while (m_pos < n && isDigit(m_text[m_pos]))
            ++m_pos;
    }
    const std::string_view token = m_text.substr(start, m_pos - start);
    if ((fraction || overflow) && serdeNumberOverflows(token))
        return fail("number out of range", start);
    if (out) {
        if (fraction || overflow)
            *out = {Number::Type::Fraction, 0};
        else if (negative)
            *out = {Number::Type::Negative, 0};
        else
            *out = {Number::Type::Unsigned, value};
    }
    return true;
}

bool JsonReader::scanLiteral(std::string_view word)
{
    if (m_text.substr(m_pos, word.size()) != word)
        return fail("invalid literal", m_pos);
    m_pos += word.size();
    return true;
}

bool JsonReader::readBool(bool &out)
{
    if (peek() != Kind::Bool)
        return fail("expected true or false", m_pos);
    out = m_text[m_pos] == 't';
    return scanLiteral(out ? "true" : "false");
}

bool JsonReader::readNull()
{
    if (peek() != Kind::Null)
        return fail("expected null", m_pos);
    return scanLiteral("null");
}

bool JsonReader::skipValue()
{
    // Iterative: the only stack is m_open, bounded by kMaxDepth.
    const std::size_t baseDepth = m_open.size();
    while (true) {
        switch (peek()) {
        case Kind::Object:
            if (!beginObject())
                return false;
            break;
        case Kind::Array:
            if (!beginArray())
                return false;
            break;
        case Kind::String:
            if (!scanString(nullptr, nullptr))
                return false;
            break;
        case Kind::Number:
            if (!scanNumber(nullptr))
                return false;
            break;
        case Kind::Bool:
            if (!scanLiteral(m_text[m_pos] == 't' ? "true" : "false"))
                return false;
            break;
        case Kind::Null:
            if (!scanLiteral("null"))
                return false;
            break;
        case Kind::Invalid:
            return fail(m_pos >= m_text.size() ? "the JSON ends where a value was expected"
                                               : "expected a JSON value",
                        m_pos);
        }
        // Find the next value to read, closing finished containers on the way up.
        while (m_open.size() > baseDepth) {
            if (advance(nullptr, nullptr))
                break;
            if (m_failed)
                return false;
        }
        if (m_open.size() == baseDepth)
            return true;
    }
}

std::string_view JsonReader::upcomingText()
{
    if (m_failed)
        return {};
    skipWhitespace();
    return m_text.substr(m_pos);
}

bool JsonReader::atEnd()
{
    if (m_failed)
        return false;
    skipWhitespace();
    if (m_pos != m_text.size())
        return fail("trailing characters after the JSON value", m_pos);
    return true;
}

bool isJsonContainerText(std::string_view text)
{
    const auto first = text.find_first_not_of(" \t\r\n");
    if (first == std::string_view::npos || (text[first] != '{' && text[first] != '['))
        return false;
    if (findInvalidUtf8(text) != std::string_view::npos)
        return false;
    JsonReader probe(text);
    return probe.skipValue() && probe.atEnd();
}

} // namespace stb
