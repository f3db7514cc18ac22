#include "core/text/textformat.h"

#include "core/text/escape.h"

#include <algorithm>
#include <cstdio>

namespace stb {

std::string formatShape(std::span<const std::uint64_t> shape)
{
    std::string out = "[";
    const std::size_t shown = std::min(shape.size(), kShownDimensions);
    for (std::size_t i = 0; i < shown; ++i) {
        if (i)
            out += ", ";
        out += std::to_string(shape[i]);
    }
    if (shown < shape.size())
        return out + ", \u2026] (" + formatCount(shape.size()) + " dimensions)";
    out += ']';
    return out;
}

std::string formatCount(std::uint64_t value)
{
    std::string digits = std::to_string(value);
    std::string out;
    out.reserve(digits.size() + digits.size() / 3);
    for (std::size_t i = 0; i < digits.size(); ++i) {
        if (i && (digits.size() - i) % 3 == 0)
            out += ',';
        out += digits[i];
    }
    return out;
}

std::string formatBytes(std::uint64_t bytes)
{
    static const char *const units[] = {"B", "KiB", "MiB", "GiB", "TiB", "PiB", "EiB"};
    if (bytes < 1024)
        return std::to_string(bytes) + " B";
    double value = static_cast<double>(bytes);
    int unit = 0;
    while (value >= 1024.0 && unit < 6) {
        value /= 1024.0;
        ++unit;
    }
    char buffer[32];
    std::snprintf(buffer, sizeof buffer, "%.1f %s", value, units[unit]);
    return buffer;
}

namespace {

// The first `limit` bytes of `text`, cut back to a character boundary (never inside a UTF-8
// sequence).
std::string_view headOf(std::string_view text, std::size_t limit)
{
    std::size_t cut = limit;
    while (cut > 0 && (static_cast<unsigned char>(text[cut]) & 0xC0) == 0x80)
        --cut;
    return text.substr(0, cut);
}

} // namespace

std::string printable(std::string_view text)
{
    // The one escaping of hostile text (escape.h): C0, DEL, C1, bidi controls and invalid UTF-8
    // as \xNN, so no message or table carries a terminal control from a file; and at most
    // kPrintableBytes of it, so no line carries megabytes of a name or a metadata value.
    if (text.size() <= kPrintableBytes)
        return escapeText(text);
    return escapeText(headOf(text, kPrintableBytes)) + "\u2026 (" + formatCount(text.size()) + " bytes)";
}

std::string quotedName(std::string_view name)
{
    if (name.size() <= kQuotedNameBytes)
        return '"' + printable(name) + '"';
    return '"' + printable(headOf(name, kQuotedNameBytes)) + "\u2026\" (" + formatCount(name.size())
        + " bytes)";
}

} // namespace stb
