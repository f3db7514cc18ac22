// libFuzzer entry for the text escaper (core/text/escape.h, in the format library): any bytes
// must come out as valid UTF-8 with no C0, DEL, C1 or bidi control, escapeText must keep every
// byte recoverable, and the JSON forms must agree with each other.
#include "core/format/utf8.h"
#include "core/text/escape.h"

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

namespace {

void requireSafe(const std::string &text, bool allowC0)
{
    if (stb::findInvalidUtf8(text) != std::string_view::npos)
        __builtin_trap();
    const auto *s = reinterpret_cast<const unsigned char *>(text.data());
    for (std::size_t i = 0; i < text.size(); ++i) {
        if ((!allowC0 && s[i] < 0x20) || s[i] == 0x7F)
            __builtin_trap();
        if (s[i] == 0xC2 && i + 1 < text.size() && s[i + 1] <= 0x9F)
            __builtin_trap();
        if (s[i] == 0xE2 && i + 2 < text.size()
            && ((s[i + 1] == 0x80 && s[i + 2] >= 0xAA && s[i + 2] <= 0xAE)
                || (s[i + 1] == 0x81 && s[i + 2] >= 0xA6 && s[i + 2] <= 0xA9)))
            __builtin_trap();
    }
}

// Inverse of escapeText: \xNN is a byte, \\ and \" the character.
std::string unescape(const std::string &text)
{
    std::string out;
    for (std::size_t i = 0; i < text.size(); ++i) {
        if (text[i] != '\\') {
            out += text[i];
            continue;
        }
        if (i + 1 >= text.size())
            __builtin_trap();
        if (text[i + 1] == 'x') {
            if (i + 3 >= text.size())
                __builtin_trap();
            out += static_cast<char>(std::stoi(text.substr(i + 2, 2), nullptr, 16));
            i += 3;
        } else {
            out += text[++i];
        }
    }
    return out;
}

} // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t *data, std::size_t size)
{
    const std::string_view input(reinterpret_cast<const char *>(data), size);
    const std::string text = stb::escapeText(input);
    requireSafe(text, false);
    if (unescape(text) != input)
        __builtin_trap();

    std::string json = stb::escapeJsonString(input);
    requireSafe(json, false);
    if (json.size() < 2 || json.front() != '"' || json.back() != '"')
        __builtin_trap();
    // Already safe: making it safe again changes nothing.
    const std::string before = json;
    stb::escapeJsonControls(json);
    if (json != before)
        __builtin_trap();

    // Any text: only C0 may remain (a serializer escapes those itself).
    std::string raw(input);
    stb::escapeJsonControls(raw);
    requireSafe(raw, true);
    return 0;
}
