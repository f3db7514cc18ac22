#pragma once

// Software prefetch for the portable kernels, as the AVX-512 ones do (kernels/avx512.cpp). The
// mapping is in 4 KiB pages and the hardware prefetchers stop at page boundaries, so a scan that
// leaves it to them waits for memory at the start of every page: perf put 84% of the portable
// moments loop's samples on its load. Asking for the bytes a page ahead hides that wait.
#include <algorithm>
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

// Asks for a block of rows (the value kernels' next block, valuescan.h) in address order, a
// few cache lines per step, spread over the steps of the block being read: `rows` rows of
// `width` bytes, rowBytes apart, from `first` (null: nothing). Asking for the next block a
// column chunk at a time instead (the same chunk's line in each row) put the lines asked for in
// the L1 set of the lines being read, since rows 8 KiB apart share a set: 16 lines for 12 ways,
// and the kernel waited on memory at the first row of every chunk. In a standalone driver on a
// busy machine (2 threads, CPU time) the heatmap went from 0.37–0.47 of the raw read's speed to
// 0.51–0.53 in address order.
class BlockPrefetch {
public:
    BlockPrefetch(const std::byte *first, std::size_t rowBytes, std::size_t width, std::size_t rows,
        std::size_t steps)
        : row_(first), rowBytes_(rowBytes), width_(width), rowsLeft_(first && width ? rows : 0)
    {
        const std::size_t lines = rows * ((width + 63) / 64);
        perStep_ = steps ? (lines + steps - 1) / steps : 0;
        if (width == rowBytes) { // rows back to back (a whole row per tile): one run
            width_ *= rows;
            rowsLeft_ = rowsLeft_ ? 1 : 0;
        }
    }

    void step()
    {
        std::size_t lines = perStep_;
        while (lines != 0 && rowsLeft_ != 0) {
            const std::size_t here = std::min(lines, (width_ - offset_ + 63) / 64);
            for (std::size_t i = 0; i < here; ++i)
                __builtin_prefetch(row_ + offset_ + 64 * i, 0, 3);
            offset_ += 64 * here;
            lines -= here;
            if (offset_ >= width_) {
                offset_ = 0;
                row_ += rowBytes_;
                --rowsLeft_;
            }
        }
    }

private:
    const std::byte *row_;
    std::size_t rowBytes_, width_, rowsLeft_, offset_ = 0, perStep_;
};

} // namespace stb::kernels
