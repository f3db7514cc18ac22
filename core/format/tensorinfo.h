#pragma once

#include "core/format/dtype.h"

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace stb {

// One tensor entry of a header. Offsets are the header's data_offsets: relative to the start of
// the data region, END exclusive. They are what the file claims, not checked against its size.
struct TensorInfo {
    std::string name;
    DType dtype = DType::F32;
    std::vector<std::uint64_t> shape;
    std::uint64_t begin = 0;
    std::uint64_t end = 0;
    std::uint64_t headerOffset = 0; // absolute file offset of the entry's key in the header

    // Product of the shape (1 for a scalar); nullopt when it overflows 64 bits.
    std::optional<std::uint64_t> elementCount() const;
    // Bytes the dtype and shape call for; nullopt on overflow or a partial byte.
    std::optional<std::uint64_t> expectedBytes() const;
    std::uint64_t byteLength() const { return end >= begin ? end - begin : 0; }
};

} // namespace stb
