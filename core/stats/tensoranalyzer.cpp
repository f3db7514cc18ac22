#include "core/stats/tensoranalyzer.h"

#include "core/io/busguard.h"
#include "core/concurrency/parallel.h"
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

struct ChunkJob {
    DType dtype;
    const std::byte *data;
    std::uint64_t first, n, bytesBegin, bytesEnd;
    Worker *worker;
    const kernels::BinPlan *plan; // pass 2 when set
    std::uint64_t *digest;        // pass 1: the chunk's XXH3, when digests are wanted
    kernels::BlockRange *ranges;  // the tensor's block ranges, or null
};

void runChunk(void *context)
{
    auto &job = *static_cast<ChunkJob *>(context);
    if (job.plan) {
        kernels::binValues(job.dtype, job.data, job.first, job.n, *job.plan, job.worker->binCounts.data(),
            job.worker->outliers, job.ranges);
        return;
    }
    if (job.worker->counter)
        job.worker->counter->add(job.data, job.first, job.n);
    else
        kernels::scanValues(job.dtype, job.data, job.first, job.n, job.worker->acc, job.ranges);
    if (job.digest)
        *job.digest = XXH3_64bits(job.data + job.bytesBegin, job.bytesEnd - job.bytesBegin);
}

// The digest of a tensor from its chunks' XXH3 (chunks of kChunkElements elements), seeded with
// its size.
ContentDigest combineDigests(const std::vector<std::uint64_t> &chunkDigests, std::uint64_t size)
{
    const XXH128_hash_t digest
        = XXH3_128bits_withSeed(chunkDigests.data(), chunkDigests.size() * sizeof(std::uint64_t), size);
    return { digest.high64, digest.low64 };
}

struct DigestJob {
    const std::byte *data;
    std::uint64_t size;
    std::uint64_t *digest;
};

void runDigest(void *context)
{
    auto &job = *static_cast<DigestJob *>(context);
    *job.digest = XXH3_64bits(job.data, job.size);
}

// Runs `pass` over every chunk on the workers; false when cancelled or a chunk faulted.
bool runPass(DType dtype, std::span<const std::byte> bytes, std::uint64_t elements,
    std::vector<Worker> &workers, const kernels::BinPlan *plan, std::vector<std::uint64_t> &digests,
    std::vector<kernels::BlockRange> &ranges, const std::atomic<bool> *cancel, const ProgressFn &progress,
    std::uint64_t progressBase, std::uint64_t progressTotal)
{
    const std::uint64_t chunks = (elements + kChunkElements - 1) / kChunkElements;
    const unsigned bits = dtypeBits(dtype);
    std::mutex progressMutex;
    std::uint64_t done = 0;
    return parallelFor(
        chunks, static_cast<unsigned>(workers.size()),
        [&](std::uint64_t c, unsigned w) {
            Worker &worker = workers[w];
            const std::uint64_t first = c * kChunkElements;
            const std::uint64_t n = std::min(kChunkElements, elements - first);
            ChunkJob job { dtype, bytes.data(), first, n, first * bits / 8, (first + n) * bits / 8, &worker,
                plan, digests.empty() ? nullptr : &digests[c], ranges.empty() ? nullptr : ranges.data() };
            if (!runGuarded(runChunk, &job))
                return false;
            if (worker.counter && worker.counter->nearlyFull())
                worker.counter->flushInto(worker.codeTotals);
            if (progress) {
                std::lock_guard lock(progressMutex);
                done += job.bytesEnd - job.bytesBegin;
                progress(progressBase + done, progressTotal);
            }
            return true;
        },
        cancel);
}

// Everything derived exactly from per-code counts: moments, extremes, histogram, outliers.
TensorAnalysis fromCodeCounts(DType dtype, const std::vector<std::uint64_t> &counts, unsigned bins)
{
    TensorAnalysis result;
    StatsAccumulator acc;
    std::vector<std::pair<double, std::uint64_t>> values; // finite value, count
    for (std::size_t code = 0; code < counts.size(); ++code) {
        // Skip runs of unused codes eight at a time (most of a 16-bit table is empty).
        if ((code & 7) == 0 && code + 8 <= counts.size()) {
            std::uint64_t any = 0;
            for (std::size_t k = 0; k < 8; ++k)
                any |= counts[code + k];
            if (!any) {
                code += 7;
                continue;
            }
        }
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
    for (const auto &[v, k] : values)
        acc.addFinite(v, k);
    result.stats = acc.stats();
    const TensorStats &s = result.stats;
    if (s.finite && s.min < s.max) {
        const auto plan = kernels::makeBinPlan(s.min, s.max, bins, s.mean, s.std);
        result.histogram = { s.min, s.max, std::vector<std::uint64_t>(bins, 0) };
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
    std::uint64_t elements, const AnalysisOptions &options, const std::atomic<bool> *cancel,
    const ProgressFn &progress)
{
    const unsigned bins = std::max(1u, options.bins);
    const std::uint64_t chunks = (elements + kChunkElements - 1) / kChunkElements;
    unsigned threads = threadCount(options.threads);
    threads = static_cast<unsigned>(std::min<std::uint64_t>(threads, std::max<std::uint64_t>(chunks, 1)));
    const bool counted = kernels::countsCodes(dtype, bins);
    const std::uint64_t total = bytes.size() * (counted ? 1 : 2);

    std::vector<Worker> workers;
    workers.reserve(threads);
    for (unsigned i = 0; i < threads; ++i)
        workers.emplace_back(dtype, counted, bins);
    std::vector<std::uint64_t> digests(options.digest ? chunks : 0, 0);
    // Ranges of the blocks pass 1 scans with the AVX-512 kernels, for pass 2 (8 bytes per 4,096
    // values; beyond 2^21 blocks, 16 MiB, pass 2 does without).
    const std::uint64_t blocks = (elements + kernels::kRangeBlock - 1) / kernels::kRangeBlock;
    const bool useRanges = !counted && kernels::hasWideKernels(dtype) && blocks <= (1u << 21);
    std::vector<kernels::BlockRange> ranges(useRanges ? blocks : 0);
    if (!runPass(dtype, bytes, elements, workers, nullptr, digests, ranges, cancel, progress, 0, total))
        return std::nullopt;

    TensorAnalysis result;
    if (counted) {
        // One totals buffer per calling thread, cleared after use: a fresh 512 KiB for every
        // small tensor costs more than counting it.
        thread_local std::vector<std::uint64_t> codes;
        codes.assign(std::size_t(1) << dtypeBits(dtype), 0);
        for (auto &w : workers) {
            w.counter->flushInto(codes);
            for (std::size_t c = 0; c < w.codeTotals.size(); ++c)
                codes[c] += w.codeTotals[c];
        }
        result = fromCodeCounts(dtype, codes, bins);
    } else {
        StatsAccumulator acc;
        for (const auto &w : workers)
            acc.merge(w.acc);
        result.stats = acc.stats();
        const TensorStats &s = result.stats;
        const bool wantHistogram = s.finite && s.min < s.max;
        if (wantHistogram || (s.finite && s.std > 0)) {
            auto plan = kernels::makeBinPlan(
                wantHistogram ? s.min : 0, wantHistogram ? s.max : 1, bins, s.mean, s.std);
            kernels::prepareThresholds(plan, dtype, s);
            std::vector<std::uint64_t> noDigests;
            if (!runPass(dtype, bytes, elements, workers, &plan, noDigests, ranges, cancel, progress,
                    bytes.size(), total))
                return std::nullopt;
            if (wantHistogram) {
                result.histogram = { s.min, s.max, std::vector<std::uint64_t>(bins, 0) };
                for (const auto &w : workers) {
                    for (unsigned b = 0; b < bins; ++b)
                        result.histogram.counts[b] += w.binCounts[b];
                }
            }
            for (const auto &w : workers)
                result.outliers += w.outliers;
        }
    }
    result.stats.count = elements;
    if (options.digest)
        result.digest = combineDigests(digests, bytes.size());
    return result;
}

std::optional<ContentDigest> tensorDigest(DType dtype, std::span<const std::byte> bytes, std::uint64_t elements,
                                          const std::atomic<bool> *cancel)
{
    const std::uint64_t chunks = (elements + kChunkElements - 1) / kChunkElements;
    const unsigned bits = dtypeBits(dtype);
    std::vector<std::uint64_t> digests(chunks, 0);
    for (std::uint64_t c = 0; c < chunks; ++c) {
        if (cancel && *cancel)
            return std::nullopt;
        const std::uint64_t first = c * kChunkElements, end = std::min(elements, first + kChunkElements);
        DigestJob job { bytes.data() + first * bits / 8, end * bits / 8 - first * bits / 8, &digests[c] };
        if (!runGuarded(runDigest, &job))
            return std::nullopt;
    }
    return combineDigests(digests, bytes.size());
}

} // namespace stb
