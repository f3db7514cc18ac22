#pragma once

// Tensor data for the values suites, as the format stores it. Header-only and apart from
// testfiles.h, which every suite includes.
#include "core/format/dtype.h"

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <vector>

namespace stb::test {

// Floats, little-endian (the platforms we run on).
inline std::vector<std::byte> floatBytes(const std::vector<float> &values)
{
    std::vector<std::byte> out(values.size() * sizeof(float));
    if (!values.empty())
        std::memcpy(out.data(), values.data(), out.size());
    return out;
}

// Codes of any dtype packed as element i in bits [i·w, (i+1)·w) (sub-byte dtypes share bytes).
inline std::vector<std::byte> packCodes(DType dtype, const std::vector<std::uint64_t> &codes)
{
    const unsigned w = dtypeBits(dtype);
    std::vector<std::byte> bytes((codes.size() * w + 7) / 8);
    for (std::size_t i = 0; i < codes.size(); ++i) {
        for (unsigned b = 0; b < w; ++b) {
            if ((codes[i] >> b) & 1) {
                const std::size_t bit = i * w + b;
                bytes[bit / 8] |= std::byte(1u << (bit % 8));
            }
        }
    }
    return bytes;
}

} // namespace stb::test
