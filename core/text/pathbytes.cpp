#include "core/text/pathbytes.h"

#include "core/format/utf8.h"

namespace stb {

namespace {

constexpr char16_t kEscapeBase = 0xDC80; // U+DC80 + byte, for bytes 0x80–0xFF

} // namespace

std::u16string pathToUtf16(std::string_view bytes)
{
    const auto *s = reinterpret_cast<const unsigned char *>(bytes.data());
    std::u16string out;
    out.reserve(bytes.size());
    std::size_t i = 0;
    while (i < bytes.size()) {
        const std::size_t length = utf8SequenceLength(bytes, i);
        if (length == 0) { // never ASCII: those always decode
            out += static_cast<char16_t>(kEscapeBase + (s[i] - 0x80));
            ++i;
            continue;
        }
        const char32_t c = decodeUtf8(s + i, length);
        if (c < 0x10000) {
            out += static_cast<char16_t>(c);
        } else {
            out += static_cast<char16_t>(0xD800 + ((c - 0x10000) >> 10));
            out += static_cast<char16_t>(0xDC00 + ((c - 0x10000) & 0x3FF));
        }
        i += length;
    }
    return out;
}

std::string pathFromUtf16(std::u16string_view text)
{
    std::string out;
    out.reserve(text.size());
    for (std::size_t i = 0; i < text.size(); ++i) {
        const char16_t u = text[i];
        if (u >= 0xD800 && u <= 0xDBFF && i + 1 < text.size() && text[i + 1] >= 0xDC00
            && text[i + 1] <= 0xDFFF) {
            appendUtf8(out, 0x10000 + ((static_cast<char32_t>(u) - 0xD800) << 10) + (text[i + 1] - 0xDC00));
            ++i;
        } else if (u >= kEscapeBase && u <= kEscapeBase + 0x7F) {
            out += static_cast<char>(0x80 + (u - kEscapeBase));
        } else if (u >= 0xD800 && u <= 0xDFFF) {
            appendUtf8(out, 0xFFFD); // a lone surrogate that stands for no byte
        } else {
            appendUtf8(out, u);
        }
    }
    return out;
}

} // namespace stb
