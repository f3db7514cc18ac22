#include "core/quant/quantanalyzer.h"

#include "core/concurrency/parallel.h"
#include "core/io/busguard.h"
#include "core/io/largealloc.h"
#include "core/quant/dequantruns.h"
#include "core/quant/dequantrunsavx2.h"
#include "core/quant/tapebuffer.h"
#include "core/stats/kernels/avx512.h"
#include "core/stats/kernels/valuescan.h"
#include "core/stats/secondpass.h"
#include "core/stats/statskernels.h"

#include <algorithm>
#include <atomic>
#include <mutex>
#include <vector>

namespace stb {

namespace {

using kernels::kChunkElements;
// Values decoded at once and handed to the kernels while they are still in the L1 cache.
constexpr std::uint64_t kBatch = 8192;
// Code counting's tape at most (Dequantizer::tapeBytes): a byte per 4 elements of a bitsandbytes
// weight in blocks of 64, per 8 of GPTQ or AWQ groups of 128.
constexpr std::uint64_t kMaxTape = std::uint64_t(256) << 20;

struct Worker {
    Worker(unsigned bins, const Dequantizer &dequantizer, bool decodes)
        : buffer(decodes ? kBatch : 0)
        , scratch(dequantizer.makeScratch())
        , binCounts(bins + 1, 0) // + 1: BinSink's trash
        , binTables(decodes ? 0 : kBinTables * (bins + 1), 0)
    { }
    std::vector<float> buffer;
    DequantScratch scratch;
    StatsAccumulator acc;
    std::vector<std::uint64_t> binCounts;
    // BinSink's interleaved bins: neighbouring codes often share a bin, and one table would make
    // each count wait for the previous one's store.
    static constexpr unsigned kBinTables = 4;
    std::vector<std::uint64_t> binTables;
    std::uint64_t outliers = 0;
    // Pass 1's counts kept for pass 2 (when few: see Kept), so that it need not count again.
    // Reserved up to Kept::limit in huge pages: grown in 4 KiB pages, megabytes of them cost a
    // page fault each (tens of microseconds on a virtual machine), more than the counting.
    std::vector<float, LargeAllocator<float>> keptValues;
    std::vector<std::uint32_t, LargeAllocator<std::uint32_t>> keptCounts;
};

// The (value, count) pairs all workers keep, up to a bound: a scale shared by thousands of
// elements (FP8, MXFP4, int8, nested absmax) gives few, so pass 2 bins them instead of reading
// the weight again; groups of 32 to 128 give too many, and pass 2 counts again.
struct Kept {
    explicit Kept(const Dequantizer &dequantizer)
        : limit(std::min<std::uint64_t>(std::uint64_t(1) << 21, std::max<std::uint64_t>(4096, dequantizer.elements() / 16)))
    {
        // At most one pair per 16 elements: a scale must cover 16 elements per code.
        if (dequantizer.scaleRun() / 16 < (std::uint64_t(1) << dequantizer.codeBits()))
            overflow = true;
    }
    const std::uint64_t limit;
    std::atomic<std::uint64_t> pairs { 0 };
    std::atomic<bool> overflow { false };
};

// Pass 1 over code counts: a range's finite values summed around its first finite value (in
// double), its extremes, NaN, Inf and zeros, added to the worker's accumulator by finish().
class MomentSink final : public CodeCountSink {
public:
    MomentSink(Worker &worker, Kept &kept)
        : m_worker(worker)
        , m_kept(kept)
    { }
    void add(const float *values, const std::uint32_t *counts, std::size_t n) override
    {
        keep(values, counts, n);
        if (!m_shifted) {
            for (std::size_t k = 0; k < n && !m_shifted; ++k) {
                if (counts[k] && std::isfinite(values[k])) {
                    m_shift = values[k];
                    m_shifted = true;
                }
            }
        }
        quant::countedMomentsRun(values, counts, n, m_shift, m_moments);
    }
    void finish(StatsAccumulator &acc) const
    {
        const quant::CountedMoments &m = m_moments;
        if (m.finite > 0) {
            acc.addFiniteBlock(static_cast<std::uint64_t>(m.finite), m_shift, m.sum, m.squares);
            acc.addExtremes(m.lo, m.hi, std::max(std::fabs(double(m.lo)), std::fabs(double(m.hi))));
            acc.addZeros(static_cast<std::uint64_t>(m.zeros));
        }
        if (m.nan > 0)
            acc.addNan(static_cast<std::uint64_t>(m.nan));
        if (m.posInf > 0)
            acc.addInf(false, static_cast<std::uint64_t>(m.posInf));
        if (m.negInf > 0)
            acc.addInf(true, static_cast<std::uint64_t>(m.negInf));
    }

private:
    void keep(const float *values, const std::uint32_t *counts, std::size_t n)
    {
        if (m_kept.overflow.load(std::memory_order_relaxed))
            return;
        if (m_kept.pairs.fetch_add(n, std::memory_order_relaxed) + n > m_kept.limit) {
            m_kept.overflow = true;
            return;
        }
        for (std::size_t k = 0; k < n; ++k) {
            if (counts[k]) {
                m_worker.keptValues.push_back(values[k]);
                m_worker.keptCounts.push_back(counts[k]);
            }
        }
    }

    Worker &m_worker;
    Kept &m_kept;
    quant::CountedMoments m_moments;
    double m_shift = 0;
    bool m_shifted = false;
};

// Pass 2 over code counts: each code's value binned once, with its count, by what the F32
// kernels compute per value: the float index (AVX-512) with binIndex for values near an edge,
// or binIndex; outliers by the scalar test, only when the range reaches that far.
class BinSink final : public CodeCountSink {
public:
    BinSink(const kernels::BinPlan &plan, Worker &worker)
        : m_plan(plan)
        , m_worker(worker)
        , m_bins(static_cast<unsigned>(plan.edges.size()) - 1)
        , m_zeroBin(kernels::binIndex(plan, 0.0))
    { }
    void add(const float *values, const std::uint32_t *counts, std::size_t n) override
    {
        addPairs(values, counts, n);
    }
    // Pass 2 replaying a tape: the counts straight from it.
    void addBytes(const float *values, const std::uint8_t *counts, std::size_t n) override
    {
        addPairs(values, counts, n);
    }
    // Folds the interleaved bins into the worker's.
    void finish()
    {
        const std::size_t stride = m_bins + 1;
        for (unsigned t = 0; t < Worker::kBinTables; ++t) {
            for (unsigned b = 0; b < m_bins; ++b)
                m_worker.binCounts[b] += m_worker.binTables[t * stride + b];
        }
        std::fill(m_worker.binTables.begin(), m_worker.binTables.end(), 0);
    }

private:
    template<typename Count> void addPairs(const float *values, const Count *counts, std::size_t n)
    {
        if (!m_plan.countBins) { // no histogram (the CLI audit table): only the outliers
            addOutliers(values, counts, n);
            return;
        }
        std::uint64_t *tables = m_worker.binTables.data();
        const std::size_t stride = m_bins + 1;
        std::size_t k = 0;
        std::uint64_t zeros = 0;
        const bool wide = kernels::avx512::enabled();
        if (m_plan.indexed && (wide || kernels::avx2::enabled())) {
            constexpr std::size_t kBlock = 1024;
            alignas(64) std::uint32_t index[kBlock], slow[kBlock];
            const std::size_t step = wide ? 16 : 8;
            while (n - k >= step) {
                const std::size_t length = std::min(kBlock, (n - k) / step * step);
                const std::size_t slowCount = wide
                    ? kernels::avx512::binIndices(reinterpret_cast<const std::byte *>(values + k), length,
                          m_plan.indexLo, m_plan.indexHi, m_plan.indexScale, m_bins, index, slow)
                    : quant::avx2::binIndices(values + k, length, m_plan.indexLo, m_plan.indexHi, m_plan.indexScale,
                          m_bins, index, slow);
                // Out of range or slow: the trash, m_bins. Length is a multiple of kBinTables.
                static_assert(Worker::kBinTables == 4);
                std::uint64_t *t0 = tables, *t1 = t0 + stride, *t2 = t1 + stride, *t3 = t2 + stride;
                const Count *c = counts + k;
                for (std::size_t j = 0; j < length; j += 4) {
                    t0[index[j]] += c[j];
                    t1[index[j + 1]] += c[j + 1];
                    t2[index[j + 2]] += c[j + 2];
                    t3[index[j + 3]] += c[j + 3];
                }
                // Most slow values are zeros on a bin edge (a code's value in every block): their
                // counts summed here, not added one by one to the same counter in memory.
                for (std::size_t s = 0; s < slowCount; ++s) {
                    const float value = values[k + slow[s]];
                    if (value == 0)
                        zeros += counts[k + slow[s]];
                    else
                        binOne(value, counts[k + slow[s]]);
                }
                k += length;
            }
        }
        if (zeros && m_zeroBin >= 0)
            m_worker.binCounts[static_cast<std::size_t>(m_zeroBin)] += zeros;
        for (; k < n; ++k)
            binOne(values[k], counts[k]);
        addOutliers(values, counts, n);
    }
    template<typename Count> void addOutliers(const float *values, const Count *counts, std::size_t n)
    {
        if (m_plan.outliersPossible)
            m_worker.outliers
                += quant::countedOutliersRun(values, counts, n, m_plan.outlierAbove, m_plan.outlierBelow);
    }
    // Zero is often a code's value (bitsandbytes' tables, symmetric codes) and often an edge
    // (a symmetric range), where the float index hands it here: its bin is known.
    void binOne(float value, std::uint32_t count)
    {
        const int b = value == 0 ? m_zeroBin : kernels::binIndex(m_plan, value);
        if (b >= 0)
            m_worker.binCounts[static_cast<std::size_t>(b)] += count;
    }

    const kernels::BinPlan &m_plan;
    Worker &m_worker;
    unsigned m_bins;
    int m_zeroBin;
};

// One analysis: its workers, and passes over ranges of `unit` positions on them.
struct Analysis {
    Analysis(const Dequantizer &dq, std::uint64_t range, unsigned threads, unsigned bins, bool decodes,
        std::stop_token stopToken, const ProgressFn &progressFn)
        : elements(dq.elements())
        , unit(range)
        , stop(std::move(stopToken))
        , progress(progressFn)
    {
        workers.reserve(threads);
        for (unsigned i = 0; i < threads; ++i)
            workers.emplace_back(bins, dq, decodes);
        rangeStats.resize((elements + unit - 1) / unit);
    }
    std::uint64_t elements, unit;
    std::vector<Worker> workers;
    // Pass 1's statistics range by range, merged in range order (mergeRangeStats): merged per
    // worker, in the order workers took ranges, mean and std changed in their last bits from run
    // to run (as tensoranalyzer.cpp's chunks did).
    std::vector<StatsAccumulator> rangeStats;
    std::stop_token stop;
    const ProgressFn &progress;
    std::mutex progressMutex;
    std::uint64_t done = 0;

    StatsAccumulator &statsOf(std::uint64_t first) { return rangeStats[first / unit]; }
    void mergeRangeStats()
    {
        for (const StatsAccumulator &range : rangeStats)
            workers.front().acc.merge(range);
    }

    // Runs `work(worker, first, n)` on every range, each under the SIGBUS guard; false when
    // cancelled or a range faulted.
    template<typename Work> bool pass(const Work &work)
    {
        const std::uint64_t ranges = (elements + unit - 1) / unit;
        return parallelFor(
            ranges, static_cast<unsigned>(workers.size()),
            [&](std::uint64_t c, unsigned w) {
                Worker &worker = workers[w];
                const std::uint64_t first = c * unit, n = std::min(unit, elements - first);
                // One guard for the range (entering one costs a system call).
                if (!runGuarded([&] { work(worker, first, n); }))
                    return false;
                if (progress) {
                    std::lock_guard lock(progressMutex);
                    done += n;
                    progress(done, 2 * elements);
                }
                return true;
            },
            stop);
    }
};

// The ranges of the counting passes: whole multiples of the dequantizer's span (they report the
// fewest runs) of at least a chunk, unless that leaves the threads too few ranges.
std::uint64_t countingUnit(const Dequantizer &dequantizer, unsigned threads)
{
    const std::uint64_t elements = dequantizer.elements();
    const std::uint64_t span = std::max<std::uint64_t>(1, dequantizer.countSpan());
    const std::uint64_t unit = span >= kChunkElements ? span : (kChunkElements / span) * span;
    if ((elements + unit - 1) / unit >= 2 * std::uint64_t(threads))
        return unit;
    const std::uint64_t share = (elements + 2 * threads - 1) / (2 * threads);
    return std::max<std::uint64_t>(share, 1024);
}

unsigned threadsFor(const AnalysisOptions &options, std::uint64_t elements)
{
    const std::uint64_t chunks = (elements + kChunkElements - 1) / kChunkElements;
    return static_cast<unsigned>(
        std::min<std::uint64_t>(threadCount(options.threads), std::max<std::uint64_t>(chunks, 1)));
}

} // namespace

std::optional<TensorAnalysis> analyzeQuantized(const Dequantizer &dequantizer, const AnalysisOptions &options,
    std::stop_token stop, const ProgressFn &progress)
{
    if (options.bins ? dequantizer.countingPays() : dequantizer.countingPaysWithoutHistogram())
        return analyzeQuantizedCodes(dequantizer, options, std::move(stop), progress);
    if (dequantizer.byteGroups())
        return analyzeQuantizedByteGroups(dequantizer, options, std::move(stop), progress);
    return analyzeQuantizedValues(dequantizer, options, std::move(stop), progress);
}

std::optional<TensorAnalysis> analyzeQuantizedValues(const Dequantizer &dequantizer,
    const AnalysisOptions &options, std::stop_token stop, const ProgressFn &progress)
{
    const unsigned bins = std::max(1u, options.bins); // workers' tables: at least one bin
    const unsigned threads = threadsFor(options, dequantizer.elements());
    Analysis analysis(dequantizer, kChunkElements, threads, bins, true, std::move(stop), progress);

    // One pass: decode each chunk in storage order, which the statistics do not see, a batch at
    // a time, each batch fed to `use` while it is in the cache.
    const auto pass = [&](const auto &use) {
        return analysis.pass([&](Worker &worker, std::uint64_t first, std::uint64_t n) {
            for (std::uint64_t at = 0; at < n; at += kBatch) {
                const std::uint64_t batch = std::min(kBatch, n - at);
                dequantizer.decodeStorage(first + at, batch, worker.buffer.data(), worker.scratch);
                use(worker, first, reinterpret_cast<const std::byte *>(worker.buffer.data()), batch);
            }
        });
    };
    if (!pass([&](Worker &, std::uint64_t first, const std::byte *data, std::uint64_t n) {
            kernels::scanValues(DType::F32, data, 0, n, analysis.statsOf(first));
        }))
        return std::nullopt;
    analysis.mergeRangeStats();

    // The dequantized values are F32 to the kernels: numpy's bins over [min, max].
    TensorAnalysis result;
    const auto binPass = [&](const kernels::BinPlan &plan) {
        return pass([&plan](Worker &w, std::uint64_t, const std::byte *data, std::uint64_t n) {
            kernels::binValues(DType::F32, data, 0, n, plan, w.binCounts.data(), w.outliers);
        });
    };
    if (!finishTwoPass(DType::F32, options.bins, analysis.workers, binPass, result))
        return std::nullopt;
    result.stats.count = dequantizer.elements();
    return result;
}

std::optional<TensorAnalysis> analyzeQuantizedCodes(const Dequantizer &dequantizer,
    const AnalysisOptions &options, std::stop_token stop, const ProgressFn &progress)
{
    if (!dequantizer.countsCodes())
        return std::nullopt;
    const unsigned bins = std::max(1u, options.bins); // workers' tables: at least one bin
    const unsigned threads = threadsFor(options, dequantizer.elements());
    Analysis analysis(
        dequantizer, countingUnit(dequantizer, threads), threads, bins, false, std::move(stop), progress);

    Kept kept(dequantizer);
    if (!kept.overflow) {
        for (Worker &worker : analysis.workers) {
            worker.keptValues.reserve(kept.limit);
            worker.keptCounts.reserve(kept.limit);
        }
    }
    // Too many pairs to keep (groups of 32 to 255): pass 1 records the counts a byte each, when
    // that takes at most kMaxTape bytes, and pass 2 replays them instead of counting again.
    const std::uint64_t tapeStride = dequantizer.tapesCounts() ? dequantizer.tapeBytes(analysis.unit) : 0;
    const std::uint64_t ranges = (analysis.elements + analysis.unit - 1) / analysis.unit;
    const quant::TapeBuffer tape(
        kept.overflow && tapeStride && ranges * tapeStride <= kMaxTape ? ranges * tapeStride : 0);
    const auto tapeOf = [&](std::uint64_t first) { return tape.data() + first / analysis.unit * tapeStride; };
    if (!analysis.pass([&](Worker &worker, std::uint64_t first, std::uint64_t n) {
            MomentSink sink(worker, kept);
            dequantizer.countStorage(
                first, n, worker.scratch, sink, tape.empty() ? CountTape {} : CountTape { tapeOf(first), nullptr });
            sink.finish(analysis.statsOf(first));
        }))
        return std::nullopt;
    analysis.mergeRangeStats();
    // Bins over [min, max] as for F32 values: the same layout, plan and per-value tests.
    TensorAnalysis result;
    const auto binPass = [&](const kernels::BinPlan &plan) {
        if (!kept.overflow) { // the kept pairs, each worker's own
            const bool binned = parallelFor(
                analysis.workers.size(), static_cast<unsigned>(analysis.workers.size()),
                [&](std::uint64_t k, unsigned) {
                    Worker &worker = analysis.workers[k];
                    BinSink sink(plan, worker);
                    sink.add(worker.keptValues.data(), worker.keptCounts.data(), worker.keptValues.size());
                    sink.finish();
                    return true;
                },
                analysis.stop);
            if (binned && progress)
                progress(2 * analysis.elements, 2 * analysis.elements);
            return binned;
        }
        for (Worker &worker : analysis.workers) { // too many: counted again
            worker.keptValues = {};
            worker.keptCounts = {};
        }
        return analysis.pass([&](Worker &worker, std::uint64_t first, std::uint64_t n) {
            BinSink sink(plan, worker);
            dequantizer.countStorage(
                first, n, worker.scratch, sink, tape.empty() ? CountTape {} : CountTape { nullptr, tapeOf(first) });
            sink.finish();
        });
    };
    if (!finishTwoPass(DType::F32, options.bins, analysis.workers, binPass, result))
        return std::nullopt;
    result.stats.count = dequantizer.elements();
    return result;
}

} // namespace stb
