#pragma once

#include <cstddef>
#include <cstdint>
#include <span>
#include <string>
#include <string_view>

namespace stb {

// Text helpers shared by the CLI and the GUI, so both print the same words.

// "[4096, 4096]"; "[]" for a scalar. A shape of more than kShownDimensions dimensions (a hostile
// file's: a million of them made a 3 MB message) shows its first ones and how many there are:
// "[1, 1, …] (1,000,000 dimensions)".
inline constexpr std::size_t kShownDimensions = 32;
std::string formatShape(std::span<const std::uint64_t> shape);
// "1,234,567"
std::string formatCount(std::uint64_t value);
// "1.5 GiB", "512 B" (binary units, one decimal)
std::string formatBytes(std::uint64_t bytes);
// Text from a file or a path, safe to print (inside quotes too): escapeText (escape.h), so C0,
// DEL, C1, bidi controls and invalid UTF-8 become \xNN, and '\\' and '"' are backslashed. Text
// longer than kPrintableBytes (a path is at most 4096) shows its first bytes and its length:
// model.layers… (1,048,576 bytes): a table line never grows with a hostile name or value.
// JSON output keeps whole strings (escapeJsonString).
inline constexpr std::size_t kPrintableBytes = 4096;
std::string printable(std::string_view text);
// A name (tensor, key, shard) for a message: printable() in double quotes, and when longer than
// kQuotedNameBytes only its first bytes (cut at a character boundary) and its length:
// "model.layers…" (1,048,576 bytes). A message never grows with the names it holds.
inline constexpr std::size_t kQuotedNameBytes = 200;
std::string quotedName(std::string_view name);

} // namespace stb
