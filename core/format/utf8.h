#pragma once

#include <cstddef>
#include <string_view>

namespace stb {

// Index of the first byte that breaks strict UTF-8 (as Rust's str::from_utf8 sees it: no
// overlong forms, no surrogates, nothing above U+10FFFF), or npos when the text is valid.
std::size_t findInvalidUtf8(std::string_view text);

} // namespace stb
