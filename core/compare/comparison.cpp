#include "core/compare/comparison.h"

#include "core/compare/diffavx2.h"
#include "core/compare/diffsums.h"

#include "core/concurrency/parallel.h"
#include "core/format/decodebatch.h"
#include "core/io/busguard.h"
#include "core/io/readability.h"
#include "core/io/scannedpages.h"
#include "core/quant/dequantizer.h"
#include "core/stats/kernels/valuescan.h"

#include <algorithm>
#include <array>
#include <atomic>
#include <cmath>
#include <cstring>
#include <mutex>
#include <unordered_map>

namespace stb {

namespace {

constexpr std::uint64_t kBatch = 2048; // decoded elements held at once per side

using diff::addPair;
using diff::BF16Values;
using diff::DiffSums;
using diff::F16Values;
using diff::F32Values;

struct Side {
    DType dtype;
    const std::byte *data;
    const Dequantizer *dequantizer = nullptr; // set: the logical values of a quantized weight
};

// Decode buffers of one worker: allocated once, so a chunk (run under the SIGBUS guard) allocates
// nothing.
struct Buffers {
    std::vector<double> aRe = std::vector<double>(kBatch), aIm = std::vector<double>(kBatch);
    std::vector<double> bRe = std::vector<double>(kBatch), bIm = std::vector<double>(kBatch);
    std::vector<float> dequantized = std::vector<float>(kBatch);
    std::vector<float> floatsA = std::vector<float>(kBatch), floatsB = std::vector<float>(kBatch);
};

// Whether every value of a side is exactly a float: a dequantized weight, F32, BF16 or F16.
bool floatSide(Side side)
{
    return side.dequantizer || side.dtype == DType::F32 || side.dtype == DType::BF16
        || side.dtype == DType::F16;
}

// Elements [first, first+n) of a float side as floats: F32 in place, the others into `out`.
const float *floatsOf(Side side, std::uint64_t first, std::uint64_t n, float *out)
{
    if (side.dequantizer) {
        side.dequantizer->decode(first, n, out);
        return out;
    }
    if (side.dtype == DType::F32)
        return reinterpret_cast<const float *>(side.data) + first;
    for (std::uint64_t i = 0; i < n; ++i)
        out[i] = static_cast<float>(side.dtype == DType::BF16 ? BF16Values::at(side.data, first + i)
                                                              : F16Values::at(side.data, first + i));
    return out;
}

// Elements [first, first+n) of one side as doubles (run guarded).
void decodeSide(Side side, std::uint64_t first, std::uint64_t n, Buffers &buf, double *re, double *im)
{
    if (!side.dequantizer) {
        decodeBatch(side.dtype, side.data, first, n, re, im);
        return;
    }
    side.dequantizer->decode(first, n, buf.dequantized.data());
    for (std::uint64_t i = 0; i < n; ++i)
        re[i] = buf.dequantized[i], im[i] = 0;
}

// Sums of elements [first, first+count) of a pair into `s`, decoded through `buf` (run guarded).
void measureChunk(Side a, Side b, std::uint64_t first, std::uint64_t count, double atol, double rtol,
    Buffers &buf, DiffSums &s)
{
    if (a.dtype == b.dtype && !a.dequantizer && !b.dequantizer) {
        const bool avx2 = kernels::avx2::enabled();
        if (a.dtype == DType::F32)
            return avx2 ? diff::avx2::measureF32(a.data, b.data, first, count, atol, rtol, s)
                        : diff::measureReal<F32Values>(a.data, b.data, first, count, atol, rtol, s);
        if (a.dtype == DType::BF16)
            return avx2 ? diff::avx2::measureBF16(a.data, b.data, first, count, atol, rtol, s)
                        : diff::measureReal<BF16Values>(a.data, b.data, first, count, atol, rtol, s);
        // F16 decoded in batches of doubles ran at a thirtieth of BF16's speed.
        if (a.dtype == DType::F16)
            return avx2 ? diff::avx2::measureF16(a.data, b.data, first, count, atol, rtol, s)
                        : diff::measureReal<F16Values>(a.data, b.data, first, count, atol, rtol, s);
    }
    static_assert(kBatch % diff::kSumLanes == 0);
    if (kernels::avx2::enabled() && floatSide(a) && floatSide(b)) {
        // A quantized weight against another or its original, or two float dtypes: both sides as
        // floats a batch at a time, through the AVX2 loop (each batch's lanes folded on their
        // own), where the loop below widened them to doubles and added one pair at a time: 61%
        // of a diff of quantized checkpoints.
        for (std::uint64_t start = 0; start < count; start += kBatch) {
            const std::uint64_t n = std::min(kBatch, count - start);
            const float *fa = floatsOf(a, first + start, n, buf.floatsA.data());
            const float *fb = floatsOf(b, first + start, n, buf.floatsB.data());
            DiffSums batch;
            diff::avx2::measureF32(reinterpret_cast<const std::byte *>(fa),
                reinterpret_cast<const std::byte *>(fb), 0, n, atol, rtol, batch);
            batch.argmax += first + start;
            s.merge(batch);
        }
        return;
    }
    DiffSums lanes[diff::kSumLanes];
    for (std::uint64_t start = 0; start < count; start += kBatch) {
        const std::uint64_t n = std::min(kBatch, count - start);
        decodeSide(a, first + start, n, buf, buf.aRe.data(), buf.aIm.data());
        decodeSide(b, first + start, n, buf, buf.bRe.data(), buf.bIm.data());
        for (std::uint64_t i = 0; i < n; ++i) {
            addPair(buf.aRe[i], buf.aIm[i], buf.bRe[i], buf.bIm[i], first + start + i, atol, rtol,
                lanes[i % diff::kSumLanes]);
        }
    }
    diff::foldLanes(lanes, s);
}

// Where a pair's bytes are, or nulls when either side is not wholly inside its file.
struct PairData {
    std::span<const std::byte> a, b; // a quantized side's codes (for progress)
    std::uint64_t elements = 0; // logical elements
    const Dequantizer *dequantizerA = nullptr, *dequantizerB = nullptr;
    const MappedFile *fileA = nullptr, *fileB = nullptr; // the mappings `a` and `b` lie in
};

// The decoders of one side's quantized weights by tensor index of their codes (the comparison
// runs in one place, so they are built once per side).
struct QuantSide {
    const Checkpoint &checkpoint;
    const QuantView *view = nullptr;
    std::vector<std::optional<Dequantizer>> decoders; // per tensor: set for decodable codes

    QuantSide(const Checkpoint &c, const QuantView *quant)
        : checkpoint(c)
        , view(quant)
        , decoders(quant ? c.tensors().size() : 0)
    {
        for (std::size_t i = 0; i < decoders.size(); ++i) {
            if (const std::ptrdiff_t w = view->weightOfCodes(i); w >= 0) {
                std::string reason; // not decodable: compared as its raw codes, under its own name
                decoders[i] = Dequantizer::make(c, view->weights()[static_cast<std::size_t>(w)], reason);
            }
        }
    }
    // The decoder of `t`'s values when it holds a decodable weight's codes, else null.
    const Dequantizer *decoder(const Checkpoint::Tensor &t) const
    {
        const auto i = static_cast<std::size_t>(&t - checkpoint.tensors().data());
        return i < decoders.size() && decoders[i] ? &*decoders[i] : nullptr;
    }
    // The weight `t`'s codes decode to, or -1.
    std::ptrdiff_t weight(const Checkpoint::Tensor &t) const
    {
        return decoder(t) ? view->weightOfCodes(static_cast<std::size_t>(&t - checkpoint.tensors().data()))
                          : -1;
    }
    const QuantizedWeight &weightAt(std::ptrdiff_t w) const
    {
        return view->weights()[static_cast<std::size_t>(w)];
    }
    std::string_view name(const Checkpoint::Tensor &t) const
    {
        const std::ptrdiff_t w = weight(t);
        return w >= 0 ? std::string_view(weightAt(w).name) : std::string_view(t.info->name);
    }
};

std::optional<PairData> pairData(const Checkpoint &ca, const Checkpoint &cb, const TensorPair &pair,
    const Dequantizer *qa, const Dequantizer *qb)
{
    const SafetensorsFile *fa = ca.fileOf(*pair.a), *fb = cb.fileOf(*pair.b);
    if (!fa || !fb || !fa->fullyReadable(*pair.a->info) || !fb->fullyReadable(*pair.b->info))
        return std::nullopt;
    const std::uint64_t elements = qa ? qa->elements() : qb ? qb->elements() : *pair.a->info->elementCount();
    return PairData { fa->tensorBytes(*pair.a->info), fb->tensorBytes(*pair.b->info), elements, qa, qb,
        &fa->mapping(), &fb->mapping() };
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
            chunks.push_back({ p, first, std::min(kChunkElements, data[p].elements - first) });
    }
    return chunks;
}

// The pairs' pages (ScannedPages): noted when a pair's first chunk starts, given back when the
// last chunk that reads it ends, so diffing checkpoints larger than memory leaves the page cache
// to others and keeps what was cached before. Only pairs being read, and changed pairs between
// the two passes, hold a note (a byte per page), not every pair at once.
class PairPages {
public:
    explicit PairPages(const std::vector<PairData> &data)
        : m_data(data)
        , m_left(data.size())
        , m_noted(data.size())
        , m_pages(data.size())
    { }
    // A pass is about to run these chunks.
    void expect(const std::vector<Chunk> &chunks)
    {
        for (const Chunk &c : chunks)
            m_left[c.pair].fetch_add(1, std::memory_order_relaxed);
    }
    // Before reading a chunk of `pair`: the first takes the note, and the others wait for it
    // (a chunk read meanwhile would put its own pages in the note, kept for good).
    void start(std::size_t pair)
    {
        std::call_once(m_noted[pair], [&] {
            const PairData &d = m_data[pair];
            m_pages[pair] = { ScannedPages(*d.fileA, d.a), ScannedPages(*d.fileB, d.b) };
        });
    }
    // After reading a chunk of `pair`. On the pass's last chunk of it, the pages go unless
    // `readAgain` (the next pass reads the pair too; its note is kept for then). Each chunk's end
    // follows its start, so the last one sees the note.
    void finish(std::size_t pair, bool readAgain)
    {
        if (m_left[pair].fetch_sub(1, std::memory_order_acq_rel) != 1 || readAgain)
            return;
        for (const ScannedPages &pages : m_pages[pair])
            pages.release();
        m_pages[pair] = {};
    }

private:
    const std::vector<PairData> &m_data;
    std::vector<std::atomic<std::uint32_t>> m_left; // chunks still to end
    std::vector<std::once_flag> m_noted;
    std::vector<std::array<ScannedPages, 2>> m_pages;
};

} // namespace

std::string_view statusName(PairStatus status)
{
    static constexpr std::string_view names[] = { "identical", "changed", "dtype_changed", "shape_changed",
        "only_in_a", "only_in_b", "unreadable" };
    static_assert(std::size(names) == kPairStatusCount);
    return names[static_cast<std::size_t>(status)];
}

std::string sideUnreadableReason(const Checkpoint &checkpoint, const TensorPair &pair, bool sideA)
{
    if (const Checkpoint::Tensor *t = sideA ? pair.a : pair.b)
        return unreadableReason(checkpoint, *t);
    const std::ptrdiff_t absent = sideA ? pair.absentA : pair.absentB;
    return absent >= 0 ? checkpoint.absentReason(checkpoint.absentTensors()[static_cast<std::size_t>(absent)])
                       : std::string();
}

std::optional<PairSide> pairSide(const Comparison &comparison, const TensorPair &pair, bool sideA)
{
    const Checkpoint::Tensor *t = sideA ? pair.a : pair.b;
    const std::ptrdiff_t w = sideA ? pair.weightA : pair.weightB;
    const QuantView *view = (sideA ? comparison.quantA : comparison.quantB).get();
    if (!t)
        return std::nullopt;
    if (w >= 0 && view) {
        const QuantizedWeight &weight = view->weights()[static_cast<std::size_t>(w)];
        return PairSide { std::string(quantSchemeName(weight.scheme)), weight.logicalShape, true };
    }
    return PairSide { std::string(dtypeName(t->info->dtype)), t->info->shape, false };
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

// The names an index lists but no shard holds (Checkpoint::absentTensors) join the pairs as
// unreadable on their side: a name of the other side stays paired with them, so a model with a
// missing shard is not reported as tensors removed.
void addAbsent(const Checkpoint &a, const Checkpoint &b, std::vector<TensorPair> &pairs)
{
    if (a.absentTensors().empty() && b.absentTensors().empty())
        return;
    // Room for every new pair first: the views of the pairs' names must not move.
    pairs.reserve(pairs.size() + a.absentTensors().size() + b.absentTensors().size());
    std::unordered_map<std::string_view, std::size_t> byName;
    for (std::size_t p = 0; p < pairs.size(); ++p)
        byName.emplace(pairs[p].name, p);
    for (const bool sideA : { true, false }) {
        const auto &absent = (sideA ? a : b).absentTensors();
        for (std::size_t i = 0; i < absent.size(); ++i) {
            auto [it, added] = byName.emplace(absent[i].name, pairs.size());
            if (added) {
                TensorPair pair;
                pair.name = std::string(absent[i].name);
                pairs.push_back(std::move(pair));
            }
            TensorPair &pair = pairs[it->second];
            if (sideA ? pair.a : pair.b)
                continue; // a quantized weight's logical name that an index also lists: kept
            (sideA ? pair.absentA : pair.absentB) = static_cast<std::ptrdiff_t>(i);
            pair.status = PairStatus::Unreadable;
            pair.readable = false;
        }
    }
}

// Every tensor of either side, paired by name and sorted by it; a pair of both is Identical until
// its bytes say otherwise.
// A decodable quantized weight is paired under its logical name.
std::vector<TensorPair> pairByName(const QuantSide &a, const QuantSide &b)
{
    std::vector<TensorPair> pairs;
    std::unordered_map<std::string_view, const Checkpoint::Tensor *> inB;
    for (const auto &t : b.checkpoint.tensors())
        inB.emplace(b.name(t), &t);
    for (const auto &t : a.checkpoint.tensors()) {
        const std::string_view name = a.name(t);
        TensorPair pair { std::string(name), &t, nullptr, PairStatus::OnlyInA, std::nullopt, true,
            a.weight(t), -1 };
        if (const auto it = inB.find(name); it != inB.end()) {
            pair.b = it->second;
            pair.weightB = b.weight(*pair.b);
            pair.status = PairStatus::Identical;
            inB.erase(it);
        }
        pairs.push_back(std::move(pair));
    }
    for (const auto &[name, t] : inB)
        pairs.push_back(
            { std::string(name), nullptr, t, PairStatus::OnlyInB, std::nullopt, true, -1, b.weight(*t) });
    addAbsent(a.checkpoint, b.checkpoint, pairs);
    std::sort(pairs.begin(), pairs.end(), [](const auto &x, const auto &y) { return x.name < y.name; });
    return pairs;
}

// What must be read: pairs of one shape compared byte for byte (same dtype), by value (dtype or
// scheme changed) or by dequantized value (same scheme), with where their bytes are.
struct ReadPlan {
    std::vector<PairData> data; // per pair
    std::vector<std::size_t> byteCompare, valueCompare, quantCompare;
};

ReadPlan classifyPairs(const QuantSide &a, const QuantSide &b, std::vector<TensorPair> &pairs)
{
    ReadPlan plan;
    plan.data.resize(pairs.size());
    for (std::size_t i = 0; i < pairs.size(); ++i) {
        TensorPair &pair = pairs[i];
        if (!pair.a || !pair.b)
            continue;
        const Dequantizer *qa = a.decoder(*pair.a), *qb = b.decoder(*pair.b);
        const QuantizedWeight *wa = qa ? &a.weightAt(pair.weightA) : nullptr;
        const QuantizedWeight *wb = qb ? &b.weightAt(pair.weightB) : nullptr;
        const bool sameShape
            = (wa ? wa->logicalShape : pair.a->info->shape) == (wb ? wb->logicalShape : pair.b->info->shape);
        const bool sameKind
            = wa || wb ? wa && wb && wa->scheme == wb->scheme : pair.a->info->dtype == pair.b->info->dtype;
        if (!sameKind)
            pair.status = PairStatus::DTypeChanged;
        else if (!sameShape)
            pair.status = PairStatus::ShapeChanged;
        if (!sameShape)
            continue;
        const auto located = pairData(a.checkpoint, b.checkpoint, pair, qa, qb);
        if (!located) {
            pair.status = PairStatus::Unreadable;
            pair.readable = false;
            continue;
        }
        plan.data[i] = *located;
        if (pair.status == PairStatus::DTypeChanged)
            plan.valueCompare.push_back(i);
        else
            (wa ? plan.quantCompare : plan.byteCompare).push_back(i);
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
    { }
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
std::optional<std::vector<bool>> findDifferentBytes(const std::vector<TensorPair> &pairs,
    const ReadPlan &plan, unsigned threads, std::stop_token stop, ProgressCounter &progress, PairPages &pages)
{
    const std::vector<Chunk> chunks = chunksOf(plan.byteCompare, plan.data);
    std::vector<std::atomic<bool>> differs(pairs.size());
    pages.expect(chunks);
    const bool done = parallelFor(
        chunks.size(), threads,
        [&](std::uint64_t c, unsigned) {
            const Chunk &chunk = chunks[c];
            const auto &d = plan.data[chunk.pair];
            const unsigned bits = dtypeBits(pairs[chunk.pair].a->info->dtype);
            const std::uint64_t begin = chunk.first * bits / 8, end = (chunk.first + chunk.n) * bits / 8;
            pages.start(chunk.pair);
            const auto equal = guardedEqual(d.a.subspan(begin, end - begin), d.b.subspan(begin, end - begin));
            if (!equal)
                return false;
            if (!*equal)
                differs[chunk.pair].store(true, std::memory_order_relaxed);
            // An identical pair is done with; one that differs is read again by pass 2.
            pages.finish(chunk.pair, differs[chunk.pair].load(std::memory_order_relaxed));
            progress.add(2 * (end - begin));
            return true;
        },
        stop);
    if (!done)
        return std::nullopt;
    std::vector<bool> result(pairs.size());
    for (std::size_t p = 0; p < pairs.size(); ++p)
        result[p] = differs[p].load(std::memory_order_relaxed);
    return result;
}

// Pass 2: the metrics of `measure`'s pairs from their values. false when cancelled or a file
// vanished.
bool measureValues(std::vector<TensorPair> &pairs, const ReadPlan &plan,
    const std::vector<std::size_t> &measure, const CompareOptions &options, unsigned threads,
    std::stop_token stop, ProgressCounter &progress, PairPages &pages)
{
    const std::vector<Chunk> chunks = chunksOf(measure, plan.data);
    std::vector<DiffSums> sums(chunks.size());
    std::vector<Buffers> buffers(threads);
    pages.expect(chunks);
    const bool done = parallelFor(
        chunks.size(), threads,
        [&](std::uint64_t c, unsigned worker) {
            const Chunk &chunk = chunks[c];
            const auto &pair = pairs[chunk.pair];
            const auto &d = plan.data[chunk.pair];
            pages.start(chunk.pair);
            if (!runGuarded([&] {
                    measureChunk({ pair.a->info->dtype, d.a.data(), d.dequantizerA },
                        { pair.b->info->dtype, d.b.data(), d.dequantizerB }, chunk.first, chunk.n,
                        options.atol, options.rtol, buffers[worker], sums[c]);
                }))
                return false;
            pages.finish(chunk.pair, false);
            progress.add(d.elements ? (d.a.size() + d.b.size()) * chunk.n / d.elements : 0);
            return true;
        },
        stop);
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

std::optional<Comparison> compareCheckpoints(const Checkpoint &a, const Checkpoint &b,
    const CompareOptions &options, std::stop_token stop, const ProgressFn &progress)
{
    Comparison result;
    result.quantA = options.quantA;
    result.quantB = options.quantB;
    const QuantSide sideA(a, options.quantA.get()), sideB(b, options.quantB.get());
    result.pairs = pairByName(sideA, sideB);
    const ReadPlan plan = classifyPairs(sideA, sideB, result.pairs);

    std::uint64_t total = 0;
    for (const auto *list : { &plan.byteCompare, &plan.valueCompare, &plan.quantCompare }) {
        for (std::size_t p : *list)
            total += plan.data[p].a.size() + plan.data[p].b.size();
    }
    ProgressCounter counter(progress, total);
    const unsigned threads = threadCount(options.threads);

    PairPages pages(plan.data);
    const auto differs = findDifferentBytes(result.pairs, plan, threads, stop, counter, pages);
    if (!differs)
        return std::nullopt;
    // Pass 2 measures the tensors whose bytes differ, those whose dtype changed, and quantized
    // weights of one scheme (equal values can come from different codes and scales).
    std::vector<std::size_t> measure = plan.valueCompare;
    measure.insert(measure.end(), plan.quantCompare.begin(), plan.quantCompare.end());
    for (std::size_t p : plan.byteCompare) {
        if ((*differs)[p]) {
            result.pairs[p].status = PairStatus::Changed;
            measure.push_back(p);
            counter.add(0, plan.data[p].a.size() + plan.data[p].b.size());
        }
    }
    if (!measureValues(result.pairs, plan, measure, options, threads, stop, counter, pages))
        return std::nullopt;
    for (std::size_t p : plan.quantCompare) {
        TensorPair &pair = result.pairs[p];
        if (pair.metrics->different == 0)
            pair.metrics.reset(); // identical, as equal bytes are: nothing to report
        else
            pair.status = PairStatus::Changed;
    }

    result.metadata = diffMetadata(a, b);
    for (const auto &pair : result.pairs) {
        ++result.counts[static_cast<std::size_t>(pair.status)];
        const bool fine = (pair.status == PairStatus::Identical && pair.readable)
            || withinTolerance(pair, options.tolerances);
        result.equivalent = result.equivalent && fine;
    }
    return result;
}

} // namespace stb
