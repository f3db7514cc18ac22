#include "core/format/tensorinfo.h"

namespace stb {

std::optional<std::uint64_t> TensorInfo::elementCount() const
{
    std::uint64_t count = 1;
    for (std::uint64_t dim : shape) {
        if (dim != 0 && count > UINT64_MAX / dim)
            return std::nullopt;
        count *= dim;
    }
    return count;
}

std::optional<std::uint64_t> TensorInfo::expectedBytes() const
{
    const auto count = elementCount();
    return count ? bytesForElements(dtype, *count) : std::nullopt;
}

} // namespace stb
