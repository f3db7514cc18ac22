#pragma once

// Memory for large buffers (a heatmap summary's cells: 24 MB at 1024×1024) straight from the
// kernel, in 2 MiB-aligned runs marked for transparent huge pages (MADV_HUGEPAGE; Debian's
// default THP mode is "madvise", so nothing else asks for them). A buffer in 4 KiB pages is
// paid for at first touch, one page fault a page: on the virtual machines this runs on, a fault
// cost up to 30 µs, and touching 24 MB took ~200 ms against ~5 ms in huge pages. Small requests
// go to operator new.
#include <cstddef>
#include <new>
#include <utility>

namespace stb {

inline constexpr std::size_t kLargeAllocation = std::size_t(1) << 20; // bytes; below: operator new
inline constexpr std::size_t kHugePage = std::size_t(2) << 20;

// `bytes` of memory: from the kernel, aligned to kHugePage and advised for huge pages, when at
// least kLargeAllocation; else from operator new. Throws std::bad_alloc when none is left.
void *allocateLarge(std::size_t bytes);
// Gives back what allocateLarge(bytes) returned (the same `bytes`).
void releaseLarge(void *p, std::size_t bytes) noexcept;

// A standard allocator over allocateLarge whose default construction leaves a value unwritten
// (vector::resize(n) touches no page): the buffer's pages are first touched where they are
// written, by the workers that fill them, rather than in a pass of their own.
template<typename T> struct LargeAllocator {
    using value_type = T;

    LargeAllocator() = default;
    template<typename U> LargeAllocator(const LargeAllocator<U> &) noexcept { }

    T *allocate(std::size_t n)
    {
        if (n > std::size_t(-1) / sizeof(T))
            throw std::bad_array_new_length();
        return static_cast<T *>(allocateLarge(n * sizeof(T)));
    }
    void deallocate(T *p, std::size_t n) noexcept { releaseLarge(p, n * sizeof(T)); }

    template<typename U> void construct(U *p) noexcept { ::new (static_cast<void *>(p)) U; }
    template<typename U, typename... Args> void construct(U *p, Args &&...args)
    {
        ::new (static_cast<void *>(p)) U(std::forward<Args>(args)...);
    }

    friend bool operator==(const LargeAllocator &, const LargeAllocator &) { return true; }
};

} // namespace stb
