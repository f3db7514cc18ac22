#include "core/quant/quantanalyzer.h"

#include "core/concurrency/parallel.h"
#include "core/io/busguard.h"
#include "core/stats/secondpass.h"
#include "core/stats/statskernels.h"

#include <algorithm>
#include <mutex>
#include <vector>

namespace stb {

namespace {

using kernels::kChunkElements;
// Values decoded at once and handed to the kernels while they are still in the L1 cache.
constexpr std::uint64_t kBatch = 8192;

struct Worker {
    Worker(unsigned bins, const Dequantizer &dequantizer)
        : buffer(kBatch)
        , scratch(dequantizer.makeScratch())
        , binCounts(bins, 0)
    { }
    std::vector<float> buffer;
    DequantScratch scratch;
    StatsAccumulator acc;
    std::vector<std::uint64_t> binCounts;
    std::uint64_t outliers = 0;
};

} // namespace

std::optional<TensorAnalysis> analyzeQuantized(const Dequantizer &dequantizer, const AnalysisOptions &options,
    std::stop_token stop, const ProgressFn &progress)
{
    const unsigned bins = std::max(1u, options.bins);
    const std::uint64_t elements = dequantizer.elements();
    const std::uint64_t chunks = (elements + kChunkElements - 1) / kChunkElements;
    const unsigned threads = static_cast<unsigned>(
        std::min<std::uint64_t>(threadCount(options.threads), std::max<std::uint64_t>(chunks, 1)));
    std::vector<Worker> workers;
    workers.reserve(threads);
    for (unsigned i = 0; i < threads; ++i)
        workers.emplace_back(bins, dequantizer);

    std::mutex progressMutex;
    std::uint64_t done = 0;
    // One pass: decode each chunk (guarded) in storage order, which the statistics do not see,
    // a batch at a time, each batch fed to `use` while it is in the cache.
    const auto pass = [&](const auto &use) {
        return parallelFor(
            chunks, threads,
            [&](std::uint64_t c, unsigned w) {
                Worker &worker = workers[w];
                const std::uint64_t first = c * kChunkElements,
                                    n = std::min(kChunkElements, elements - first);
                // One guard for the chunk (entering one costs a system call); the kernels
                // inside it read only the buffer.
                const bool read = runGuarded([&] {
                    for (std::uint64_t at = 0; at < n; at += kBatch) {
                        const std::uint64_t batch = std::min(kBatch, n - at);
                        dequantizer.decodeStorage(first + at, batch, worker.buffer.data(), worker.scratch);
                        use(worker, reinterpret_cast<const std::byte *>(worker.buffer.data()), batch);
                    }
                });
                if (!read)
                    return false;
                if (progress) {
                    std::lock_guard lock(progressMutex);
                    done += n;
                    progress(done, 2 * elements);
                }
                return true;
            },
            stop);
    };
    if (!pass([](Worker &w, const std::byte *data, std::uint64_t n) {
            kernels::scanValues(DType::F32, data, 0, n, w.acc);
        }))
        return std::nullopt;

    // The dequantized values are F32 to the kernels: numpy's bins over [min, max].
    TensorAnalysis result;
    const auto binPass = [&](const kernels::BinPlan &plan) {
        return pass([&plan](Worker &w, const std::byte *data, std::uint64_t n) {
            kernels::binValues(DType::F32, data, 0, n, plan, w.binCounts.data(), w.outliers);
        });
    };
    if (!finishTwoPass(DType::F32, bins, workers, binPass, result))
        return std::nullopt;
    result.stats.count = elements;
    return result;
}

} // namespace stb
