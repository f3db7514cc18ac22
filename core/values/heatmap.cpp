#include "core/values/heatmap.h"

#include "core/concurrency/parallel.h"
#include "core/io/busguard.h"
#include "core/values/valuereader.h"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <functional>
#include <limits>
#include <mutex>

namespace stb {

namespace {

__extension__ typedef unsigned __int128 Wide;

constexpr std::uint64_t kTaskElements = std::uint64_t(1) << 20;
constexpr std::uint64_t kBlock = 2048; // columns decoded at a time, on the stack
constexpr double kInf = std::numeric_limits<double>::infinity();

// ⌊k·total/parts⌋ without overflow.
std::uint64_t boundary(std::uint64_t k, std::uint64_t total, std::uint64_t parts)
{
    return parts ? static_cast<std::uint64_t>(Wide(k) * total / parts) : 0;
}

// The largest k with ⌊k·total/parts⌋ ≤ index, i.e. ⌊((index+1)·parts − 1)/total⌋.
std::uint32_t partOf(std::uint64_t index, std::uint64_t total, std::uint64_t parts)
{
    return static_cast<std::uint32_t>((Wide(index + 1) * parts - 1) / total);
}

// One cell row's running sums while a task scans its rows (sum, not yet the mean).
struct CellRow {
    std::vector<double> min, max, sum;
    std::vector<std::uint64_t> nan, posInf, negInf; // finite counts follow from the cell sizes

    void reset(std::size_t cells)
    {
        min.assign(cells, kInf);
        max.assign(cells, -kInf);
        sum.assign(cells, 0.0);
        nan.assign(cells, 0);
        posInf.assign(cells, 0);
        negInf.assign(cells, 0);
    }
};

struct TaskJob {
    DType dtype;
    const std::byte *data;
    std::uint64_t firstSource; // source index of (row begin, column 0)
    std::uint64_t rows, rowStride, cols, colStride;
    const std::uint64_t *colBegins; // W+1 boundaries
    CellRow *cells;
};

// One value into cell j the careful way (NaN and infinities counted, not summed).
void addValue(CellRow &cells, std::size_t j, double v)
{
    if (std::isnan(v)) {
        ++cells.nan[j];
    } else if (std::isinf(v)) {
        ++(v > 0 ? cells.posInf : cells.negInf)[j];
    } else {
        cells.min[j] = std::min(cells.min[j], v);
        cells.max[j] = std::max(cells.max[j], v);
        cells.sum[j] += v;
    }
}

// Adds values[0, n) to cell j: a branch-free pass (vectorisable, four partial sums) unless the
// run holds a NaN or an infinity, which the careful loop counts.
void accumulate(const double *values, std::uint64_t n, CellRow &row, std::size_t j)
{
    double lo = kInf, hi = -kInf;
    double s[4] = { 0, 0, 0, 0 };
    bool special = false;
    std::uint64_t i = 0;
    for (; i + 4 <= n; i += 4) {
        for (unsigned k = 0; k < 4; ++k) {
            const double v = values[i + k];
            lo = v < lo ? v : lo;
            hi = v > hi ? v : hi;
            s[k] += v;
            special |= !(v - v == 0);
        }
    }
    for (; i < n; ++i) {
        const double v = values[i];
        lo = v < lo ? v : lo;
        hi = v > hi ? v : hi;
        s[0] += v;
        special |= !(v - v == 0);
    }
    if (!special) {
        row.min[j] = std::min(row.min[j], lo);
        row.max[j] = std::max(row.max[j], hi);
        row.sum[j] += (s[0] + s[1]) + (s[2] + s[3]);
        return;
    }
    for (i = 0; i < n; ++i)
        addValue(row, j, values[i]);
}

// One row through the careful path: decoded to doubles in blocks, added per cell.
void addRow(const TaskJob &job, std::uint64_t rowSource, double *values)
{
    std::size_t j = 0;
    for (std::uint64_t c0 = 0; c0 < job.cols; c0 += kBlock) {
        const std::uint64_t c1 = std::min(job.cols, c0 + kBlock);
        gatherValues(job.dtype, job.data, rowSource + c0 * job.colStride, job.colStride, c1 - c0, values);
        for (std::uint64_t c = c0; c < c1; ++j) {
            const std::uint64_t end = std::min(job.colBegins[j + 1], c1);
            accumulate(values + (c - c0), end - c, *job.cells, j);
            c = end;
        }
        if (job.colBegins[j] > c1) // the cell continues into the next block
            --j;
    }
}

// Element c of a contiguous BF16 or F32 row as the float it is exactly.
template<DType D> float loadFloat(const std::byte *row, std::uint64_t c)
{
    if constexpr (D == DType::BF16) {
        std::uint16_t code;
        std::memcpy(&code, row + 2 * c, 2);
        const std::uint32_t bits = std::uint32_t(code) << 16;
        float f;
        std::memcpy(&f, &bits, 4);
        return f;
    } else {
        float f;
        std::memcpy(&f, row + 4 * c, 4);
        return f;
    }
}

constexpr std::uint64_t kStrip = 32; // columns whose running min/max/sum stay in registers

// Contiguous BF16 and F32 rows (the common weights), a strip of 32 columns at a time down all the
// task's rows: per column a running min and max (floats: exact for these dtypes) and sum (double)
// in a loop without branches that the compiler vectorises and keeps in registers; the strip's
// columns are then folded into their cells. A strip holding a NaN or an infinity is redone the
// careful way. Decoding every element to a double and a call per cell-wide run (four elements
// for a 4,096-column matrix in 1,024 cells) left the summary at a sixteenth of the read speed.
template<DType D> void runStrips(const TaskJob &job)
{
    constexpr unsigned size = D == DType::BF16 ? 2 : 4;
    CellRow &cells = *job.cells;
    std::size_t first = 0; // the cell holding column c0
    for (std::uint64_t c0 = 0; c0 < job.cols; c0 += kStrip) {
        const std::uint64_t width = std::min(kStrip, job.cols - c0);
        float lo[kStrip], hi[kStrip];
        double sum[kStrip];
        std::fill(lo, lo + kStrip, std::numeric_limits<float>::infinity());
        std::fill(hi, hi + kStrip, -std::numeric_limits<float>::infinity());
        std::fill(sum, sum + kStrip, 0.0);
        unsigned special = 0;
        for (std::uint64_t r = 0; r < job.rows; ++r) {
            const std::byte *p = job.data + (job.firstSource + r * job.rowStride + c0) * size;
            if (width == kStrip) {
                for (std::uint64_t k = 0; k < kStrip; ++k) {
                    const float v = loadFloat<D>(p, k);
                    lo[k] = v < lo[k] ? v : lo[k];
                    hi[k] = v > hi[k] ? v : hi[k];
                    sum[k] += double(v);
                    special |= unsigned(!(v - v == 0.0f));
                }
            } else {
                for (std::uint64_t k = 0; k < width; ++k) {
                    const float v = loadFloat<D>(p, k);
                    lo[k] = v < lo[k] ? v : lo[k];
                    hi[k] = v > hi[k] ? v : hi[k];
                    sum[k] += double(v);
                    special |= unsigned(!(v - v == 0.0f));
                }
            }
        }
        while (job.colBegins[first + 1] <= c0)
            ++first;
        std::size_t j = first;
        for (std::uint64_t k = 0; k < width; ++k) {
            while (job.colBegins[j + 1] <= c0 + k)
                ++j;
            if (special) {
                for (std::uint64_t r = 0; r < job.rows; ++r)
                    addValue(cells, j,
                        loadFloat<D>(job.data + (job.firstSource + r * job.rowStride + c0) * size, k));
                continue;
            }
            cells.min[j] = std::min(cells.min[j], double(lo[k]));
            cells.max[j] = std::max(cells.max[j], double(hi[k]));
            cells.sum[j] += sum[k];
        }
    }
}

void runTask(void *context)
{
    const auto &job = *static_cast<const TaskJob *>(context);
    if (job.colStride == 1 && job.dtype == DType::BF16)
        return runStrips<DType::BF16>(job);
    if (job.colStride == 1 && job.dtype == DType::F32)
        return runStrips<DType::F32>(job);
    double values[kBlock];
    for (std::uint64_t r = 0; r < job.rows; ++r)
        addRow(job, job.firstSource + r * job.rowStride, values);
}

// A run of rows inside one cell row: the unit of work, so that no two tasks write one cell
// unless they merge under the lock.
struct Task {
    std::uint32_t cellRow;
    std::uint64_t rowBegin, rowEnd;
};

} // namespace

std::uint64_t HeatmapSummary::rowBegin(std::uint32_t i) const
{
    return boundary(i, rows, cellRows);
}
std::uint64_t HeatmapSummary::colBegin(std::uint32_t j) const
{
    return boundary(j, cols, cellCols);
}
std::uint32_t HeatmapSummary::cellRowOf(std::uint64_t row) const
{
    return partOf(row, rows, cellRows);
}
std::uint32_t HeatmapSummary::cellColOf(std::uint64_t col) const
{
    return partOf(col, cols, cellCols);
}

std::uint64_t HeatmapSummary::cellSize(std::uint32_t i, std::uint32_t j) const
{
    return (rowBegin(i + 1) - rowBegin(i)) * (colBegin(j + 1) - colBegin(j));
}

std::uint64_t HeatmapSummary::finite(std::uint32_t i, std::uint32_t j) const
{
    const std::size_t c = cellIndex(i, j);
    return cellSize(i, j) - nan[c] - posInf[c] - negInf[c];
}

std::optional<std::pair<double, double>> HeatmapSummary::finiteRange() const
{
    std::optional<std::pair<double, double>> range;
    for (std::uint32_t i = 0; i < cellRows; ++i) {
        for (std::uint32_t j = 0; j < cellCols; ++j) {
            if (finite(i, j) == 0)
                continue;
            const std::size_t c = cellIndex(i, j);
            if (!range)
                range = std::pair { min[c], max[c] };
            range->first = std::min(range->first, min[c]);
            range->second = std::max(range->second, max[c]);
        }
    }
    return range;
}

HeatmapSummary emptyHeatmap(
    std::uint64_t rows, std::uint64_t cols, std::uint32_t cellRows, std::uint32_t cellCols)
{
    HeatmapSummary summary;
    summary.rows = rows;
    summary.cols = cols;
    const auto clampSide = [](std::uint32_t wanted, std::uint64_t side) {
        return static_cast<std::uint32_t>(
            std::min<std::uint64_t>({ std::max(wanted, 1u), side, kMaxHeatmapSide }));
    };
    summary.cellRows = clampSide(cellRows, rows);
    summary.cellCols = clampSide(cellCols, cols);
    const std::size_t cells = std::size_t(summary.cellRows) * summary.cellCols;
    summary.min.assign(cells, kInf);
    summary.max.assign(cells, -kInf);
    summary.mean.assign(cells, 0.0);
    summary.nan.assign(cells, 0);
    summary.posInf.assign(cells, 0);
    summary.negInf.assign(cells, 0);
    return summary;
}

namespace {

// Runs one task's rows into `cells` (reset to the cell row's width); false when the mapping
// vanished under the read.
using TaskRunner = std::function<bool(const Task &task, CellRow &cells, unsigned worker)>;

// The pass both summaries share: tasks of whole rows inside one cell row, merged under a lock,
// means from the sums at the end.
std::optional<HeatmapSummary> summarizeTasks(std::uint64_t rows, std::uint64_t cols, std::uint32_t cellRows,
    std::uint32_t cellCols,
    const std::function<TaskRunner(const std::uint64_t *colBegins, unsigned workers)> &makeRunner,
    std::string &error, std::stop_token stop, const ProgressFn &progress, unsigned threads)
{
    HeatmapSummary summary = emptyHeatmap(rows, cols, cellRows, cellCols);
    const std::uint64_t elements = rows * cols;
    if (elements == 0)
        return summary;
    std::vector<std::uint64_t> colBegins(summary.cellCols + 1);
    for (std::uint32_t j = 0; j <= summary.cellCols; ++j)
        colBegins[j] = summary.colBegin(j);
    const std::uint64_t rowsPerTask = std::max<std::uint64_t>(1, kTaskElements / cols);
    std::vector<Task> tasks;
    for (std::uint32_t i = 0; i < summary.cellRows; ++i) {
        const std::uint64_t end = summary.rowBegin(i + 1);
        for (std::uint64_t r = summary.rowBegin(i); r < end; r += rowsPerTask)
            tasks.push_back({ i, r, std::min(end, r + rowsPerTask) });
    }

    const unsigned workers = threadCount(threads);
    const TaskRunner run = makeRunner(colBegins.data(), workers);
    std::vector<CellRow> scratch(workers);
    std::mutex mergeMutex;
    std::uint64_t done = 0;
    const bool finished = parallelFor(tasks.size(), workers, [&](std::uint64_t t, unsigned worker) {
        if (stop.stop_requested())
            return false;
        const Task &task = tasks[t];
        CellRow &cells = scratch[worker];
        cells.reset(summary.cellCols);
        if (!run(task, cells, worker))
            return false;
        std::lock_guard lock(mergeMutex);
        for (std::uint32_t j = 0; j < summary.cellCols; ++j) {
            const std::size_t c = summary.cellIndex(task.cellRow, j);
            summary.min[c] = std::min(summary.min[c], cells.min[j]);
            summary.max[c] = std::max(summary.max[c], cells.max[j]);
            summary.mean[c] += cells.sum[j]; // a sum until the pass ends
            summary.nan[c] += cells.nan[j];
            summary.posInf[c] += cells.posInf[j];
            summary.negInf[c] += cells.negInf[j];
        }
        done += (task.rowEnd - task.rowBegin) * cols;
        if (progress)
            progress(done, elements);
        return true;
    });
    if (stop.stop_requested())
        return std::nullopt;
    if (!finished) {
        error = "the tensor's bytes vanished while reading (the file was truncated)";
        return std::nullopt;
    }
    for (std::uint32_t i = 0; i < summary.cellRows; ++i) {
        for (std::uint32_t j = 0; j < summary.cellCols; ++j) {
            const std::uint64_t finite = summary.finite(i, j);
            double &mean = summary.mean[summary.cellIndex(i, j)];
            mean = finite ? mean / static_cast<double>(finite) : std::numeric_limits<double>::quiet_NaN();
        }
    }
    return summary;
}

struct DecodedTaskJob {
    const HeatmapRowDecoder *decode;
    std::uint64_t row0, rows;
    float *buffer;
    TaskJob strips; // over `buffer` as contiguous F32 rows
};

void runDecodedTask(void *context)
{
    auto &job = *static_cast<DecodedTaskJob *>(context);
    (*job.decode)(job.row0, job.rows, job.buffer);
    runStrips<DType::F32>(job.strips);
}

} // namespace

std::optional<MatrixShape> heatmapMatrix(const StridedView &view, std::string &error)
{
    const auto matrix = asMatrix(view);
    if (!matrix)
        error = "a heatmap shows two axes; this view has " + std::to_string(view.axes.size())
            + " (fix the others with a slice)";
    return matrix;
}

std::optional<HeatmapSummary> summarizeHeatmap(DType dtype, std::span<const std::byte> bytes,
    const StridedView &view, std::uint32_t cellRows, std::uint32_t cellCols, std::string &error,
    std::stop_token stop, const ProgressFn &progress, unsigned threads)
{
    const auto matrix = heatmapMatrix(view, error);
    if (!matrix)
        return std::nullopt;
    if (matrix->rows * matrix->cols > 0) {
        const std::uint64_t last
            = view.base + (matrix->rows - 1) * matrix->rowStride + (matrix->cols - 1) * matrix->colStride;
        if (last >= elementsIn(dtype, bytes)) {
            error = "the tensor's data is shorter than its shape (the file is truncated)";
            return std::nullopt;
        }
    }
    const auto makeRunner = [&](const std::uint64_t *colBegins, unsigned) -> TaskRunner {
        return [&, colBegins](const Task &task, CellRow &cells, unsigned) {
            TaskJob job { dtype, bytes.data(), view.base + task.rowBegin * matrix->rowStride,
                task.rowEnd - task.rowBegin, matrix->rowStride, matrix->cols, matrix->colStride, colBegins,
                &cells };
            return runGuarded(runTask, &job);
        };
    };
    return summarizeTasks(matrix->rows, matrix->cols, cellRows, cellCols, makeRunner, error, std::move(stop),
        progress, threads);
}

std::optional<HeatmapSummary> summarizeDecoded(std::uint64_t rows, std::uint64_t cols,
    const HeatmapRowDecoder &decode, std::uint32_t cellRows, std::uint32_t cellCols, std::string &error,
    std::stop_token stop, const ProgressFn &progress, unsigned threads)
{
    // One buffer of a task's rows per worker (a task holds about kTaskElements values, or one row).
    std::vector<std::vector<float>> buffers;
    const std::uint64_t rowsPerTask = cols ? std::max<std::uint64_t>(1, kTaskElements / cols) : 1;
    const auto makeRunner = [&](const std::uint64_t *colBegins, unsigned workers) -> TaskRunner {
        buffers.resize(workers);
        return [&, colBegins](const Task &task, CellRow &cells, unsigned worker) {
            std::vector<float> &buffer = buffers[worker];
            buffer.resize(std::min(rowsPerTask, task.rowEnd - task.rowBegin) * cols);
            DecodedTaskJob job { &decode, task.rowBegin, task.rowEnd - task.rowBegin, buffer.data(),
                TaskJob { DType::F32, reinterpret_cast<const std::byte *>(buffer.data()), 0,
                    task.rowEnd - task.rowBegin, cols, cols, 1, colBegins, &cells } };
            return runGuarded(runDecodedTask, &job);
        };
    };
    return summarizeTasks(
        rows, cols, cellRows, cellCols, makeRunner, error, std::move(stop), progress, threads);
}

} // namespace stb
