#pragma once

#include "core/io/mappedfile.h"

#include <cstddef>
#include <cstdint>
#include <span>

namespace stb {

// Below this a scanned range keeps its pages: the system calls of a release cost more than the
// pages are worth.
inline constexpr std::uint64_t kWorthReleasing = 1ull << 20;

// A one-pass scan (audit, diff) is done with `scanned`, bytes of `file`'s mapping (a tensor's
// bytes): when the range is worth it, its pages go (MappedFile::releaseScanned), so scanning
// checkpoints larger than memory leaves the page cache to others. A span outside the mapping is
// ignored.
inline void releaseScannedBytes(const MappedFile &file, std::span<const std::byte> scanned)
{
    const std::span<const std::byte> all = file.bytes();
    if (scanned.size() < kWorthReleasing || scanned.data() < all.data()
        || scanned.data() + scanned.size() > all.data() + all.size())
        return;
    file.releaseScanned(static_cast<std::uint64_t>(scanned.data() - all.data()), scanned.size());
}

} // namespace stb
