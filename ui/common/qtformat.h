#pragma once

#include <QString>

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace stb {

// Text at the Qt boundary: core speaks UTF-8 std::string and 64-bit integers, widgets speak
// QString in the user's locale. One place so that every pane prints numbers the same way.

inline QString toQString(std::string_view text)
{
    return QString::fromUtf8(text.data(), static_cast<qsizetype>(text.size()));
}
// "1,234,567" with the locale's group separators; never truncated to int.
QString countText(std::uint64_t value);
// A count that fits a narrow column: exact below a million ("524,288"), else one decimal and
// a short-scale suffix ("16.8 M", "235.0 B", "1.2 T"), the way model cards give parameters.
// Show the exact countText beside it (a tooltip) where the digits matter.
QString compactCountText(std::uint64_t value);
// "1.5 MiB" (IEC units), with the exact byte count for small values.
QString sizeText(std::uint64_t bytes);
// "0x1A2B (6,699)": an offset as a hex editor shows it, with its decimal.
QString offsetText(std::uint64_t offset);
// "1 tensor", "1,024 tensors": English nouns until the program is translated.
QString countNoun(std::uint64_t count, const QString &singular, const QString &plural);
// "[4096, 4096]"
QString shapeText(const std::vector<std::uint64_t> &shape);
// A path as a QString that keeps every byte, and back (core/text/pathbytes.h): a file named
// "bad\xff.safetensors" reaches Checkpoint::open as it is. Not for display: use toQString.
QString pathToQString(std::string_view path);
std::string pathFromQString(const QString &path);
// A name from a file as a label shows it: control and bidi characters escaped (\x1b, \u202e),
// at most `maxChars` characters (then cut with "…"), so a hostile name neither lays out
// megabytes, breaks lines nor reorders the text around it.
QString shownName(std::string_view name, qsizetype maxChars = 120);
// `text` with those characters escaped, at most `maxChars` characters of the result (`cut` says
// whether more would have followed).
QString escapedControls(const QString &text, qsizetype maxChars, bool *cut = nullptr);

} // namespace stb
