#pragma once

#include "core/format/utf8.h" // findInvalidUtf8: JSON text must be valid UTF-8 first

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace stb {

// A strict pull reader for JSON text that accepts exactly what serde_json (the reference
// implementation's parser) accepts: RFC 8259 grammar, no trailing commas, no control characters
// in strings, paired UTF-16 surrogates only, numbers that fit a double, and at most 127 levels of
// nesting (serde_json's recursion limit). Unlike a DOM parser it keeps duplicate keys visible
// and knows the byte position of everything, which the diagnostics need.
//
// Strings are checked for valid UTF-8 as they are read (an error if not); outside strings the
// grammar admits ASCII alone. So text read to its end without an error is valid UTF-8 and a
// caller need not check it first; one that must report bad UTF-8 before any JSON error (the
// reference checks it first) checks the whole text when the reader fails. No recursion: deep
// input cannot exhaust the stack.
// After the first error every call fails; error() and errorPosition() tell what and where.
class JsonReader {
public:
    enum class Kind { Object, Array, String, Number, Bool, Null, Invalid };

    struct Number {
        enum class Type { Unsigned, Negative, Fraction } type = Type::Unsigned;
        std::uint64_t value = 0; // the value for Unsigned; 0 otherwise
    };

    explicit JsonReader(std::string_view text);

    // Kind of the next value (skips whitespace); Invalid at the end of the text or a bad byte.
    Kind peek();
    std::size_t position() const { return m_pos; }

    bool beginObject();
    // Reads the next key of the innermost object into `key`; false when the object closed
    // (the '}' is consumed) or on error.
    bool nextKey(std::string &key);
    // The same, without a copy: `key` views the text when the key has no escape, or else the
    // decoded key in `scratch`. A view into the text lives as long as the text; one into
    // `scratch`, until `scratch` changes. (A 100,000-tensor header has 400,000 keys.)
    bool nextKey(std::string_view &key, std::string &scratch);
    bool beginArray();
    // True when another element follows; false when the array closed (']' consumed) or on error.
    bool nextElement();

    bool readString(std::string &out);
    // A string as a view, as nextKey(std::string_view &, std::string &) gives keys.
    bool readString(std::string_view &out, std::string &scratch);
    bool readNumber(Number &out);
    bool readBool(bool &out);
    bool readNull();
    // Reads and validates one value of any kind, keeping nothing.
    bool skipValue();
    // For a caller that reads a common form of a value straight from the text: the text from
    // the next value on (whitespace skipped; empty after an error). It then hands the bytes of
    // one whole value it read, and checked as this reader would, to consumeValue (never part
    // of a value: which containers are open must stay right).
    std::string_view upcomingText();
    void consumeValue(std::size_t length) { m_pos += length; }
    // True when only whitespace remains (serde_json's end-of-input check).
    bool atEnd();

    bool failed() const { return m_failed; }
    const std::string &error() const { return m_error; }
    std::size_t errorPosition() const { return m_errorPos; }
    // Marks the reader failed with a message of the caller's (a semantic error at `pos`).
    bool fail(std::string message, std::size_t pos);

    static constexpr int kMaxDepth = 127;

private:
    void skipWhitespace();
    bool expect(char c, const char *what);
    bool enterContainer(char open);
    // Reads the string at m_pos. With `view`, it receives the string (a view into the text, or
    // into `*scratch` when escapes had to be decoded; `scratch` is then required). Without, the
    // string is only checked.
    bool scanString(std::string_view *view, std::string *scratch);
    bool scanNumber(Number *out);
    bool scanLiteral(std::string_view word);

    std::string_view m_text;
    std::size_t m_pos = 0;
    struct Open {
        bool object; // '{' rather than '['
        bool first;  // no member read yet
    };
    // The next key (object; `key` and `scratch` as in scanString) or element (array) of the
    // innermost container.
    bool advance(std::string_view *key, std::string *scratch);
    std::vector<Open> m_open;       // the containers entered and not yet closed
    bool m_failed = false;
    std::string m_error;
    std::size_t m_errorPos = 0;
};

// Whether `text` is one JSON object or array (with surrounding whitespace) that this reader
// accepts: at most 127 levels deep. Check this before handing text to a recursive consumer such
// as a DOM parser or a tree widget: a metadata value may legally hold "[[[[...]]]]" a million
// levels deep.
bool isJsonContainerText(std::string_view text);

} // namespace stb
