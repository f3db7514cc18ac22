#include "core/io/largealloc.h"

#include <cstdint>

#include <sys/mman.h>

namespace stb {

namespace {

std::size_t hugePages(std::size_t bytes)
{
    return (bytes + kHugePage - 1) / kHugePage * kHugePage;
}

} // namespace

void *allocateLarge(std::size_t bytes)
{
    if (bytes < kLargeAllocation)
        return ::operator new(bytes);
    const std::size_t length = hugePages(bytes);
    // One huge page more than needed, so that an aligned run fits; the ends are given back.
    void *mapped = ::mmap(nullptr, length + kHugePage, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (mapped == MAP_FAILED)
        throw std::bad_alloc();
    const auto start = reinterpret_cast<std::uintptr_t>(mapped);
    const std::uintptr_t aligned = (start + kHugePage - 1) / kHugePage * kHugePage;
    if (aligned > start)
        ::munmap(mapped, aligned - start);
    if (const std::uintptr_t end = start + length + kHugePage; end > aligned + length)
        ::munmap(reinterpret_cast<void *>(aligned + length), end - aligned - length);
    void *p = reinterpret_cast<void *>(aligned);
#ifdef MADV_HUGEPAGE
    ::madvise(p, length, MADV_HUGEPAGE); // a hint: without THP the pages are 4 KiB, no error
#endif
    return p;
}

void releaseLarge(void *p, std::size_t bytes) noexcept
{
    if (!p)
        return;
    if (bytes < kLargeAllocation) {
        ::operator delete(p);
        return;
    }
    ::munmap(p, hugePages(bytes));
}

} // namespace stb
