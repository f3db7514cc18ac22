#pragma once

// Code counting's hot loops for the portable kernel family on CPUs with AVX2 (picked per call by
// kernels::avx2::enabled(), so tests can switch them off): 8 lanes where the portable bodies
// (compiled for baseline x86-64) go one value at a time. Each gives exactly what its portable
// counterpart gives.
#include "core/quant/dequantruns.h"

#include <cstddef>
#include <cstdint>

namespace stb::quant::avx2 {

// countedMomentsRun: the same 8 lanes, summed in the same order, so bit for bit the same.
void countedMoments(
    const float *values, const std::uint32_t *counts, std::size_t n, double shift, CountedMoments &m);

// blockNibbleCounts for blocks of a multiple of 32 bytes.
void blockNibbleCounts(
    const std::uint8_t *codes, std::size_t blockBytes, std::size_t blocks, std::uint32_t *tables);

// columnNibbleCounts and slotNibbleCounts over the first columns, a multiple of 8: returns how
// many it counted (the caller counts the rest).
std::size_t columnNibbleCounts(
    const std::byte *words, std::size_t stride, std::size_t rows, std::size_t columns, std::uint32_t *tables);
std::size_t slotNibbleCounts(const std::byte *words, std::size_t stride, std::size_t rows,
    std::size_t columns, std::size_t rowWords, std::uint32_t *tables);

// The bin of each of n floats (a multiple of 8) as the portable statistics kernels find it
// fast (kernels::avx512::binIndices' contract): index[k] in [0, bins) where (v - lo) · scale is
// in range and not within 1/256 of an edge, else `bins`, with k listed in `slow` for the exact
// test. Returns the number of slow values.
std::size_t binIndices(const float *values, std::size_t n, float lo, float hi, float scale, unsigned bins,
    std::uint32_t *index, std::uint32_t *slow);

} // namespace stb::quant::avx2
