#pragma once

// Software prefetch for the portable kernels, as the AVX-512 ones do (kernels/avx512.cpp). The
// mapping is in 4 KiB pages and the hardware prefetchers stop at page boundaries, so a scan that
// leaves it to them waits for memory at the start of every page: perf put 84% of the portable
// moments loop's samples on its load. Asking for the bytes a page ahead hides that wait.
#include <cstddef>

namespace stb::kernels {

inline constexpr std::size_t kPrefetchAhead = 4096; // bytes ahead of the one being read

// Asks for the cache lines of [p + kPrefetchAhead, p + kPrefetchAhead + bytes). A prefetch never
// faults, so the range may run past the end of the mapping.
inline void prefetchAhead(const std::byte *p, std::size_t bytes)
{
    for (std::size_t offset = 0; offset < bytes; offset += 64)
        __builtin_prefetch(p + kPrefetchAhead + offset, 0, 3);
}

// Asks for the cache line at p in each of `rows` rows rowBytes apart (the value kernels' next
// block of rows, valuescan.h).
inline void prefetchRows(const std::byte *p, std::size_t rowBytes, std::size_t rows)
{
    for (std::size_t r = 0; r < rows; ++r)
        __builtin_prefetch(p + r * rowBytes, 0, 3);
}

} // namespace stb::kernels
