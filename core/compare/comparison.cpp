#include "core/compare/comparison.h"

#include "core/io/busguard.h"
#include "core/format/decodebatch.h"
#include "core/concurrency/parallel.h"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <mutex>
#include <unordered_map>

namespace stb {

namespace {

constexpr std::uint64_t kBatch = 2048; // decoded elements held at once per side

// Mergeable per-chunk sums behind DiffMetrics.
struct DiffSums {
    std::uint64_t compared = 0, different = 0, nanA = 0, nanB = 0, infA = 0, infB = 0, outOfTolerance = 0;
    double maxAbs = -1;
    std::uint64_t argmax = 0;
    double sumAbs = 0, sumSqDiff = 0, sumSqA = 0, sumSqB = 0, dot = 0;

    void merge(const DiffSums &o)
    {
        compared += o.compared, different += o.different, nanA += o.nanA, nanB += o.nanB;
        infA += o.infA, infB += o.infB, outOfTolerance += o.outOfTolerance;
        if (o.maxAbs > maxAbs || (o.maxAbs == maxAbs && o.argmax < argmax))
            maxAbs = o.maxAbs, argmax = o.argmax;
        sumAbs += o.sumAbs, sumSqDiff += o.sumSqDiff, sumSqA += o.sumSqA, sumSqB += o.sumSqB, dot += o.dot;
    }

    DiffMetrics metrics() const
    {
        DiffMetrics m;
        m.compared = compared, m.different = different, m.nanA = nanA, m.nanB = nanB, m.infA = infA, m.infB = infB;
        m.outOfTolerance = outOfTolerance;
        if (compared) {
            m.maxAbsDiff = std::max(0.0, maxAbs);
            m.argmax = maxAbs >= 0 ? argmax : 0;
            m.meanAbsDiff = sumAbs / static_cast<double>(compared);
            m.relL2 = sumSqA > 0 ? std::sqrt(sumSqDiff) / std::sqrt(sumSqA) : (sumSqDiff == 0 ? 0.0 : NAN);
            m.cosine = sumSqA > 0 && sumSqB > 0 ? dot / (std::sqrt(sumSqA) * std::sqrt(sumSqB)) : NAN;
        }
        return m;
    }
};

struct Side {
    DType dtype;
    const std::byte *data;
};

// Decode buffers of one worker: allocated once, so a chunk (run under the SIGBUS guard) allocates
// nothing.
struct Buffers {
    std::vector<double> aRe = std::vector<double>(kBatch), aIm = std::vector<double>(kBatch);
    std::vector<double> bRe = std::vector<double>(kBatch), bIm = std::vector<double>(kBatch);
};

// Sums of elements [first, first+count) of a pair into `s`, decoded through `buf` (run guarded).
void measureChunk(Side a, Side b, std::uint64_t first, std::uint64_t count, double atol, double rtol,
                  Buffers &buf, DiffSums &s)
{
    for (std::uint64_t start = 0; start < count; start += kBatch) {
        const std::uint64_t n = std::min(kBatch, count - start);
        decodeBatch(a.dtype, a.data, first + start, n, buf.aRe.data(), buf.aIm.data());
        decodeBatch(b.dtype, b.data, first + start, n, buf.bRe.data(), buf.bIm.data());
        for (std::uint64_t i = 0; i < n; ++i) {
            const double ar = buf.aRe[i], ai = buf.aIm[i], br = buf.bRe[i], bi = buf.bIm[i];
            const bool nanA = std::isnan(ar) || std::isnan(ai), nanB = std::isnan(br) || std::isnan(bi);
            const bool finA = std::isfinite(ar) && std::isfinite(ai), finB = std::isfinite(br) && std::isfinite(bi);
            if (!finA || !finB) [[unlikely]] {
                s.nanA += nanA, s.nanB += nanB;
                s.infA += !finA && !nanA, s.infB += !finB && !nanB;
                const bool same = (nanA && nanB) || (!nanA && !nanB && ar == br && ai == bi);
                s.different += !same;
                s.outOfTolerance += !same;
                continue;
            }
            const double dr = ar - br, di = ai - bi;
            const double diff = di == 0 ? std::fabs(dr) : std::hypot(dr, di);
            ++s.compared;
            s.different += diff != 0;
            const double magB = bi == 0 ? std::fabs(br) : std::hypot(br, bi);
            s.outOfTolerance += diff > atol + rtol * magB;
            if (diff > s.maxAbs)
                s.maxAbs = diff, s.argmax = first + start + i;
            s.sumAbs += diff;
            s.sumSqDiff += dr * dr + di * di;
            s.sumSqA += ar * ar + ai * ai;
            s.sumSqB += br * br + bi * bi;
            s.dot += ar * br + ai * bi;
        }
    }
}

// Where a pair's bytes are, or nulls when either side is not wholly inside its file.
struct PairData {
    std::span<const std::byte> a, b;
    std::uint64_t elements = 0;
};

std::optional<PairData> pairData(const Checkpoint &ca, const Checkpoint &cb, const TensorPair &pair)
{
    const SafetensorsFile *fa = ca.fileOf(*pair.a), *fb = cb.fileOf(*pair.b);
    if (!fa || !fb || !fa->fullyReadable(*pair.a->info) || !fb->fullyReadable(*pair.b->info))
        return std::nullopt;
    return PairData{fa->tensorBytes(*pair.a->info), fb->tensorBytes(*pair.b->info), *pair.a->info->elementCount()};
}

struct Chunk {
    std::size_t pair;
    std::uint64_t first, n;
};

std::vector<Chunk> chunksOf(const std::vector<std::size_t> &pairs, const std::vector<PairData> &data)
{
    std::vector<Chunk> chunks;
    for (std::size_t p : pairs) {
        for (std::uint64_t first = 0; first < data[p].elements; first += kChunkElements)
            chunks.push_back({p, first, std::min(kChunkElements, data[p].elements - first)});
    }
    return chunks;
}

} // namespace

std::string_view statusName(PairStatus status)
{
    static constexpr std::string_view names[] = {"identical", "changed", "dtype_changed", "shape_changed",
                                                 "only_in_a", "only_in_b"};
    return names[static_cast<std::size_t>(status)];
}

bool withinTolerance(const TensorPair &pair, bool tolerances)
{
    return tolerances && pair.status == PairStatus::Changed && pair.readable && pair.metrics
        && pair.metrics->outOfTolerance == 0;
}

std::map<std::string, std::string> checkpointMetadata(const Checkpoint &checkpoint)
{
    std::map<std::string, std::string> metadata;
    for (const auto &shard : checkpoint.shards()) {
        if (shard) {
            for (const auto &[key, value] : shard->header().metadata)
                metadata.emplace(key, value);
        }
    }
    return metadata;
}

namespace {

// Every tensor of either side, paired by name and sorted by it; a pair of both is Identical until
// its bytes say otherwise.
std::vector<TensorPair> pairByName(const Checkpoint &a, const Checkpoint &b)
{
    std::vector<TensorPair> pairs;
    std::unordered_map<std::string_view, const Checkpoint::Tensor *> inB;
    for (const auto &t : b.tensors())
        inB.emplace(t.info->name, &t);
    for (const auto &t : a.tensors()) {
        TensorPair pair{t.info->name, &t, nullptr, PairStatus::OnlyInA, std::nullopt, true};
        if (const auto it = inB.find(t.info->name); it != inB.end()) {
            pair.b = it->second;
            pair.status = PairStatus::Identical;
            inB.erase(it);
        }
        pairs.push_back(std::move(pair));
    }
    for (const auto &[name, t] : inB)
        pairs.push_back({std::string(name), nullptr, t, PairStatus::OnlyInB, std::nullopt, true});
    std::sort(pairs.begin(), pairs.end(), [](const auto &x, const auto &y) { return x.name < y.name; });
    return pairs;
}

// What must be read: pairs of one shape compared byte for byte (same dtype) or by value (dtype
// changed), with where their bytes are.
struct ReadPlan {
    std::vector<PairData> data; // per pair
    std::vector<std::size_t> byteCompare, valueCompare;
};

ReadPlan classifyPairs(const Checkpoint &a, const Checkpoint &b, std::vector<TensorPair> &pairs)
{
    ReadPlan plan;
    plan.data.resize(pairs.size());
    for (std::size_t i = 0; i < pairs.size(); ++i) {
        TensorPair &pair = pairs[i];
        if (!pair.a || !pair.b)
            continue;
        const bool sameShape = pair.a->info->shape == pair.b->info->shape;
        if (pair.a->info->dtype != pair.b->info->dtype)
            pair.status = PairStatus::DTypeChanged;
        else if (!sameShape)
            pair.status = PairStatus::ShapeChanged;
        if (!sameShape)
            continue;
        const auto located = pairData(a, b, pair);
        if (!located) {
            pair.readable = false;
            continue;
        }
        plan.data[i] = *located;
        (pair.status == PairStatus::DTypeChanged ? plan.valueCompare : plan.byteCompare).push_back(i);
    }
    return plan;
}

// Bytes done of bytes to read, reported from any worker; the total grows when pass 1 finds a
// pair that pass 2 must read.
class ProgressCounter {
public:
    ProgressCounter(const ProgressFn &progress, std::uint64_t total)
        : m_progress(progress)
        , m_total(total)
    {
    }
    void add(std::uint64_t bytes, std::uint64_t moreTotal = 0)
    {
        if (!m_progress)
            return;
        std::lock_guard lock(m_mutex);
        m_total += moreTotal;
        m_done += bytes;
        m_progress(m_done, m_total);
    }

private:
    const ProgressFn &m_progress;
    std::mutex m_mutex;
    std::uint64_t m_done = 0, m_total;
};

// Pass 1: which pairs of plan.byteCompare differ in a byte. Identical tensors cost this and
// nothing more. nullopt when cancelled or a file vanished.
std::optional<std::vector<bool>> findDifferentBytes(const std::vector<TensorPair> &pairs, const ReadPlan &plan,
                                                    unsigned threads, const std::atomic<bool> *cancel,
                                                    ProgressCounter &progress)
{
    const std::vector<Chunk> chunks = chunksOf(plan.byteCompare, plan.data);
    std::vector<std::atomic<bool>> differs(pairs.size());
    const bool done = parallelFor(chunks.size(), threads, [&](std::uint64_t c, unsigned) {
        const Chunk &chunk = chunks[c];
        const auto &d = plan.data[chunk.pair];
        const unsigned bits = dtypeBits(pairs[chunk.pair].a->info->dtype);
        const std::uint64_t begin = chunk.first * bits / 8, end = (chunk.first + chunk.n) * bits / 8;
        const auto equal = guardedEqual(d.a.subspan(begin, end - begin), d.b.subspan(begin, end - begin));
        if (!equal)
            return false;
        if (!*equal)
            differs[chunk.pair].store(true, std::memory_order_relaxed);
        progress.add(2 * (end - begin));
        return true;
    }, cancel);
    if (!done)
        return std::nullopt;
    std::vector<bool> result(pairs.size());
    for (std::size_t p = 0; p < pairs.size(); ++p)
        result[p] = differs[p].load(std::memory_order_relaxed);
    return result;
}

// Pass 2: the metrics of `measure`'s pairs from their values. false when cancelled or a file
// vanished.
bool measureValues(std::vector<TensorPair> &pairs, const ReadPlan &plan, const std::vector<std::size_t> &measure,
                   const CompareOptions &options, unsigned threads, const std::atomic<bool> *cancel,
                   ProgressCounter &progress)
{
    const std::vector<Chunk> chunks = chunksOf(measure, plan.data);
    std::vector<DiffSums> sums(chunks.size());
    std::vector<Buffers> buffers(threads);
    const bool done = parallelFor(chunks.size(), threads, [&](std::uint64_t c, unsigned worker) {
        const Chunk &chunk = chunks[c];
        const auto &pair = pairs[chunk.pair];
        const auto &d = plan.data[chunk.pair];
        if (!runGuarded([&] {
                measureChunk({pair.a->info->dtype, d.a.data()}, {pair.b->info->dtype, d.b.data()}, chunk.first,
                             chunk.n, options.atol, options.rtol, buffers[worker], sums[c]);
            }))
            return false;
        progress.add(d.elements ? (d.a.size() + d.b.size()) * chunk.n / d.elements : 0);
        return true;
    }, cancel);
    if (!done)
        return false;
    std::unordered_map<std::size_t, DiffSums> merged;
    for (std::size_t c = 0; c < chunks.size(); ++c)
        merged[chunks[c].pair].merge(sums[c]);
    for (std::size_t p : measure)
        pairs[p].metrics = merged[p].metrics();
    return true;
}

MetadataDiff diffMetadata(const Checkpoint &a, const Checkpoint &b)
{
    MetadataDiff diff;
    const auto ma = checkpointMetadata(a), mb = checkpointMetadata(b);
    for (const auto &[key, value] : ma) {
        const auto it = mb.find(key);
        if (it == mb.end())
            diff.removed.emplace(key, value);
        else if (it->second != value)
            diff.changed.emplace(key, std::make_pair(value, it->second));
    }
    for (const auto &[key, value] : mb) {
        if (!ma.count(key))
            diff.added.emplace(key, value);
    }
    return diff;
}

} // namespace

std::optional<Comparison> compareCheckpoints(const Checkpoint &a, const Checkpoint &b, const CompareOptions &options,
                                             const std::atomic<bool> *cancel, const ProgressFn &progress)
{
    Comparison result;
    result.pairs = pairByName(a, b);
    const ReadPlan plan = classifyPairs(a, b, result.pairs);

    std::uint64_t total = 0;
    for (const auto *list : {&plan.byteCompare, &plan.valueCompare}) {
        for (std::size_t p : *list)
            total += plan.data[p].a.size() + plan.data[p].b.size();
    }
    ProgressCounter counter(progress, total);
    const unsigned threads = threadCount(options.threads);

    const auto differs = findDifferentBytes(result.pairs, plan, threads, cancel, counter);
    if (!differs)
        return std::nullopt;
    // Pass 2 measures the tensors whose bytes differ, and those whose dtype changed.
    std::vector<std::size_t> measure = plan.valueCompare;
    for (std::size_t p : plan.byteCompare) {
        if ((*differs)[p]) {
            result.pairs[p].status = PairStatus::Changed;
            measure.push_back(p);
            counter.add(0, plan.data[p].a.size() + plan.data[p].b.size());
        }
    }
    if (!measureValues(result.pairs, plan, measure, options, threads, cancel, counter))
        return std::nullopt;

    result.metadata = diffMetadata(a, b);
    for (const auto &pair : result.pairs) {
        ++result.counts[static_cast<std::size_t>(pair.status)];
        const bool fine
            = (pair.status == PairStatus::Identical && pair.readable) || withinTolerance(pair, options.tolerances);
        result.equivalent = result.equivalent && fine;
    }
    return result;
}

} // namespace stb
