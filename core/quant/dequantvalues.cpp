#include "core/quant/dequantvalues.h"

#include "core/io/busguard.h"

#include <algorithm>
#include <array>
#include <vector>

namespace stb {

namespace {

constexpr std::uint64_t kRun = 4096; // floats decoded at a time, on the stack

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

struct RectJob {
    const Dequantizer *dequantizer;
    std::uint64_t first, rowStride, colStride, rows, cols;
    double *out;
};

void runRect(void *context)
{
    const auto &job = *static_cast<const RectJob *>(context);
    std::array<float, kRun> values;
    for (std::uint64_t r = 0; r < job.rows; ++r) {
        for (std::uint64_t c = 0; c < job.cols; c += kRun) {
            const std::uint64_t n = std::min(kRun, job.cols - c);
            decodeStrided(*job.dequantizer, job.first + r * job.rowStride + c * job.colStride, job.colStride,
                n, values.data());
            std::copy_n(values.data(), n, job.out + r * job.cols + c);
        }
    }
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
    // Down a column (a transposed plane): one value at a time, each reading its own code and scale.
    for (std::uint64_t i = 0; i < n; ++i)
        dequantizer.decode(first + i * stride, 1, out + i);
}

bool decodeRows(const Dequantizer &dequantizer, std::uint64_t firstRow, std::uint64_t rows, double *out)
{
    const std::uint64_t cols = dequantizer.columns();
    if (firstRow > dequantizer.rows() || rows > dequantizer.rows() - firstRow)
        return false;
    RectJob job { &dequantizer, firstRow * cols, cols, 1, rows, cols, out };
    return runGuarded(runRect, &job);
}

bool decodeRect(const Dequantizer &dequantizer, const StridedView &view, std::uint64_t row0,
    std::uint64_t rows, std::uint64_t col0, std::uint64_t cols, double *out)
{
    const auto matrix = rectInside(dequantizer, view, row0, rows, col0, cols);
    if (!matrix)
        return false;
    if (rows == 0 || cols == 0)
        return true;
    RectJob job { &dequantizer, view.base + row0 * matrix->rowStride + col0 * matrix->colStride,
        matrix->rowStride, matrix->colStride, rows, cols, out };
    return runGuarded(runRect, &job);
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
    std::stop_token stop, const ProgressFn &progress, unsigned threads)
{
    const auto matrix = heatmapMatrix(view, error);
    if (!matrix)
        return std::nullopt;
    if (!rectInside(dequantizer, view, 0, matrix->rows, 0, matrix->cols)) {
        error = "the view leaves the weight's logical shape";
        return std::nullopt;
    }
    const HeatmapRowDecoder decode = [&](std::uint64_t row0, std::uint64_t rows, float *out) {
        for (std::uint64_t r = 0; r < rows; ++r)
            decodeStrided(dequantizer, view.base + (row0 + r) * matrix->rowStride, matrix->colStride,
                matrix->cols, out + r * matrix->cols);
    };
    return summarizeDecoded(
        matrix->rows, matrix->cols, decode, cellRows, cellCols, error, std::move(stop), progress, threads);
}

} // namespace stb
