#include "core/diffhistogram.h"

#include "core/busguard.h"
#include "core/decodebatch.h"

#include <algorithm>
#include <cmath>
#include <limits>
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

// One guarded chunk: decode [first, first+n) of both sides and hand each value pair to a visitor.
struct ChunkJob {
    const DiffSide *a, *b;
    std::uint64_t first, n;
    std::vector<double> *va, *vb;
    bool pairs;
    int pass;
    Range *ra, *rb, *rd;
    DiffHistograms *out;
};

void runChunk(void *context)
{
    auto &job = *static_cast<ChunkJob *>(context);
    const std::uint64_t na = job.a->elements > job.first ? std::min(job.n, job.a->elements - job.first) : 0;
    const std::uint64_t nb = job.b->elements > job.first ? std::min(job.n, job.b->elements - job.first) : 0;
    if (na)
        decodeBatch(job.a->dtype, job.a->bytes.data(), job.first, na, job.va->data());
    if (nb)
        decodeBatch(job.b->dtype, job.b->bytes.data(), job.first, nb, job.vb->data());
    const double *va = job.va->data(), *vb = job.vb->data();
    if (job.pass == 0) {
        for (std::uint64_t i = 0; i < na; ++i)
            job.ra->add(va[i]);
        for (std::uint64_t i = 0; i < nb; ++i)
            job.rb->add(vb[i]);
        if (job.pairs) {
            for (std::uint64_t i = 0; i < na; ++i) {
                if (std::isfinite(va[i]) && std::isfinite(vb[i]))
                    job.rd->add(va[i] - vb[i]);
            }
        }
        return;
    }
    for (std::uint64_t i = 0; i < na; ++i)
        count(job.out->a, va[i]);
    for (std::uint64_t i = 0; i < nb; ++i)
        count(job.out->b, vb[i]);
    if (job.pairs) {
        for (std::uint64_t i = 0; i < na; ++i) {
            if (std::isfinite(va[i]) && std::isfinite(vb[i])) {
                count(job.out->diff, va[i] - vb[i]);
                ++job.out->diffCount;
            }
        }
    }
}

} // namespace

std::optional<DiffHistograms> diffHistograms(const DiffSide &a, const DiffSide &b, unsigned bins,
                                             const std::atomic<bool> *cancel, const ProgressFn &progress)
{
    DiffHistograms out;
    Range ra, rb, rd;
    const bool pairs = a.elements == b.elements && a.elements > 0;
    const std::uint64_t longest = std::max(a.elements, b.elements);
    const std::uint64_t total = 2 * (a.elements + b.elements);
    std::vector<double> va(kChunk), vb(kChunk);
    std::uint64_t done = 0;
    for (int pass = 0; pass < 2; ++pass) {
        if (pass == 1) {
            Range both = ra;
            both.add(rb.lo), both.add(rb.hi);
            out.a = emptyBins(ra.empty() ? Range{} : both, bins);
            out.b = emptyBins(rb.empty() ? Range{} : both, bins);
            out.diff = emptyBins(rd, bins);
        }
        for (std::uint64_t first = 0; first < longest; first += kChunk) {
            if (cancel && cancel->load(std::memory_order_relaxed))
                return std::nullopt;
            const std::uint64_t n = std::min(kChunk, longest - first);
            ChunkJob job{&a, &b, first, n, &va, &vb, pairs, pass, &ra, &rb, &rd, &out};
            if (!runGuarded(runChunk, &job))
                return std::nullopt;
            done += std::min(n, a.elements > first ? a.elements - first : 0)
                + std::min(n, b.elements > first ? b.elements - first : 0);
            if (progress)
                progress(done, total);
        }
    }
    return out;
}

} // namespace stb
