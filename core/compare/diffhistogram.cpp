#include "core/compare/diffhistogram.h"

#include "core/io/busguard.h"
#include "core/format/decodebatch.h"
#include "core/concurrency/parallel.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <mutex>
#include <vector>

namespace stb {

namespace {

constexpr std::uint64_t kChunk = 1 << 16; // elements decoded at a time: fits in L2, cancels fast

struct Range {
    double lo = std::numeric_limits<double>::infinity();
    double hi = -std::numeric_limits<double>::infinity();
    void add(double v)
    {
        if (std::isfinite(v))
            lo = std::min(lo, v), hi = std::max(hi, v);
    }
    bool empty() const { return lo > hi; }
};

Histogram emptyBins(Range range, unsigned bins)
{
    Histogram h;
    if (range.empty() || bins == 0)
        return h;
    if (range.lo == range.hi)
        range.lo -= 0.5, range.hi += 0.5;
    h.lo = range.lo;
    h.hi = range.hi;
    h.counts.assign(bins, 0);
    return h;
}

void count(Histogram &h, double v)
{
    if (h.empty() || !std::isfinite(v) || v < h.lo || v > h.hi)
        return;
    const auto n = h.counts.size();
    auto bin = static_cast<std::size_t>((v - h.lo) / (h.hi - h.lo) * static_cast<double>(n));
    ++h.counts[std::min(bin, n - 1)]; // the last bin is closed
}

// One worker's buffers and partial results: ranges in pass 0, counts in pass 1.
struct Worker {
    std::vector<double> va, vb;
    Range ra, rb, rd;
    DiffHistograms part;
};

// One guarded chunk: decode [first, first+n) of both sides into the worker's partial results
// (pass 0: ranges, pass 1: counts).
void runChunk(const DiffSide &a, const DiffSide &b, std::uint64_t first, std::uint64_t n, bool pairs, int pass,
              Worker &w)
{
    const std::uint64_t na = a.elements > first ? std::min(n, a.elements - first) : 0;
    const std::uint64_t nb = b.elements > first ? std::min(n, b.elements - first) : 0;
    if (na)
        decodeBatch(a.dtype, a.bytes.data(), first, na, w.va.data());
    if (nb)
        decodeBatch(b.dtype, b.bytes.data(), first, nb, w.vb.data());
    const double *va = w.va.data(), *vb = w.vb.data();
    if (pass == 0) {
        for (std::uint64_t i = 0; i < na; ++i)
            w.ra.add(va[i]);
        for (std::uint64_t i = 0; i < nb; ++i)
            w.rb.add(vb[i]);
        if (pairs) {
            for (std::uint64_t i = 0; i < na; ++i) {
                if (std::isfinite(va[i]) && std::isfinite(vb[i]))
                    w.rd.add(va[i] - vb[i]);
            }
        }
        return;
    }
    for (std::uint64_t i = 0; i < na; ++i)
        count(w.part.a, va[i]);
    for (std::uint64_t i = 0; i < nb; ++i)
        count(w.part.b, vb[i]);
    if (pairs) {
        for (std::uint64_t i = 0; i < na; ++i) {
            if (std::isfinite(va[i]) && std::isfinite(vb[i])) {
                count(w.part.diff, va[i] - vb[i]);
                ++w.part.diffCount;
            }
        }
    }
}

void addCounts(Histogram &to, const Histogram &from)
{
    for (std::size_t i = 0; i < to.counts.size(); ++i)
        to.counts[i] += from.counts[i];
}

} // namespace

std::optional<DiffHistograms> diffHistograms(const DiffSide &a, const DiffSide &b, unsigned bins,
                                             std::stop_token stop, const ProgressFn &progress,
                                             unsigned threads)
{
    if (bytesForElements(a.dtype, a.elements) != a.bytes.size()
        || bytesForElements(b.dtype, b.elements) != b.bytes.size())
        return std::nullopt;
    DiffHistograms out;
    Range ra, rb, rd;
    const bool pairs = a.elements == b.elements && a.elements > 0;
    const std::uint64_t longest = std::max(a.elements, b.elements);
    const std::uint64_t chunks = (longest + kChunk - 1) / kChunk;
    const std::uint64_t total = 2 * (a.elements + b.elements);
    std::vector<Worker> workers(
        static_cast<std::size_t>(std::clamp<std::uint64_t>(chunks, 1, threadCount(threads))));
    for (auto &w : workers)
        w.va.resize(kChunk), w.vb.resize(kChunk);
    std::mutex progressMutex;
    std::uint64_t done = 0;
    for (int pass = 0; pass < 2; ++pass) {
        if (pass == 1) {
            Range both = ra;
            both.add(rb.lo), both.add(rb.hi);
            out.a = emptyBins(ra.empty() ? Range{} : both, bins);
            out.b = emptyBins(rb.empty() ? Range{} : both, bins);
            out.diff = emptyBins(rd, bins);
            for (auto &w : workers)
                w.part = out;
        }
        const bool finished = parallelFor(
            chunks, static_cast<unsigned>(workers.size()),
            [&](std::uint64_t c, unsigned w) {
                const std::uint64_t first = c * kChunk, n = std::min(kChunk, longest - first);
                if (!runGuarded([&] { runChunk(a, b, first, n, pairs, pass, workers[w]); }))
                    return false;
                if (progress) {
                    std::lock_guard lock(progressMutex);
                    done += std::min(n, a.elements > first ? a.elements - first : 0)
                        + std::min(n, b.elements > first ? b.elements - first : 0);
                    progress(done, total);
                }
                return true;
            },
            stop);
        if (!finished)
            return std::nullopt;
        for (const auto &w : workers) {
            if (pass == 0) {
                ra.add(w.ra.lo), ra.add(w.ra.hi);
                rb.add(w.rb.lo), rb.add(w.rb.hi);
                rd.add(w.rd.lo), rd.add(w.rd.hi);
            } else {
                addCounts(out.a, w.part.a);
                addCounts(out.b, w.part.b);
                addCounts(out.diff, w.part.diff);
                out.diffCount += w.part.diffCount;
            }
        }
    }
    return out;
}

} // namespace stb
