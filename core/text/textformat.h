#pragma once

#include <cstdint>
#include <span>
#include <string>
#include <string_view>

namespace stb {

// Text helpers shared by the CLI and the GUI, so both print the same words.

// "[4096, 4096]"; "[]" for a scalar.
std::string formatShape(std::span<const std::uint64_t> shape);
// "1,234,567"
std::string formatCount(std::uint64_t value);
// "1.5 GiB", "512 B" (binary units, one decimal)
std::string formatBytes(std::uint64_t bytes);
// A name safe to print inside quotes: control characters and '"' escaped as in JSON.
std::string printable(std::string_view text);

} // namespace stb
