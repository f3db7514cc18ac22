#pragma once

#include "core/io/fileextents.h"
#include "core/format/tensorinfo.h"

#include <QString>

#include <cstdint>
#include <optional>
#include <span>
#include <vector>

namespace stb {

class SafetensorsFile;

// What the hex view says about the byte under its cursor. Free functions over core data so that
// tests check the arithmetic without a widget.

// The element of `tensor` whose bits hold the first bit of byte `byteInTensor` (relative to the
// tensor's first byte), with its row-major coordinates. For sub-byte dtypes the index comes from
// the bit offset (F4: two elements per byte, F6: four per three bytes). nullopt past the last
// element or when the shape's element count overflows.
struct ElementPosition {
    std::uint64_t index = 0;
    std::vector<std::uint64_t> coordinates;
};
std::optional<ElementPosition> elementAtByte(const TensorInfo &tensor, std::uint64_t byteInTensor);

// "[1, 2, 3]"
QString coordinatesText(const std::vector<std::uint64_t> &coordinates);

// The element decoded in the tensor's dtype at full precision (formatElement: the shortest
// digits that read back as the same value, exact for 16-bit floats) followed by its raw code,
// "0.0223388671875 (bf16 0x3cb7)". Reads at most 8 bytes with pread. nullopt when its bytes are
// past the end of the file or could not be read (the file shrank under us: `unreadable` is set).
std::optional<QString> elementValueText(
    const SafetensorsFile &file, const TensorInfo &tensor, std::uint64_t index, bool *unreadable = nullptr);

// "0x3cb7": a raw code in as many hex digits as the dtype has nibbles.
QString codeText(DType dtype, std::uint64_t code);

// What the hex view says about one byte, in two parts so the value gets a line of its own and
// is never cut by a long tensor name: where the byte is, and (inside a tensor) which element.
struct ByteDescription {
    QString location; // "offset 0x40 (64) — region: tensor NAME (F32)"
    QString element; // "element [0, 1] = 1.5 (f32 0x3fc00000)"; empty outside tensors
};

// `preferred` (the selected tensor) names the bytes when it holds them, else the extent at
// `offset` does. With `readBytes` false (a stale file) nothing is read and no value is given.
ByteDescription describeByte(const SafetensorsFile &file, std::span<const Extent> extents,
    const TensorInfo *preferred, std::uint64_t offset, bool readBytes, bool *unreadable = nullptr);

// What an extent of the layout map is, for its tooltip: a tensor's name, dtype, shape, byte
// range and size; a hole's or an overlap's range and the tensors involved.
QString describeExtent(const Header &header, const Extent &extent);

} // namespace stb
