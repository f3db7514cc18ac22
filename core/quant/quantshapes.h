#pragma once

#include "core/format/dtype.h"

#include <bit>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace stb::quant {

// Small shape arithmetic shared by recognition and decoding.

// Whether a tensor name ends with a suffix. The last bytes first, in line: recognition asks this
// of every tensor for a dozen suffixes, and a memcmp call for each was a tenth of building the
// quantization view of a 100,000-tensor checkpoint that has no quantized weight at all.
inline bool endsWith(std::string_view s, std::string_view suffix)
{
    return s.size() >= suffix.size() && (suffix.empty() || s.back() == suffix.back())
        && s.substr(s.size() - suffix.size()) == suffix;
}

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

// The group size behind `groups` groups over `count` inputs when no config says: the tools use
// powers of two (a last, shorter group takes the rest), so the power of two that gives that
// many groups, else the even split.
inline std::uint64_t inferGroupSize(std::uint64_t count, std::uint64_t groups)
{
    const std::uint64_t even = ceilDiv(count, groups);
    const std::uint64_t power = even ? std::bit_ceil(even) : 0;
    return power && ceilDiv(count, power) == groups ? power : even;
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
