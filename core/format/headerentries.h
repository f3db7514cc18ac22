#pragma once

// A header's tensor entries as the JSON reader finds them, before any becomes a TensorInfo.
#include "core/format/dtype.h"

#include <cstdint>
#include <deque>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace stb {

// One entry: TensorInfo's fields, with the name a view and the shape a run of
// HeaderEntries::dims.
struct TensorEntry {
    std::string_view name;
    std::uint64_t begin = 0;
    std::uint64_t end = 0;
    std::uint64_t headerOffset = 0; // absolute file offset of the entry's key
    std::uint32_t firstDim = 0; // dims fit 32 bits: a header of 100,000,000 bytes holds fewer
    std::uint32_t dimCount = 0;
    DType dtype = DType::F32;

    std::uint64_t byteLength() const { return end >= begin ? end - begin : 0; }
};

// The entries of one header. Names view the header's text (which must outlive this), or
// escapedNames for the rare name written with escapes; the shapes lie end to end in `dims`. So
// reading 100,000 entries allocates nothing per entry: parseHeader validates these, then builds
// Header::tensors from them; checkHeader (`check`) validates them and stops there.
struct HeaderEntries {
    std::vector<TensorEntry> tensors;
    std::vector<std::uint64_t> dims;
    std::deque<std::string> escapedNames; // a deque: growing it moves no string

    std::span<const std::uint64_t> shape(const TensorEntry &entry) const
    {
        return { dims.data() + entry.firstDim, entry.dimCount };
    }
};

// Product of a shape (1 for a scalar); nullopt when it overflows 64 bits.
std::optional<std::uint64_t> shapeElementCount(std::span<const std::uint64_t> shape);

} // namespace stb
