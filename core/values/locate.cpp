#include "core/values/locate.h"

#include "core/concurrency/parallel.h"
#include "core/io/busguard.h"
#include "core/stats/kernels/valuescan.h"
#include "core/values/valuereader.h"

#include <algorithm>
#include <cmath>
#include <mutex>
#include <vector>

namespace stb {

namespace {

constexpr std::uint64_t kLocateChunk = std::uint64_t(1) << 20;

// Keeps `slot` at the earliest (index, value) for which `better` holds strictly, so that the
// first of equal values wins; chunks are merged the same way with a lower index on ties.
template<typename Better>
void offer(std::optional<LocatedValue> &slot, std::uint64_t index, double value, Better better)
{
    if (!slot || better(value, slot->value) || (!better(slot->value, value) && index < slot->index))
        slot = LocatedValue { index, value };
}

bool lower(double a, double b)
{
    return a < b;
}
bool higher(double a, double b)
{
    return a > b;
}
bool larger(double a, double b)
{
    return std::fabs(a) > std::fabs(b);
}
bool never(double, double)
{
    return false;
}

void merge(LocateResult &into, const LocateResult &from)
{
    const auto take
        = [](std::optional<LocatedValue> &slot, const std::optional<LocatedValue> &other, auto better) {
              if (other)
                  offer(slot, other->index, other->value, better);
          };
    take(into.firstNaN, from.firstNaN, never);
    take(into.firstPosInf, from.firstPosInf, never);
    take(into.firstNegInf, from.firstNegInf, never);
    take(into.min, from.min, lower);
    take(into.max, from.max, higher);
    take(into.absMax, from.absMax, larger);
}

// Index of the first element of `v` equal to `target` (present by construction).
std::uint64_t firstEqual(const double *v, std::uint64_t n, double target, bool magnitude)
{
    for (std::uint64_t i = 0; i < n; ++i) {
        if ((magnitude ? std::fabs(v[i]) : v[i]) == target)
            return i;
    }
    return 0;
}

struct ChunkJob {
    DType dtype;
    const std::byte *data;
    const LocateDecoder *decode; // when set, the values come from it instead of `data`
    std::uint64_t first, n;
    LocateResult *result;
};

// One chunk, a block at a time: a branch-free pass finds the block's range and whether it holds
// anything not finite (contiguous F32/BF16/F16 by the kernels straight from the mapping, other
// dtypes decoded to doubles first); only a block that beats the chunk's extremes or holds a
// NaN/Inf is looked at element by element, and only such a block of those dtypes is decoded.
void runChunk(void *context)
{
    const auto &job = *static_cast<const ChunkJob *>(context);
    LocateResult &result = *job.result;
    const bool kernel = !job.decode && kernels::scansFloats(job.dtype);
    const std::uint64_t size = kernel ? dtypeBits(job.dtype) / 8 : 0;
    double values[kLocateBlock];
    for (std::uint64_t done = 0; done < job.n; done += kLocateBlock) {
        const std::uint64_t n = std::min(kLocateBlock, job.n - done);
        const std::uint64_t base = job.first + done;
        bool decoded = false;
        const auto decode = [&] {
            if (decoded)
                return;
            if (job.decode)
                (*job.decode)(base, n, values);
            else
                gatherValues(job.dtype, job.data, base, 1, n, values);
            decoded = true;
        };
        double lo = INFINITY, hi = -INFINITY;
        bool special = false;
        if (kernel) {
            float flo, fhi;
            special = !kernels::finiteRange(job.dtype, job.data + base * size, n, flo, fhi);
            lo = flo, hi = fhi;
        } else {
            decode();
            for (std::uint64_t i = 0; i < n; ++i) {
                const double v = values[i];
                lo = v < lo ? v : lo;
                hi = v > hi ? v : hi;
                special |= !(v - v == 0);
            }
        }
        if (special) {
            decode();
            for (std::uint64_t i = 0; i < n; ++i) {
                const double v = values[i];
                if (std::isnan(v))
                    offer(result.firstNaN, base + i, v, never);
                else if (std::isinf(v))
                    offer(v > 0 ? result.firstPosInf : result.firstNegInf, base + i, v, never);
                else {
                    offer(result.min, base + i, v, lower);
                    offer(result.max, base + i, v, higher);
                    offer(result.absMax, base + i, v, larger);
                }
            }
            continue;
        }
        // The element found, not the block's extreme, gives the value: they differ in -0 and +0.
        if (!result.min || lo < result.min->value) {
            decode();
            const std::uint64_t i = firstEqual(values, n, lo, false);
            result.min = LocatedValue { base + i, values[i] };
        }
        if (!result.max || hi > result.max->value) {
            decode();
            const std::uint64_t i = firstEqual(values, n, hi, false);
            result.max = LocatedValue { base + i, values[i] };
        }
        const double magnitude = std::max(std::fabs(lo), std::fabs(hi));
        if (!result.absMax || magnitude > std::fabs(result.absMax->value)) {
            decode();
            const std::uint64_t i = firstEqual(values, n, magnitude, true);
            result.absMax = LocatedValue { base + i, values[i] };
        }
    }
}

} // namespace

namespace {

std::optional<LocateResult> locateChunks(DType dtype, const std::byte *data, const LocateDecoder *decode,
    std::uint64_t elements, std::stop_token stop, const ProgressFn &progress, unsigned threads)
{
    const std::uint64_t chunks = (elements + kLocateChunk - 1) / kLocateChunk;
    // One result per worker: a worker's chunks come in increasing order, and merging keeps the
    // lower index on ties, so memory stays constant whatever the tensor's size.
    const unsigned workers = threadCount(threads);
    std::vector<LocateResult> perWorker(workers);
    std::mutex progressMutex;
    std::uint64_t done = 0;
    const bool finished = parallelFor(chunks, workers, [&](std::uint64_t c, unsigned worker) {
        if (stop.stop_requested())
            return false;
        const std::uint64_t first = c * kLocateChunk;
        ChunkJob job { dtype, data, decode, first, std::min(kLocateChunk, elements - first),
            &perWorker[worker] };
        if (!runGuarded(runChunk, &job))
            return false;
        if (progress) {
            std::lock_guard lock(progressMutex);
            done += job.n;
            progress(done, elements);
        }
        return true;
    });
    if (!finished || stop.stop_requested())
        return std::nullopt;
    LocateResult result;
    result.count = elements;
    for (const LocateResult &partial : perWorker)
        merge(result, partial);
    return result;
}

} // namespace

std::optional<LocateResult> locateValues(DType dtype, std::span<const std::byte> bytes,
    std::uint64_t elements, std::stop_token stop, const ProgressFn &progress, unsigned threads)
{
    if (elementsIn(dtype, bytes) < elements)
        return std::nullopt;
    return locateChunks(dtype, bytes.data(), nullptr, elements, std::move(stop), progress, threads);
}

std::optional<LocateResult> locateDecoded(std::uint64_t elements, const LocateDecoder &decode,
    std::stop_token stop, const ProgressFn &progress, unsigned threads)
{
    return locateChunks(DType::F64, nullptr, &decode, elements, std::move(stop), progress, threads);
}

} // namespace stb
