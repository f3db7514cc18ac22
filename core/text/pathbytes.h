#pragma once

#include <string>
#include <string_view>

namespace stb {

// A path on Linux is bytes, not text: a file may be called "bad\xff\xfe.safetensors". These
// carry such bytes through UTF-16 (a QString: the command line parser, widgets, settings) and
// back without losing one, the way Python's "surrogateescape" does. Decoding turns valid UTF-8
// into its characters and each byte that does not start valid UTF-8 into the lone surrogate
// U+DC80 + byte; encoding turns those surrogates back into their bytes and everything else into
// UTF-8. So pathFromUtf16(pathToUtf16(b)) == b for any bytes b. (QFile::encodeName/decodeName
// replace such bytes by U+FFFD for good.) Pure; any thread.
std::u16string pathToUtf16(std::string_view bytes);
// The bytes of `text`: U+DC80–U+DCFF as the byte they stand for, other lone surrogates as
// U+FFFD, the rest as UTF-8.
std::string pathFromUtf16(std::u16string_view text);

} // namespace stb
