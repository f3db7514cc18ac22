#pragma once

#include "core/format/dtype.h"

#include <cstdint>
#include <string>
#include <vector>

namespace stb::quant {

// Small shape arithmetic shared by recognition and decoding.

inline bool isFloatScale(DType d)
{
    return d == DType::F32 || d == DType::F16 || d == DType::BF16;
}

// Product of a shape, saturating at UINT64_MAX.
inline std::uint64_t product(const std::vector<std::uint64_t> &shape)
{
    std::uint64_t n = 1;
    for (auto d : shape)
        n = d && n > UINT64_MAX / d ? UINT64_MAX : n * d;
    return n;
}

inline std::uint64_t ceilDiv(std::uint64_t a, std::uint64_t b)
{
    return b ? a / b + (a % b != 0) : 0;
}

// "[a, b]" for messages.
inline std::string shapeText(const std::vector<std::uint64_t> &shape)
{
    std::string s = "[";
    for (std::size_t i = 0; i < shape.size(); ++i)
        s += (i ? ", " : "") + std::to_string(shape[i]);
    return s + "]";
}

} // namespace stb::quant
