#include "core/io/headerbytes.h"

#include "core/format/header.h"
#include "core/format/prefault.h"

#include <algorithm>

namespace stb {

std::span<const std::byte> headerPrefix(const MappedFile &file)
{
    const std::span<const std::byte> bytes = file.bytes();
    // The length prefix (little-endian), then the header it announces, at most the reference's
    // limit: past it, only the prefix (parseHeader then says why).
    std::size_t want = std::min<std::size_t>(bytes.size(), 8);
    if (want == 8) {
        std::uint64_t n = 0;
        for (int i = 7; i >= 0; --i)
            n = (n << 8) | std::to_integer<std::uint64_t>(bytes[static_cast<std::size_t>(i)]);
        if (n <= kMaxHeaderLength)
            want = static_cast<std::size_t>(std::min<std::uint64_t>(bytes.size(), 8 + n));
    }
    const std::span<const std::byte> prefix = bytes.first(want);
    prefaultForReading(prefix.data(), prefix.size());
    return prefix;
}

} // namespace stb
