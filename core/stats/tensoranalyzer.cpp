#include "core/stats/tensoranalyzer.h"

#include "core/io/busguard.h"
#include "core/concurrency/parallel.h"
#include "core/stats/binlayout.h"
#include "core/stats/secondpass.h"
#include "core/stats/statskernels.h"

// The dispatching XXH3 picks the widest vector unit the CPU has.
#include <xxh_x86dispatch.h>

#include <algorithm>
#include <mutex>
#include <thread>
#include <vector>

namespace stb {

namespace {

using kernels::kChunkElements;

// One worker's share of a tensor's scan. Everything a chunk touches is allocated up front: a
// chunk runs under the SIGBUS guard and may be abandoned midway.
struct Worker {
    explicit Worker(DType dtype, bool counted, unsigned bins)
        : counter(counted ? std::optional<kernels::CodeCounter>(dtype) : std::nullopt)
        , binCounts(bins, 0)
    { }
    std::optional<kernels::CodeCounter> counter;
    std::vector<std::uint64_t> codeTotals;
    StatsAccumulator acc;
    std::vector<std::uint64_t> binCounts;
    std::uint64_t outliers = 0;
};

// The digest of a tensor from its chunks' XXH3 (chunks of kChunkElements elements), seeded with
// its size.
ContentDigest combineDigests(const std::vector<std::uint64_t> &chunkDigests, std::uint64_t size)
{
    const XXH128_hash_t digest
        = XXH3_128bits_withSeed(chunkDigests.data(), chunkDigests.size() * sizeof(std::uint64_t), size);
    return { digest.high64, digest.low64 };
}

// One tensor's passes over its chunks: the bytes, the workers that compute, where per-chunk
// results and progress go. Pass 1 and pass 2 share it.
struct PassContext {
    DType dtype;
    std::span<const std::byte> bytes;
    std::uint64_t elements;
    std::vector<Worker> &workers;
    std::vector<std::uint64_t> &digests;      // pass 1: each chunk's XXH3; empty: none wanted
    std::vector<kernels::BlockRange> &ranges; // the tensor's block ranges; empty: none
    // Pass 1's statistics chunk by chunk (empty when codes are counted), merged in chunk order
    // afterwards: merged per worker, in the order the workers happened to take chunks, the last
    // bits of mean and std changed from run to run where sums round.
    std::vector<StatsAccumulator> &chunkStats;
    std::stop_token stop;
    const ProgressFn &progress;
    std::uint64_t progressTotal; // bytes of both passes
};

// Pass 1 (`plan` null: counts or moments, digests, block ranges) or pass 2 (histogram bins and
// outliers by `plan`) of elements [first, first+n) on one worker; run under the SIGBUS guard.
void runChunk(const PassContext &pass, const kernels::BinPlan *plan, Worker &worker, std::uint64_t chunk,
              std::uint64_t first, std::uint64_t n)
{
    const std::byte *data = pass.bytes.data();
    kernels::BlockRange *ranges = pass.ranges.empty() ? nullptr : pass.ranges.data();
    if (plan) {
        kernels::binValues(pass.dtype, data, first, n, *plan, worker.binCounts.data(), worker.outliers, ranges);
        return;
    }
    if (worker.counter)
        worker.counter->add(data, first, n);
    else
        kernels::scanValues(pass.dtype, data, first, n, pass.chunkStats[chunk], ranges);
    if (!pass.digests.empty()) {
        const unsigned bits = dtypeBits(pass.dtype);
        const std::uint64_t begin = first * bits / 8, end = (first + n) * bits / 8;
        pass.digests[chunk] = XXH3_64bits(data + begin, end - begin);
    }
}

// Runs pass 1 (`plan` null) or pass 2 over every chunk on the workers; false when cancelled or a
// chunk faulted.
bool runPass(const PassContext &pass, const kernels::BinPlan *plan)
{
    const std::uint64_t chunks = (pass.elements + kChunkElements - 1) / kChunkElements;
    const unsigned bits = dtypeBits(pass.dtype);
    const std::uint64_t progressBase = plan ? pass.bytes.size() : 0; // pass 2 follows pass 1
    std::mutex progressMutex;
    std::uint64_t done = 0;
    return parallelFor(
        chunks, static_cast<unsigned>(pass.workers.size()),
        [&](std::uint64_t c, unsigned w) {
            Worker &worker = pass.workers[w];
            const std::uint64_t first = c * kChunkElements;
            const std::uint64_t n = std::min(kChunkElements, pass.elements - first);
            if (!runGuarded([&] { runChunk(pass, plan, worker, c, first, n); }))
                return false;
            if (worker.counter && worker.counter->nearlyFull())
                worker.counter->flushInto(worker.codeTotals);
            if (pass.progress) {
                std::lock_guard lock(progressMutex);
                done += (first + n) * bits / 8 - first * bits / 8;
                pass.progress(progressBase + done, pass.progressTotal);
            }
            return true;
        },
        pass.stop);
}

// Everything derived exactly from per-code counts: moments, extremes, histogram, outliers.
// `blocks`: the first codes of the blocks of kCodeBlock codes that may be counted, ascending
// (most of a 16-bit table is empty).
TensorAnalysis fromCodeCounts(DType dtype, const std::vector<std::uint64_t> &counts,
                              const std::vector<std::uint32_t> &blocks, unsigned bins)
{
    TensorAnalysis result;
    StatsAccumulator acc;
    std::vector<std::pair<double, std::uint64_t>> values; // finite value, count
    for (const std::uint32_t base : blocks) {
        const std::size_t end = std::min(counts.size(), std::size_t(base) + kernels::kCodeBlock);
        for (std::size_t code = base; code < end; ++code) {
            if (!counts[code])
                continue;
            const double v = decodeCode(dtype, code);
            if (std::isnan(v))
                acc.addNan(counts[code]);
            else if (std::isinf(v))
                acc.addInf(v < 0, counts[code]);
            else
                values.emplace_back(v, counts[code]);
        }
    }
    for (const auto &[v, k] : values)
        acc.addFinite(v, k);
    result.stats = acc.stats();
    const TensorStats &s = result.stats;
    if (bins > 0 && s.finite && s.min < s.max) {
        const BinLayout layout = layoutBins(dtype, s.min, s.max, bins);
        const auto plan = kernels::makeBinPlan(layout.lo, layout.hi, layout.bins, s.mean, s.std);
        result.histogram = { layout.lo, layout.hi, std::vector<std::uint64_t>(layout.bins, 0) };
        for (const auto &[v, k] : values)
            result.histogram.counts[static_cast<std::size_t>(kernels::binIndex(plan, v))] += k;
    }
    if (s.finite && s.std > 0) {
        for (const auto &[v, k] : values)
            result.outliers += std::fabs(v - s.mean) > kOutlierSigmas * s.std ? k : 0;
    }
    return result;
}

} // namespace

std::optional<TensorAnalysis> analyzeTensor(DType dtype, std::span<const std::byte> bytes,
    std::uint64_t elements, const AnalysisOptions &options, std::stop_token stop,
    const ProgressFn &progress)
{
    if (bytesForElements(dtype, elements) != bytes.size())
        return std::nullopt;
    const unsigned bins = options.bins; // 0: no histogram
    const std::uint64_t chunks = (elements + kChunkElements - 1) / kChunkElements;
    unsigned threads = threadCount(options.threads);
    threads = static_cast<unsigned>(std::min<std::uint64_t>(threads, std::max<std::uint64_t>(chunks, 1)));
    const bool counted = kernels::countsCodes(dtype, bins);
    const std::uint64_t total = bytes.size() * (counted ? 1 : 2);

    std::vector<Worker> workers;
    workers.reserve(threads);
    for (unsigned i = 0; i < threads; ++i)
        workers.emplace_back(dtype, counted, std::max(1u, bins));
    std::vector<std::uint64_t> digests(options.digest ? chunks : 0, 0);
    // Ranges of the blocks pass 1 scans with the AVX-512 or the portable F32/BF16/F16 kernels, for
    // pass 2 (8 bytes per 4,096 values; beyond 2^21 blocks, 16 MiB, pass 2 does without).
    const std::uint64_t blocks = (elements + kernels::kRangeBlock - 1) / kernels::kRangeBlock;
    const bool useRanges = !counted
        && (dtype == DType::F32 || dtype == DType::BF16 || dtype == DType::F16
            || kernels::hasAvx512Kernels(dtype))
        && blocks <= (1u << 21);
    std::vector<kernels::BlockRange> ranges(useRanges ? blocks : 0);
    // 112 bytes a chunk of 2^18 values: 10 MiB for a tensor of 100 GB.
    std::vector<StatsAccumulator> chunkStats(counted ? 0 : chunks);
    const PassContext pass { dtype, bytes, elements, workers, digests, ranges, chunkStats, stop, progress,
        total };
    if (!runPass(pass, nullptr))
        return std::nullopt;
    for (const StatsAccumulator &chunk : chunkStats)
        workers.front().acc.merge(chunk);

    TensorAnalysis result;
    if (counted) {
        // One totals buffer per calling thread, all zeros between calls: a fresh 512 KiB for
        // every small tensor costs more than counting it, and so did clearing it whole. Only
        // the blocks the workers touched are read and cleared.
        thread_local std::vector<std::uint64_t> codes;
        thread_local std::vector<std::uint32_t> blocks;
        const std::size_t codeCount = std::size_t(1) << dtypeBits(dtype);
        if (codes.size() != codeCount)
            codes.assign(codeCount, 0);
        blocks.clear();
        bool dense = false; // a worker flushed midway (2^31 values): its totals may be anywhere
        for (auto &w : workers) {
            w.counter->flushInto(codes, &blocks);
            for (std::size_t c = 0; c < w.codeTotals.size(); ++c)
                codes[c] += w.codeTotals[c];
            dense = dense || !w.codeTotals.empty();
        }
        if (dense) {
            blocks.clear();
            for (std::size_t base = 0; base < codeCount; base += kernels::kCodeBlock)
                blocks.push_back(static_cast<std::uint32_t>(base));
        } else {
            std::sort(blocks.begin(), blocks.end()); // each worker's are ascending, not all of them
            blocks.erase(std::unique(blocks.begin(), blocks.end()), blocks.end());
        }
        result = fromCodeCounts(dtype, codes, blocks, bins);
        for (const std::uint32_t base : blocks)
            std::fill_n(codes.begin() + base, std::min(kernels::kCodeBlock, codeCount - base), 0);
    } else {
        const auto binPass = [&](const kernels::BinPlan &plan) { return runPass(pass, &plan); };
        if (!finishTwoPass(dtype, bins, workers, binPass, result))
            return std::nullopt;
    }
    result.stats.count = elements;
    if (options.digest)
        result.digest = combineDigests(digests, bytes.size());
    return result;
}

std::optional<ContentDigest> tensorDigest(DType dtype, std::span<const std::byte> bytes, std::uint64_t elements,
                                          std::stop_token stop)
{
    if (bytesForElements(dtype, elements) != bytes.size())
        return std::nullopt;
    const std::uint64_t chunks = (elements + kChunkElements - 1) / kChunkElements;
    const unsigned bits = dtypeBits(dtype);
    std::vector<std::uint64_t> digests(chunks, 0);
    for (std::uint64_t c = 0; c < chunks; ++c) {
        if (stop.stop_requested())
            return std::nullopt;
        const std::uint64_t first = c * kChunkElements, end = std::min(elements, first + kChunkElements);
        const std::byte *data = bytes.data() + first * bits / 8;
        const std::uint64_t size = end * bits / 8 - first * bits / 8;
        if (!runGuarded([&] { digests[c] = XXH3_64bits(data, size); }))
            return std::nullopt;
    }
    return combineDigests(digests, bytes.size());
}

} // namespace stb
