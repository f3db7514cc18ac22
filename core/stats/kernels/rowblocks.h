#pragma once

// The loop over rows both explicit-SIMD families of addRowsToColumns share (valuescanavx2.cpp,
// valuescanavx512.cpp): all rows, block after block (kRowBlock rows read as sequential streams,
// the next block asked for meanwhile), then the columns after the last whole group of vectors by
// the scalar definition. Family holds the file's kernels as static members:
//   kColumns                              columns one block call covers at a time
//   interleaved<D>()                      whether the running values of D are kept interleaved
//   reorder<ToInterleaved>(n, lo, hi, sum) the first n columns' running values to or from that order
//   addBlock<D>(p, rowBytes, rows, n, lo, hi, sum, next, fresh)   one block over the first n columns
// Plain code: the work is in the family's functions, compiled for its instruction set.
#include "core/stats/kernels/valuescan.h"

#include <algorithm>

namespace stb::kernels {

template<class Family, DType D>
bool addRowsInBlocks(const std::byte *p, std::size_t rowBytes, std::size_t rows, std::size_t n, float *lo,
    float *hi, double *sum, bool fresh)
{
    constexpr std::size_t size = D == DType::F32 ? 4 : 2;
    if (rows == 0) {
        if (fresh)
            startColumns(n, lo, hi, sum);
        return true;
    }
    const std::size_t whole = n / Family::kColumns * Family::kColumns;
    if (Family::template interleaved<D>() && !fresh)
        Family::template reorder<true>(whole, lo, hi, sum);
    bool finite = true;
    for (std::size_t r = 0; r < rows; r += kRowBlock) {
        const std::size_t block = std::min(kRowBlock, rows - r);
        const std::byte *q = p + r * rowBytes;
        const std::byte *next = r + block < rows ? q + block * rowBytes : nullptr;
        finite &= Family::template addBlock<D>(q, rowBytes, block, whole, lo, hi, sum, next, fresh && r == 0);
    }
    if (Family::template interleaved<D>())
        Family::template reorder<false>(whole, lo, hi, sum);
    if (fresh)
        startColumns(n - whole, lo + whole, hi + whole, sum + whole);
    return addRowsToColumnsScalar(D, p + size * whole, rowBytes, rows, n - whole, lo + whole, hi + whole,
               sum + whole)
        && finite;
}

} // namespace stb::kernels
