#pragma once

#include <cstddef>
#include <string>
#include <string_view>

namespace stb {

// Index of the first byte that breaks strict UTF-8 (as Rust's str::from_utf8 sees it: no
// overlong forms, no surrogates, nothing above U+10FFFF), or npos when the text is valid.
std::size_t findInvalidUtf8(std::string_view text);

// Length (1–4) of the strictly valid UTF-8 sequence starting at text[i], or 0 when the bytes
// there do not start one (or i is past the end). Same rules as findInvalidUtf8.
std::size_t utf8SequenceLength(std::string_view text, std::size_t i);

// The code point of the valid sequence of `length` bytes at `s` (a length utf8SequenceLength gave).
char32_t decodeUtf8(const unsigned char *s, std::size_t length);
// Appends code point `c` (at most U+10FFFF) to `out` as UTF-8.
void appendUtf8(std::string &out, char32_t c);

} // namespace stb
