#include "core/format/prefault.h"

#include <algorithm>
#include <cstdint>
#include <utility>

#if defined(__linux__)
#include <sys/mman.h>
// Linux 5.14; Debian 12's headers have it, older ones not (the kernel then answers EINVAL).
#ifndef MADV_POPULATE_READ
#define MADV_POPULATE_READ 22
#endif
#endif

namespace stb {

namespace {

// From 64 KiB (16 pages) on: a call costs microseconds, and on a virtual machine so does each
// page fault it saves (20-30 µs under load): the 800 KB lists a 100,000-tensor checkpoint makes
// (an order, a number per tensor) were 200 faults each below the old 1 MiB limit.
constexpr std::size_t kPage = 4096, kWorthIt = std::size_t(64) << 10;

// The whole pages inside [data, data + size) (madvise wants a page-aligned start; a heap
// block's first bytes share a page with other blocks, which must not be touched); empty when
// the range is too small to be worth a call.
std::pair<void *, std::size_t> wholePages(void *data, std::size_t size)
{
    if (size < kWorthIt)
        return { nullptr, 0 };
    const auto begin = (reinterpret_cast<std::uintptr_t>(data) + kPage - 1) & ~(kPage - 1);
    const auto end = (reinterpret_cast<std::uintptr_t>(data) + size) & ~(kPage - 1);
    if (end <= begin)
        return { nullptr, 0 };
    return { reinterpret_cast<void *>(begin), end - begin };
}

} // namespace

void prefaultForReading(const void *data, std::size_t size)
{
#if defined(__linux__)
    if (size < kWorthIt)
        return;
    // Outward to whole pages: reading a neighbour's bytes in the same mapping is harmless, and
    // a mapping's last page is whole in memory (the kernel zero-fills past the end of the file).
    const auto begin = reinterpret_cast<std::uintptr_t>(data) & ~(kPage - 1);
    const auto end = (reinterpret_cast<std::uintptr_t>(data) + size + kPage - 1) & ~(kPage - 1);
    ::madvise(reinterpret_cast<void *>(begin), end - begin, MADV_POPULATE_READ);
#else
    (void)data;
    (void)size;
#endif
}

void prefaultForWriting(void *data, std::size_t size)
{
#if defined(__linux__) && defined(MADV_POPULATE_WRITE)
    const auto [start, length] = wholePages(data, size);
    if (length == 0)
        return;
    ::madvise(start, length, MADV_HUGEPAGE);
    ::madvise(start, length, MADV_POPULATE_WRITE);
#else
    (void)data;
    (void)size;
#endif
}

void adviseHugePages(void *data, std::size_t size)
{
#if defined(__linux__)
    const auto [start, length] = wholePages(data, size);
    if (length == 0)
        return;
    ::madvise(start, length, MADV_HUGEPAGE);
#if defined(MADV_POPULATE_WRITE)
    // The pages before the first 2 MiB boundary cannot be part of a huge page: up to 512 faults
    // of 4 KiB, at once instead.
    constexpr std::uintptr_t kHuge = std::uintptr_t(1) << 21;
    const auto first = reinterpret_cast<std::uintptr_t>(start);
    const std::size_t head = std::min<std::size_t>(length, ((first + kHuge - 1) & ~(kHuge - 1)) - first);
    if (head != 0)
        ::madvise(start, head, MADV_POPULATE_WRITE);
#endif
#else
    (void)data;
    (void)size;
#endif
}

} // namespace stb
