#include "core/values/heatmap.h"

#include "core/concurrency/parallel.h"
#include "core/io/busguard.h"
#include "core/stats/kernels/valuescan.h"
#include "core/values/valuereader.h"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <functional>
#include <limits>
#include <memory>
#include <mutex>

namespace stb {

namespace {

__extension__ typedef unsigned __int128 Wide;

constexpr std::uint64_t kTaskElements = std::uint64_t(1) << 20;
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

// Cells along a side of `side` values for a wanted count: 1 … the side and kMaxHeatmapSide.
std::uint32_t clampedSide(std::uint32_t wanted, std::uint64_t side)
{
    return static_cast<std::uint32_t>(std::min<std::uint64_t>({ std::max(wanted, 1u), side, kMaxHeatmapSide }));
}

// The grid of emptyHeatmap with its cells not written.
HeatmapSummary unwrittenHeatmap(std::uint64_t rows, std::uint64_t cols, std::uint32_t cellRows,
    std::uint32_t cellCols, HeatmapCells keep = HeatmapCells::All)
{
    HeatmapSummary summary;
    summary.rows = rows;
    summary.cols = cols;
    summary.cellRows = clampedSide(cellRows, rows);
    summary.cellCols = clampedSide(cellCols, cols);
    const std::size_t cells = std::size_t(summary.cellRows) * summary.cellCols;
    if (keep == HeatmapCells::All) {
        summary.min.resize(cells);
        summary.max.resize(cells);
    }
    summary.mean.resize(cells);
    return summary;
}

// Columns whose running values a task carries down its rows: a whole row of most matrices, so
// that each row of a block is one long sequential stream (rows of 1,024 columns were too short
// for the hardware prefetchers: the kernel waited on its loads). 160 KB a tile: kept per worker.
constexpr std::uint64_t kTile = 4096;

// Per-column running values of one tile of columns down a task's rows: float extremes for the
// dtypes the kernels read (every value exactly a float), double for the others.
template<typename T> struct ColumnTile {
    T lo[kTile], hi[kTile];
    double sum[kTile];
    HeatmapSummary::Specials specials[kTile]; // cleared and filled only when `special`
    bool special = false;

    void reset(std::uint64_t width)
    {
        std::fill(lo, lo + width, std::numeric_limits<T>::infinity());
        std::fill(hi, hi + width, -std::numeric_limits<T>::infinity());
        std::fill(sum, sum + width, 0.0);
        special = false;
    }
    // One value of column k not finite, counted.
    void countSpecial(std::uint64_t width, std::uint64_t k, double v)
    {
        if (!special)
            std::fill(specials, specials + width, HeatmapSummary::Specials {});
        special = true;
        HeatmapSummary::Specials &s = specials[k];
        ++(std::isnan(v) ? s.nan : v > 0 ? s.posInf : s.negInf);
    }
};

// One cell row's running sums while a task scans its rows (sum, not yet the mean).
struct CellRow {
    // Written by the task's first column of each cell (foldTile), so never cleared.
    std::vector<double> min, max, sum;
    // Finite counts follow from the cell sizes; filled (and cleared) only when a task meets a
    // value not finite, `special` then set.
    std::vector<HeatmapSummary::Specials> specials;
    bool special = false;
    // The worker's tiles, made at its first task (a task uses one of the two).
    std::unique_ptr<ColumnTile<float>> floatTile;
    std::unique_ptr<ColumnTile<double>> doubleTile;

    void reset(std::size_t cells)
    {
        min.resize(cells);
        max.resize(cells);
        sum.resize(cells);
        special = false;
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

// Adds a tile's columns [c0, c0 + width) to their cells, column after column, so that a cell's
// sum is the same whichever kernel filled the tile. A cell's first column sets its values (a
// column's sum starts at +0, so this is 0 + sum exactly). Cell by cell, its running values in
// registers: column by column, looking up each column's cell (and with the tile's reset), it was
// 7% of the heatmap's time in perf.
template<typename T>
void foldTile(const TaskJob &job, const ColumnTile<T> &tile, std::uint64_t c0, std::uint64_t width)
{
    CellRow &cells = *job.cells;
    const std::uint64_t end = c0 + width;
    const std::size_t cellCount = cells.min.size();
    std::size_t j = 0;
    while (job.colBegins[j + 1] <= c0)
        ++j;
    for (; j < cellCount && job.colBegins[j] < end; ++j) {
        std::uint64_t k = std::max(job.colBegins[j], c0) - c0;
        const std::uint64_t stop = std::min(job.colBegins[j + 1], end) - c0;
        double min, max, sum;
        if (job.colBegins[j] >= c0) {
            min = double(tile.lo[k]);
            max = double(tile.hi[k]);
            sum = tile.sum[k];
            ++k;
        } else {
            min = cells.min[j];
            max = cells.max[j];
            sum = cells.sum[j];
        }
        for (; k < stop; ++k) {
            min = std::min(min, double(tile.lo[k]));
            max = std::max(max, double(tile.hi[k]));
            sum += tile.sum[k];
        }
        cells.min[j] = min;
        cells.max[j] = max;
        cells.sum[j] = sum;
    }
    if (!tile.special)
        return;
    if (!cells.special)
        cells.specials.assign(cells.min.size(), {});
    cells.special = true;
    j = 0;
    for (std::uint64_t k = 0; k < width; ++k) {
        while (job.colBegins[j + 1] <= c0 + k)
            ++j;
        cells.specials[j].nan += tile.specials[k].nan;
        cells.specials[j].posInf += tile.specials[k].posInf;
        cells.specials[j].negInf += tile.specials[k].negInf;
    }
}

// Contiguous F32/BF16/F16 rows: the kernels (kernels/valuescan.h) carry each column's extremes
// and sum down the task's rows a tile at a time, reading the mapping in place; a tile that met a
// value not finite has those counted afterwards. Decoding every element to a double first left
// the summary at a tenth of the read speed.
void runFloatTiles(const TaskJob &job)
{
    const std::uint64_t size = dtypeInfo(job.dtype).bits / 8;
    auto &owned = job.cells->floatTile;
    if (!owned)
        owned = std::make_unique<ColumnTile<float>>();
    ColumnTile<float> &tile = *owned;
    for (std::uint64_t c0 = 0; c0 < job.cols; c0 += kTile) {
        const std::uint64_t width = std::min(kTile, job.cols - c0);
        tile.special = false; // the kernel starts the running values itself (fresh)
        const std::byte *row = job.data + (job.firstSource + c0) * size;
        const std::uint64_t rowBytes = job.rowStride * size;
        const bool finite = kernels::addRowsToColumns(
            job.dtype, row, rowBytes, job.rows, width, tile.lo, tile.hi, tile.sum, /*fresh*/ true);
        if (!finite) {
            row = job.data + (job.firstSource + c0) * size;
            for (std::uint64_t r = 0; r < job.rows; ++r, row += rowBytes) {
                for (std::uint64_t k = 0; k < width; ++k) {
                    const float v = kernels::floatAt(job.dtype, row, k);
                    if (!std::isfinite(v))
                        tile.countSpecial(width, k, v);
                }
            }
        }
        foldTile(job, tile, c0, width);
    }
}

// Any other dtype or a strided row (a transposed plane): a tile's values decoded to doubles a
// row at a time, each column carried down the rows as the kernels do.
void runDecodedTiles(const TaskJob &job)
{
    auto &owned = job.cells->doubleTile;
    if (!owned)
        owned = std::make_unique<ColumnTile<double>>();
    ColumnTile<double> &tile = *owned;
    std::vector<double> values(std::min(kTile, job.cols));
    for (std::uint64_t c0 = 0; c0 < job.cols; c0 += kTile) {
        const std::uint64_t width = std::min(kTile, job.cols - c0);
        tile.reset(width);
        for (std::uint64_t r = 0; r < job.rows; ++r) {
            gatherValues(job.dtype, job.data, job.firstSource + r * job.rowStride + c0 * job.colStride,
                job.colStride, width, values.data());
            for (std::uint64_t k = 0; k < width; ++k) {
                const double v = values[k];
                if (!std::isfinite(v)) {
                    tile.countSpecial(width, k, v);
                    continue;
                }
                tile.lo[k] = v < tile.lo[k] ? v : tile.lo[k];
                tile.hi[k] = v > tile.hi[k] ? v : tile.hi[k];
                tile.sum[k] += v;
            }
        }
        foldTile(job, tile, c0, width);
    }
}

void runTask(void *context)
{
    const auto &job = *static_cast<const TaskJob *>(context);
    if (job.colStride == 1 && kernels::scansFloats(job.dtype))
        return runFloatTiles(job);
    runDecodedTiles(job);
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
    return cellSize(i, j) - nanCount(c) - posInfCount(c) - negInfCount(c);
}

std::optional<std::pair<double, double>> HeatmapSummary::finiteRange() const
{
    std::optional<std::pair<double, double>> range;
    if (min.empty())
        return range;
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
    HeatmapSummary summary = unwrittenHeatmap(rows, cols, cellRows, cellCols);
    std::fill(summary.min.begin(), summary.min.end(), kInf);
    std::fill(summary.max.begin(), summary.max.end(), -kInf);
    std::fill(summary.mean.begin(), summary.mean.end(), 0.0);
    return summary;
}

namespace {

// Runs one task's rows into `cells` (reset to the cell row's width); false when the mapping
// vanished under the read.
using TaskRunner = std::function<bool(const Task &task, CellRow &cells, unsigned worker)>;

// The pass both summaries share: tasks of whole rows inside one cell row. A task alone in its
// cell row writes the row's cells; tasks sharing one (tall cells) merge under a lock, the first
// writing and the others adding. The last task of a cell row turns its sums into means.
std::optional<HeatmapSummary> summarizeTasks(std::uint64_t rows, std::uint64_t cols, std::uint32_t cellRows,
    std::uint32_t cellCols,
    const std::function<TaskRunner(const std::uint64_t *colBegins, unsigned workers)> &makeRunner,
    std::string &error, std::stop_token stop, const ProgressFn &progress, unsigned threads, HeatmapCells keep)
{
    const std::uint64_t elements = rows * cols;
    if (elements == 0)
        return emptyHeatmap(rows, cols, cellRows, cellCols);
    HeatmapSummary summary = unwrittenHeatmap(rows, cols, cellRows, cellCols, keep);
    const bool extremes = keep == HeatmapCells::All;
    const std::uint32_t width = summary.cellCols;
    std::vector<std::uint64_t> colBegins(width + 1);
    for (std::uint32_t j = 0; j <= width; ++j)
        colBegins[j] = summary.colBegin(j);
    const std::uint64_t rowsPerTask = std::max<std::uint64_t>(1, kTaskElements / cols);
    std::vector<Task> tasks;
    std::vector<std::uint32_t> tasksOfRow(summary.cellRows), merged(summary.cellRows);
    for (std::uint32_t i = 0; i < summary.cellRows; ++i) {
        const std::uint64_t end = summary.rowBegin(i + 1);
        for (std::uint64_t r = summary.rowBegin(i); r < end; r += rowsPerTask, ++tasksOfRow[i])
            tasks.push_back({ i, r, std::min(end, r + rowsPerTask) });
    }

    // Sums to means for cell row i, once all its tasks merged (finite counts from the cell sizes).
    const auto finishRow = [&](std::uint32_t i) {
        const std::uint64_t height = summary.rowBegin(i + 1) - summary.rowBegin(i);
        for (std::uint32_t j = 0; j < width; ++j) {
            const std::size_t c = summary.cellIndex(i, j);
            const std::uint64_t finite = height * (colBegins[j + 1] - colBegins[j]) - summary.nanCount(c)
                - summary.posInfCount(c) - summary.negInfCount(c);
            double &mean = summary.mean[c];
            mean = finite ? mean / static_cast<double>(finite) : std::numeric_limits<double>::quiet_NaN();
        }
    };

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
        cells.reset(width);
        if (!run(task, cells, worker))
            return false;
        // A task alone in its cell row writes cells no other task touches; the lock is still
        // taken for the counts of values not finite (the summary's list of them grows once).
        const std::uint32_t i = task.cellRow;
        const bool alone = tasksOfRow[i] == 1;
        std::unique_lock lock(mergeMutex, std::defer_lock);
        if (!alone || cells.special)
            lock.lock();
        double *sum = &summary.mean[summary.cellIndex(i, 0)]; // a sum until the row is finished
        if (alone || merged[i] == 0) {
            if (extremes) {
                std::copy_n(cells.min.data(), width, &summary.min[summary.cellIndex(i, 0)]);
                std::copy_n(cells.max.data(), width, &summary.max[summary.cellIndex(i, 0)]);
            }
            std::copy_n(cells.sum.data(), width, sum);
        } else {
            for (std::uint32_t j = 0; j < width; ++j)
                sum[j] += cells.sum[j];
            if (extremes) {
                double *min = &summary.min[summary.cellIndex(i, 0)];
                double *max = &summary.max[summary.cellIndex(i, 0)];
                for (std::uint32_t j = 0; j < width; ++j) {
                    min[j] = std::min(min[j], cells.min[j]);
                    max[j] = std::max(max[j], cells.max[j]);
                }
            }
        }
        if (cells.special) {
            if (summary.specials.empty())
                summary.specials.resize(summary.mean.size());
            for (std::uint32_t j = 0; j < width; ++j) {
                HeatmapSummary::Specials &into = summary.specials[summary.cellIndex(i, j)];
                into.nan += cells.specials[j].nan;
                into.posInf += cells.specials[j].posInf;
                into.negInf += cells.specials[j].negInf;
            }
        }
        if (alone || ++merged[i] == tasksOfRow[i])
            finishRow(i);
        if (!lock.owns_lock())
            lock.lock();
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
    runFloatTiles(job.strips);
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
    std::stop_token stop, const ProgressFn &progress, unsigned threads, HeatmapCells keep)
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
        progress, threads, keep);
}

std::optional<HeatmapSummary> summarizeDecoded(std::uint64_t rows, std::uint64_t cols,
    const HeatmapRowDecoder &decode, std::uint32_t cellRows, std::uint32_t cellCols, std::string &error,
    std::stop_token stop, const ProgressFn &progress, unsigned threads, HeatmapCells keep)
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
        rows, cols, cellRows, cellCols, makeRunner, error, std::move(stop), progress, threads, keep);
}

} // namespace stb
