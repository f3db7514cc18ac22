#include "core/quant/dequantvalues.h"

#include "core/io/busguard.h"

#include <algorithm>
#include <array>
#include <vector>

namespace stb {

namespace {


// The last source index a view of at most two axes touches in rows × cols from (row0, col0).
std::optional<MatrixShape> rectInside(const Dequantizer &dequantizer, const StridedView &view,
    std::uint64_t row0, std::uint64_t rows, std::uint64_t col0, std::uint64_t cols)
{
    const auto matrix = asMatrix(view);
    if (!matrix || rows == 0 || cols == 0)
        return matrix;
    if (row0 + rows > matrix->rows || col0 + cols > matrix->cols)
        return std::nullopt;
    const std::uint64_t last
        = view.base + (row0 + rows - 1) * matrix->rowStride + (col0 + cols - 1) * matrix->colStride;
    if (last >= dequantizer.elements())
        return std::nullopt;
    return matrix;
}

constexpr std::uint64_t kTileFloats = 1 << 18; // a value grid's rectangle is decoded this much at a time

// Rows [0, rows) × columns [0, cols) of a matrix whose element (r, c) is logical element
// first + r·rowStride + c·colStride, row-major into `out`. When its rows run along the logical
// rows and its columns along the logical columns, or the other way round (a transposed plane),
// it is a tile of the logical matrix and decoded as one (Dequantizer::decodeTile); otherwise row
// by row. NOT guarded.
void decodeMatrix(const Dequantizer &dequantizer, std::uint64_t first, std::uint64_t rowStride,
    std::uint64_t colStride, std::uint64_t rows, std::uint64_t cols, float *out)
{
    const std::uint64_t width = dequantizer.columns(), row0 = first / width, col0 = first % width;
    if ((colStride == 1 || cols == 1) && (rowStride == width || rows == 1) && col0 + cols <= width) {
        dequantizer.decodeTile(row0, rows, col0, cols, out, cols, 1);
        return;
    }
    if ((rowStride == 1 || rows == 1) && (colStride == width || cols == 1) && col0 + rows <= width) {
        // View row r is logical column col0 + r; view column c is logical row row0 + c.
        dequantizer.decodeTile(row0, cols, col0, rows, out, 1, cols);
        return;
    }
    for (std::uint64_t r = 0; r < rows; ++r)
        decodeStrided(dequantizer, first + r * rowStride, colStride, cols, out + r * cols);
}

struct RectJob {
    const Dequantizer *dequantizer;
    std::uint64_t first, rowStride, colStride, rows, cols;
    double *out;
    float *tile; // tileRows · cols floats, allocated outside the guard
    std::uint64_t tileRows;
};

void runRect(void *context)
{
    const auto &job = *static_cast<const RectJob *>(context);
    for (std::uint64_t r = 0; r < job.rows; r += job.tileRows) {
        const std::uint64_t n = std::min(job.tileRows, job.rows - r);
        decodeMatrix(*job.dequantizer, job.first + r * job.rowStride, job.rowStride, job.colStride, n, job.cols,
            job.tile);
        std::copy_n(job.tile, n * job.cols, job.out + r * job.cols);
    }
}

// runRect over rows × cols from `first`, with its tile buffer.
bool decodeRectGuarded(const Dequantizer &dequantizer, std::uint64_t first, std::uint64_t rowStride,
    std::uint64_t colStride, std::uint64_t rows, std::uint64_t cols, double *out)
{
    // Whole rows of the rectangle, a multiple of 8 when it can be (AWQ unpacks 8 rows a word).
    std::uint64_t tileRows = std::max<std::uint64_t>(1, std::min(rows, kTileFloats / cols));
    if (tileRows > 8)
        tileRows -= tileRows % 8;
    std::vector<float> tile(tileRows * cols);
    RectJob job { &dequantizer, first, rowStride, colStride, rows, cols, out, tile.data(), tileRows };
    return runGuarded(runRect, &job);
}

} // namespace

std::optional<DequantizedTensor> dequantizedTensor(
    const Checkpoint &checkpoint, const QuantView &view, std::size_t tensor, std::string *why)
{
    const std::ptrdiff_t weight = view.weightOfCodes(tensor);
    if (weight < 0)
        return std::nullopt;
    const QuantizedWeight &w = view.weights()[static_cast<std::size_t>(weight)];
    std::string reason;
    auto dequantizer = Dequantizer::make(checkpoint, w, reason);
    if (!dequantizer) {
        if (why)
            *why = reason;
        return std::nullopt;
    }
    return DequantizedTensor { &w, std::make_shared<const Dequantizer>(std::move(*dequantizer)) };
}

void decodeStrided(
    const Dequantizer &dequantizer, std::uint64_t first, std::uint64_t stride, std::uint64_t n, float *out)
{
    if (stride == 1 || n == 1) {
        dequantizer.decode(first, n, out);
        return;
    }
    if (stride == dequantizer.columns()) { // down a logical column: a tile one column wide
        dequantizer.decodeTile(first / stride, n, first % stride, 1, out, 1, 1);
        return;
    }
    // Any other stride (across a 3-D weight's leading axis): one value at a time.
    for (std::uint64_t i = 0; i < n; ++i)
        dequantizer.decode(first + i * stride, 1, out + i);
}

bool decodeRows(const Dequantizer &dequantizer, std::uint64_t firstRow, std::uint64_t rows, double *out)
{
    const std::uint64_t cols = dequantizer.columns();
    if (firstRow > dequantizer.rows() || rows > dequantizer.rows() - firstRow)
        return false;
    if (rows == 0 || cols == 0)
        return true;
    return decodeRectGuarded(dequantizer, firstRow * cols, cols, 1, rows, cols, out);
}

bool decodeRect(const Dequantizer &dequantizer, const StridedView &view, std::uint64_t row0,
    std::uint64_t rows, std::uint64_t col0, std::uint64_t cols, double *out)
{
    const auto matrix = rectInside(dequantizer, view, row0, rows, col0, cols);
    if (!matrix)
        return false;
    if (rows == 0 || cols == 0)
        return true;
    return decodeRectGuarded(dequantizer, view.base + row0 * matrix->rowStride + col0 * matrix->colStride,
        matrix->rowStride, matrix->colStride, rows, cols, out);
}

std::optional<LocateResult> locateDequantized(
    const Dequantizer &dequantizer, std::stop_token stop, const ProgressFn &progress, unsigned threads)
{
    const LocateDecoder decode = [&dequantizer](std::uint64_t first, std::uint64_t n, double *out) {
        std::array<float, kLocateBlock> values;
        dequantizer.decode(first, n, values.data());
        std::copy_n(values.data(), n, out);
    };
    return locateDecoded(dequantizer.elements(), decode, std::move(stop), progress, threads);
}

std::optional<HeatmapSummary> summarizeDequantizedHeatmap(const Dequantizer &dequantizer,
    const StridedView &view, std::uint32_t cellRows, std::uint32_t cellCols, std::string &error,
    std::stop_token stop, const ProgressFn &progress, unsigned threads, HeatmapCells keep)
{
    const auto matrix = heatmapMatrix(view, error);
    if (!matrix)
        return std::nullopt;
    if (!rectInside(dequantizer, view, 0, matrix->rows, 0, matrix->cols)) {
        error = "the view leaves the weight's logical shape";
        return std::nullopt;
    }
    const HeatmapRowDecoder decode = [&](std::uint64_t row0, std::uint64_t rows, float *out) {
        decodeMatrix(dequantizer, view.base + row0 * matrix->rowStride, matrix->rowStride, matrix->colStride, rows,
            matrix->cols, out);
    };
    return summarizeDecoded(matrix->rows, matrix->cols, decode, cellRows, cellCols, error, std::move(stop),
        progress, threads, keep);
}

} // namespace stb
