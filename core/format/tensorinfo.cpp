#include "core/format/tensorinfo.h"

#include "core/format/headerentries.h"

namespace stb {

std::optional<std::uint64_t> TensorInfo::elementCount() const
{
    return shapeElementCount(shape);
}

std::optional<std::uint64_t> TensorInfo::expectedBytes() const
{
    const auto count = elementCount();
    return count ? bytesForElements(dtype, *count) : std::nullopt;
}

} // namespace stb
