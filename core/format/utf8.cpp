#include "core/format/utf8.h"

#include <cstdint>

namespace stb {

std::size_t utf8SequenceLength(std::string_view text, std::size_t i)
{
    const auto *s = reinterpret_cast<const unsigned char *>(text.data());
    const std::size_t n = text.size();
    if (i >= n)
        return 0;
    const unsigned char c = s[i];
    if (c < 0x80)
        return 1;
    std::size_t len = 0;
    unsigned char lo = 0x80, hi = 0xBF;
    if (c >= 0xC2 && c <= 0xDF) {
        len = 2;
    } else if (c >= 0xE0 && c <= 0xEF) {
        len = 3;
        if (c == 0xE0)
            lo = 0xA0;
        else if (c == 0xED)
            hi = 0x9F; // no surrogates
    } else if (c >= 0xF0 && c <= 0xF4) {
        len = 4;
        if (c == 0xF0)
            lo = 0x90;
        else if (c == 0xF4)
            hi = 0x8F; // nothing above U+10FFFF
    } else {
        return 0;
    }
    if (len > n - i)
        return 0;
    if (s[i + 1] < lo || s[i + 1] > hi)
        return 0;
    for (std::size_t k = 2; k < len; ++k) {
        if (s[i + k] < 0x80 || s[i + k] > 0xBF)
            return 0;
    }
    return len;
}

std::size_t findInvalidUtf8(std::string_view text)
{
    const auto *s = reinterpret_cast<const unsigned char *>(text.data());
    const std::size_t n = text.size();
    std::size_t i = 0;
    while (i < n) {
        // ASCII fast path, 32 bytes at a time, then 8.
        while (i + 32 <= n) {
            std::uint64_t words[4];
            __builtin_memcpy(words, s + i, 32);
            if ((words[0] | words[1] | words[2] | words[3]) & 0x8080808080808080ull)
                break;
            i += 32;
        }
        while (i + 8 <= n) {
            std::uint64_t word;
            __builtin_memcpy(&word, s + i, 8);
            if (word & 0x8080808080808080ull)
                break;
            i += 8;
        }
        if (i >= n)
            break;
        const std::size_t len = utf8SequenceLength(text, i);
        if (!len)
            return i;
        i += len;
    }
    return std::string_view::npos;
}

char32_t decodeUtf8(const unsigned char *s, std::size_t length)
{
    switch (length) {
    case 1:
        return s[0];
    case 2:
        return (char32_t(s[0] & 0x1F) << 6) | (s[1] & 0x3F);
    case 3:
        return (char32_t(s[0] & 0x0F) << 12) | (char32_t(s[1] & 0x3F) << 6) | (s[2] & 0x3F);
    default:
        return (char32_t(s[0] & 0x07) << 18) | (char32_t(s[1] & 0x3F) << 12) | (char32_t(s[2] & 0x3F) << 6)
            | (s[3] & 0x3F);
    }
}

void appendUtf8(std::string &out, char32_t c)
{
    if (c < 0x80) {
        out += static_cast<char>(c);
    } else if (c < 0x800) {
        out += static_cast<char>(0xC0 | (c >> 6));
        out += static_cast<char>(0x80 | (c & 0x3F));
    } else if (c < 0x10000) {
        out += static_cast<char>(0xE0 | (c >> 12));
        out += static_cast<char>(0x80 | ((c >> 6) & 0x3F));
        out += static_cast<char>(0x80 | (c & 0x3F));
    } else {
        out += static_cast<char>(0xF0 | (c >> 18));
        out += static_cast<char>(0x80 | ((c >> 12) & 0x3F));
        out += static_cast<char>(0x80 | ((c >> 6) & 0x3F));
        out += static_cast<char>(0x80 | (c & 0x3F));
    }
}

} // namespace stb
