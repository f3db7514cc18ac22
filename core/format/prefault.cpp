#include "core/format/prefault.h"

#include <cstdint>

#if defined(__linux__)
#include <sys/mman.h>
#endif

namespace stb {

void prefaultForWriting(void *data, std::size_t size)
{
#if defined(__linux__) && defined(MADV_POPULATE_WRITE)
    constexpr std::size_t kPage = 4096, kWorthIt = std::size_t(1) << 20;
    if (size < kWorthIt)
        return;
    // madvise wants a page-aligned start: the whole pages inside the range (a heap block's first
    // bytes share a page with other blocks, which must not be touched).
    const auto begin = (reinterpret_cast<std::uintptr_t>(data) + kPage - 1) & ~(kPage - 1);
    const auto end = (reinterpret_cast<std::uintptr_t>(data) + size) & ~(kPage - 1);
    if (end <= begin)
        return;
    void *start = reinterpret_cast<void *>(begin);
    ::madvise(start, end - begin, MADV_HUGEPAGE);
    ::madvise(start, end - begin, MADV_POPULATE_WRITE);
#else
    (void)data;
    (void)size;
#endif
}

} // namespace stb
