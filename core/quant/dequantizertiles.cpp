// Dequantizer, part four: rectangles of the logical matrix for the value grid and the heatmap,
// as stored or transposed. Row by row they are decode()'s runs; AWQ, whose 8 values in a packed
// word belong to 8 different logical rows, is unpacked a word at a time for all 8.
#include "core/quant/dequantizer.h"

#include "core/quant/valueloads.h"

#include <algorithm>
#include <array>

namespace stb {

using namespace quant;

namespace {

// AWQ: nibble slot s of a word holds output column 8·(o/8) + kAwqOrder[s] (AutoAWQ's order_map).
constexpr unsigned kAwqOrder[8] = { 0, 2, 4, 6, 1, 3, 5, 7 };
constexpr std::uint64_t kRowRun = 1024; // values of one row decoded at a time when scattering

} // namespace

void Dequantizer::decodeTile(std::uint64_t row0, std::uint64_t rows, std::uint64_t col0, std::uint64_t cols,
    float *out, std::uint64_t rowStride, std::uint64_t colStride) const
{
    if (rows == 0 || cols == 0)
        return;
    if (m_scheme == QuantScheme::Awq) {
        awqTile(row0, rows, col0, cols, out, rowStride, colStride);
        return;
    }
    std::array<float, kRowRun> run;
    for (std::uint64_t r = 0; r < rows; ++r) {
        const std::uint64_t first = (row0 + r) * m_cols + col0;
        float *row = out + r * rowStride;
        if (colStride == 1) {
            decode(first, cols, row);
            continue;
        }
        for (std::uint64_t c = 0; c < cols; c += kRowRun) {
            const std::uint64_t n = std::min(kRowRun, cols - c);
            decode(first + c, n, run.data());
            for (std::uint64_t k = 0; k < n; ++k)
                row[(c + k) * colStride] = run[k];
        }
    }
}

// qweight [in, out/8]: logical row o (an output) of column i (an input) is nibble slot s of word
// (i, o/8) where kAwqOrder[s] == o % 8. Inputs go in runs of 8 inside one group, so each
// output row's 8 values of a run fill one cache line; the words of a run are read in memory
// order, each once, and the scales and zeros are converted once per group.
void Dequantizer::awqTile(std::uint64_t row0, std::uint64_t rows, std::uint64_t col0, std::uint64_t cols,
    float *out, std::uint64_t rowStride, std::uint64_t colStride) const
{
    // Runs under the SIGBUS guard: fixed arrays on the stack, nothing owned. Words of a stored
    // row are taken kWords at a time (8·kWords logical rows), inputs kInputs at a time inside a
    // group: a run's words of one word column are gathered once, then each of their 8 nibble
    // slots is one logical row's run of values, a loop the vectorizer handles when the tile's
    // rows are contiguous (colStride 1).
    constexpr std::uint64_t kInputs = 64, kWords = 64;
    std::array<float, 8 * kWords> scales, zeros;
    std::array<float *, 8 * kWords> rowOut; // nullptr: the slot's row is outside the tile
    std::array<std::uint32_t, kInputs> gathered;
    const std::uint64_t wordsPerRow = m_rows / 8, wEnd = (row0 + rows - 1) / 8 + 1;
    for (std::uint64_t wa = row0 / 8; wa < wEnd; wa += kWords) {
        const std::uint64_t words = std::min(kWords, wEnd - wa);
        for (std::uint64_t k = 0; k < 8 * words; ++k) {
            const std::uint64_t o = 8 * (wa + k / 8) + kAwqOrder[k % 8];
            rowOut[k] = o >= row0 && o < row0 + rows ? out + (o - row0) * rowStride : nullptr;
        }
        std::uint64_t group = UINT64_MAX;
        for (std::uint64_t i0 = col0, end = col0 + cols; i0 < end;) {
            const std::uint64_t g = i0 / m_groupSize;
            const std::uint64_t i1 = std::min({ end, i0 + kInputs, (g + 1) * m_groupSize }), n = i1 - i0;
            if (g != group) {
                group = g;
                for (std::uint64_t w = 0; w < words; ++w) {
                    const std::uint32_t zeroWord = wordAt(m_zeros.data, g * m_zeroCols + wa + w);
                    for (unsigned s = 0; s < 8; ++s) {
                        scales[8 * w + s] = scaleAt(g * m_rows + 8 * (wa + w) + kAwqOrder[s]);
                        zeros[8 * w + s] = static_cast<float>((zeroWord >> (4 * s)) & 15u);
                    }
                }
            }
            for (std::uint64_t w = 0; w < words; ++w) {
                for (std::uint64_t k = 0; k < n; ++k)
                    gathered[k] = wordAt(m_codes.data, (i0 + k) * wordsPerRow + wa + w);
                for (unsigned s = 0; s < 8; ++s) {
                    float *dst = rowOut[8 * w + s];
                    if (!dst)
                        continue;
                    dst += (i0 - col0) * colStride;
                    const float z = zeros[8 * w + s], scale = scales[8 * w + s];
                    const unsigned shift = 4 * s;
                    if (colStride == 1) {
                        for (std::uint64_t k = 0; k < n; ++k)
                            dst[k] = (static_cast<float>((gathered[k] >> shift) & 15u) - z) * scale;
                    } else {
                        for (std::uint64_t k = 0; k < n; ++k)
                            dst[k * colStride] = (static_cast<float>((gathered[k] >> shift) & 15u) - z) * scale;
                    }
                }
            }
            i0 = i1;
        }
    }
}

} // namespace stb
