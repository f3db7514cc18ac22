#pragma once

#include "core/io/mappedfile.h"

#include <cstddef>
#include <cstdint>
#include <span>
#include <vector>

namespace stb {

// A one-pass scan's hold on a range of a mapping (a tensor's bytes), so that scanning checkpoints
// larger than memory leaves the page cache to others without evicting what was there before.
// Made before the scan, it notes which pages were already cached (MappedFile::residentPages);
// release() after the scan gives back only the pages the scan brought in. Ranges shorter than
// kWorthReleasing are left alone: the system calls cost more than their pages are worth.
class ScannedPages {
public:
    static constexpr std::uint64_t kWorthReleasing = 1ull << 20;

    ScannedPages() = default;
    ScannedPages(const MappedFile &file, std::span<const std::byte> range)
    {
        const std::span<const std::byte> all = file.bytes();
        if (range.size() < kWorthReleasing || range.data() < all.data()
            || range.data() + range.size() > all.data() + all.size())
            return; // small, or not in this mapping
        m_file = &file;
        m_offset = static_cast<std::uint64_t>(range.data() - all.data());
        m_length = range.size();
        m_residentBefore = file.residentPages(m_offset, m_length);
    }

    void release() const
    {
        if (m_file)
            m_file->releaseScanned(m_offset, m_length, m_residentBefore);
    }

private:
    const MappedFile *m_file = nullptr;
    std::uint64_t m_offset = 0, m_length = 0;
    std::vector<unsigned char> m_residentBefore; // one byte per page
};

} // namespace stb
