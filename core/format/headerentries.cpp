#include "core/format/headerentries.h"

namespace stb {

std::optional<std::uint64_t> shapeElementCount(std::span<const std::uint64_t> shape)
{
    std::uint64_t count = 1;
    for (std::uint64_t dim : shape) {
        if (dim != 0 && count > UINT64_MAX / dim)
            return std::nullopt;
        count *= dim;
    }
    return count;
}

} // namespace stb
