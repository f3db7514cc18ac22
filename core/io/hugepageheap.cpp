#include "core/io/hugepageheap.h"

#include "core/io/largealloc.h"

#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <mutex>

#if defined(__linux__) && defined(__GLIBC__)
#include <malloc.h>
#include <sys/mman.h>
#include <unistd.h>
#endif

namespace stb {

#if defined(__has_feature)
#if __has_feature(address_sanitizer)
#define STB_HEAP_NOT_GLIBCS 1
#endif
#endif
#if defined(__SANITIZE_ADDRESS__)
#define STB_HEAP_NOT_GLIBCS 1 // AddressSanitizer's allocator replaces malloc
#endif

#if defined(__linux__) && defined(__GLIBC__) && defined(MADV_HUGEPAGE) && defined(M_ARENA_MAX) \
    && !defined(STB_HEAP_NOT_GLIBCS)

namespace {

std::uintptr_t alignUp(std::uintptr_t p) { return (p + kHugePage - 1) & ~(kHugePage - 1); }

std::uintptr_t currentBreak() { return reinterpret_cast<std::uintptr_t>(::sbrk(0)); }

// The heap's free top starts where the last block in use ends, rarely on a 2 MiB boundary: the
// rest of that huge page's range holds blocks in use, so it can only be faulted in 4 KiB pages
// (512 faults). Blocks taken from the top are placed after one another, so one block that fills
// it to the boundary, kept for good, starts what follows on a fresh huge page. It costs address
// space only: its pages are not touched. Returns that boundary (0 if malloc failed).
std::uintptr_t skipToHugePageBoundary()
{
    constexpr std::size_t kProbe = std::size_t(256) << 10; // above any free block this early
    auto *const probe = static_cast<std::byte *>(std::malloc(kProbe));
    if (!probe)
        return 0;
    const auto at = reinterpret_cast<std::uintptr_t>(probe);
    std::free(probe);
    // A block's header takes 16 bytes before it: the next block after ours starts at its end.
    constexpr std::size_t kHeader = 2 * sizeof(std::size_t);
    const std::size_t fill = alignUp(at) - at;
    if (fill > 4 * kHeader) {
        void *volatile keep = std::malloc(fill - kHeader);
        (void)keep;
    }
    return alignUp(at);
}

} // namespace

void useHugePagesForTheHeap(std::size_t reserve)
{
    static std::mutex mutex;
    static std::uintptr_t advisedUpTo = 0; // the heap below this was advised (0: not set up)
    const std::lock_guard lock(mutex);
    if (!advisedUpTo) {
        ::mallopt(M_ARENA_MAX, 1);
        ::mallopt(M_MMAP_THRESHOLD, 32 << 20); // glibc's largest
        ::mallopt(M_TOP_PAD, static_cast<int>(reserve));
        const std::uintptr_t boundary = skipToHugePageBoundary();
        advisedUpTo = boundary ? boundary : alignUp(currentBreak());
    }
    // Keep `reserve` ahead: when less than a quarter is left free at the heap's top, ask for a
    // block larger than that top, which malloc can only place by growing the heap (by the block
    // and the pad); freed, it goes back to the top, which keeps the pad.
    // (volatile: a compiler may drop a malloc whose block is only freed.)
    if (const std::size_t top = ::mallinfo2().keepcost; top < reserve / 4) {
        void *volatile block = std::malloc(top + (std::size_t(1) << 20));
        std::free(block);
    }
    // Only whole huge pages: the heap's start and end are rarely on a 2 MiB boundary.
    const std::uintptr_t end = currentBreak() & ~(kHugePage - 1);
    if (end > advisedUpTo
        && ::madvise(reinterpret_cast<void *>(advisedUpTo), end - advisedUpTo, MADV_HUGEPAGE) == 0)
        advisedUpTo = end;
}

#else

void useHugePagesForTheHeap(std::size_t) { }

#endif

} // namespace stb
