#pragma once

#include "core/format/header.h"

#include <cstddef>
#include <cstdint>
#include <span>
#include <vector>

namespace stb {

class SafetensorsFile;

// A run of bytes of a file and what occupies it. Offsets are absolute, END exclusive.
struct Extent {
    enum class Kind {
        LengthPrefix, // the 8-byte little-endian header length
        Header, // the header JSON, up to its closing brace
        Padding, // whitespace after the closing brace, inside the announced header length
        Tensor, // bytes one tensor alone claims
        Hole, // data-region bytes before or between tensors that no tensor claims
        Overlap, // bytes two or more tensors claim
        Trailing, // bytes after the last tensor's end
        Missing, // bytes claimed (by the length prefix or a tensor) past the end of the file
    } kind;
    std::uint64_t begin = 0;
    std::uint64_t end = 0;
    std::ptrdiff_t tensor = -1; // index in Header::tensors (Tensor, Overlap, Missing)
    std::ptrdiff_t otherTensor = -1; // Overlap: a second tensor claiming the bytes

    std::uint64_t size() const { return end - begin; }
    bool operator==(const Extent &) const = default;
};

// Describes a whole file in file order. The extents inside the file tile [0, fileSize) without
// gaps or overlaps: a tensor that shares bytes with another shows as Tensor pieces around an
// Overlap piece. Zero-byte tensors appear as empty Tensor extents at their offset. Missing
// extents follow, sorted by begin, for bytes claimed past the end (they may overlap each other
// and are not contiguous). `headerBytes` are the file's first bytes (offset 0 on); the padding
// is found only when they reach the end of the header, otherwise all of it counts as Header.
// Pure and total: any Header, even of a broken file, gives a description. O(n log n) in tensors.
std::vector<Extent> fileExtents(const Header &header, std::span<const std::byte> headerBytes);

// The same for an open file; reads only the header's tail (under the SIGBUS guard) to find the
// padding. Safe to call from any thread.
std::vector<Extent> fileExtents(const SafetensorsFile &file);

// Index of the extent holding byte `offset` (empty extents never do), or -1. `extents` as
// returned by fileExtents; O(log n).
std::ptrdiff_t extentAt(std::span<const Extent> extents, std::uint64_t offset);

} // namespace stb
