#pragma once

#include <string>
#include <string_view>

namespace stb {

// The one escaping of text that comes from a file or a path (tensor names, metadata, shard
// names, paths, bytes quoted in messages) before it reaches a terminal, a log or a label.
//
// Escaped, each byte as `\xNN` (two lowercase hex digits):
//   - C0 controls U+0000–U+001F and DEL U+007F,
//   - C1 controls U+0080–U+009F (U+009B is a one-byte CSI on many terminals),
//   - bidirectional embeddings, overrides and isolates U+202A–U+202E and U+2066–U+2069, and the
//     marks U+200E, U+200F and U+061C,
//   - invisible characters that make different names look alike or break lines: soft hyphen
//     U+00AD, U+180E, zero-width U+200B–U+200D, line and paragraph separators U+2028–U+2029,
//     U+2060–U+2065, U+FEFF and the interlinear annotations U+FFF9–U+FFFB,
//   - every byte that is not part of valid UTF-8 (strict: no overlong forms, no surrogates).
// A backslash becomes `\\` and a double quote `\"`, so a name can sit inside quotes and the
// original bytes can always be recovered. Everything else (printable ASCII, other valid UTF-8)
// passes unchanged. The result is valid UTF-8 with no control character. Pure; any thread.
std::string escapeText(std::string_view text);

// `text` as a JSON string literal, quotes included. The same characters as escapeText are
// escaped, as `\uXXXX` (C0 with JSON's short forms \b \f \n \r \t, then `\"` and `\\`); each
// byte of invalid UTF-8 becomes `\ufffd` (a JSON string is Unicode: the raw byte cannot be
// kept). The result is ASCII-safe for a terminal and valid JSON. Pure; any thread.
std::string escapeJsonString(std::string_view text);

// Makes JSON text produced by a serializer that escapes only C0 (nlohmann's dump with
// ensure_ascii off and error_handler replace) as safe as escapeJsonString: DEL, C1 and bidi
// controls become `\uXXXX` in place, and any invalid UTF-8 byte `\ufffd`. These characters can
// only occur inside strings (JSON's own syntax is ASCII), so the text stays valid JSON.
void escapeJsonControls(std::string &json);

} // namespace stb
