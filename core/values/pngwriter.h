#pragma once

// Pictures as PNG bytes, for `safetensors-inspect heatmap -o`. Written here with zlib (deflate
// and crc32) rather than with Qt's QImage: the CLI then links no QtGui, whose start-up (loading
// and relocating some 30 libraries: X11, EGL, fontconfig, harfbuzz…) cost more than a small
// `check` itself.
#include "core/values/colourscale.h"

#include <cstdint>
#include <span>
#include <string>

namespace stb {

// A PNG of `width` × `height` 8-bit RGB pixels, row by row from the top (pixels.size() must be
// width × height; both at least 1 and below 2^31). Returns the file's bytes; empty when zlib
// fails (it only can for lack of memory). No filtering: the heatmap's rows are short runs of
// equal colours, which deflate packs well as they are.
std::string encodePng(std::span<const Rgb> pixels, std::uint32_t width, std::uint32_t height);

} // namespace stb
