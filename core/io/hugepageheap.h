#pragma once

#include <cstddef>

namespace stb {

// Puts this process's small allocations on transparent huge pages, what glibc's tunables
// `glibc.malloc.hugetlb=1:glibc.malloc.arena_max=1` do, from inside the program (tunables are
// read from the environment before main, too late for a program to set its own).
//
// Why: opening a checkpoint of 100,000 tensors allocates a name and a shape for each, ~10 MB in
// small blocks on fresh heap. Each 4 KiB page of it is paid for by a page fault at first touch,
// and on the virtual machines this runs on a fault cost 5–30 µs: ~3,000 of them were most of
// the time from the click to a painted tree. In 2 MiB pages they are a few dozen.
//
// How: one malloc arena (threads' blocks come from the main heap, the one region advised: the
// opening job runs on a pool thread); blocks up to 32 MiB from the heap rather than their own
// 4 KiB-page mappings; the heap grown and kept `reserve` bytes ahead of its use, and the grown
// part advised MADV_HUGEPAGE. The first call sets all that (call it at the start of main, before
// any thread exists); later calls advise heap grown since (cheap: call it before large jobs).
// A no-op outside glibc on Linux, and under AddressSanitizer (whose allocator replaces malloc). Memory is only a hint's worth more: untouched reserve is not
// resident, and what a huge page holds beyond its blocks is at most 2 MiB a page.
void useHugePagesForTheHeap(std::size_t reserve = std::size_t(64) << 20);

} // namespace stb
