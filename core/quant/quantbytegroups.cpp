// Statistics of 8-bit GPTQ and pack-quantized groups (Dequantizer::byteGroups) without decoding
// a value. Code counting does not pay there (256 codes for 128 elements), and decoding to floats
// for the F32 kernels cost more than twice the BF16 statistics. 4-bit GPTQ groups go the same way
// without a histogram (their nibbles split into bytes): faster than counting them. A value is scale · (q −
// zero) with a float scale shared by the group's codes q and an integer q − zero of at most 9 bits: for a
// scale of at most 15 significant bits (every F16 and BF16 scale) the float product is exact, so
//   pass 1: the group's sums of q and q² (integers) give its sums of values and of squares
//           (one multiply each), its least and largest code its extremes, and the codes equal
//           to the zero its zeros;
//   pass 2: a value's bin is monotone in q, so the codes where the bin changes (one per bin
//           edge the group's range crosses) are found from the edges by a division, each
//           checked with kernels::binIndex's own rule, and each bin's count is a difference of
//           counts of codes at or above them (bytegroupruns.h).
// Groups whose scale is not finite or not exact, or whose range leaves the bins, are decoded as
// before and handed to the F32 kernels. Counts, zeros, extremes, bins and outliers are exactly
// those of the decoded values; the mean and std are sums in another order (all families give
// the same: the group sums are integers and the rest is this file's scalar code).
#include "core/quant/quantanalyzer.h"

#include "core/concurrency/parallel.h"
#include "core/io/busguard.h"
#include "core/quant/bytegroupruns.h"
#include "core/stats/kernels/valuescan.h"
#include "core/stats/secondpass.h"
#include "core/stats/statskernels.h"

#include <algorithm>
#include <bit>
#include <cmath>
#include <cstring>
#include <mutex>
#include <vector>

namespace stb {

namespace {

// GPTQ: a tile of outputs whose groups are transposed at once holds this many bytes of codes
// (256 outputs of groups of 128; 16 to 256 outputs). Its codes lie in rows rowBytes apart, a
// cache line of each per 16 outputs: wider tiles read longer runs of each row (16 -> 256
// outputs: 0.41 -> 0.43 of BF16 in bench_quant, AVX-512; 0.37 -> 0.39 AVX2).
constexpr std::uint64_t kTileBytes = 32 << 10;
std::uint64_t tileOutputs(std::uint64_t groupSize)
{
    return std::clamp<std::uint64_t>(kTileBytes / groupSize / 16 * 16, 16, 256);
}
constexpr std::uint64_t kAhead = 2048; // bytes prefetched ahead of a pack-quantized row's groups

struct Worker {
    Worker(unsigned bins, std::uint64_t groupSize, std::uint64_t tile, std::uint64_t rowGroups, bool nibbles)
        : binCounts(bins, 0)
        , columns(tile * groupSize)
        , values(groupSize)
        , thresholds(bins + 8)
        , counts(bins + 8)
        , scales(tile)
        , zeros(tile)
        , rowScales(rowGroups)
        , rowZeros(rowGroups)
        , columnStats(tile)
        , zeroCodes(tile)
        , split(nibbles ? tile * groupSize : 0)
    { }
    quant::ByteRunFamily family = quant::byteRunFamily(); // picked once
    StatsAccumulator acc;
    std::vector<std::uint64_t> binCounts;
    std::uint64_t outliers = 0;
    std::vector<std::uint8_t> columns; // GPTQ: a tile's groups, each output's codes in a row
    std::vector<float> values; // a decoded group
    std::vector<std::int32_t> thresholds;
    std::vector<std::uint32_t> counts;
    std::vector<float> scales; // GPTQ: a tile's
    std::vector<std::int32_t> zeros;
    std::vector<float> rowScales; // pack-quantized: an output's groups
    std::vector<std::int32_t> rowZeros;
    std::vector<std::uint16_t> *ranges = nullptr; // pass 1's least and largest code per group
    std::vector<quant::ByteColumnStats> columnStats; // GPTQ pass 1: a tile's, summed untransposed
    std::vector<unsigned> zeroCodes;
    std::vector<std::uint8_t> split; // 4-bit GPTQ: a tile's rows of words as rows of byte codes
};

// Whether scale · d is exact in float for every |d| <= 256 (and neither overflows nor leaves the
// normal range): at most 15 significant bits.
bool exactScale(float s)
{
    if (s == 0)
        return true;
    const float a = std::fabs(s);
    return a > 0x1p-100f && a < 0x1p100f && (std::bit_cast<std::uint32_t>(s) & 0x1FFu) == 0;
}

// The decoded values of a group, as decode() gives them.
void decodeGroup(const std::uint8_t *codes, std::uint64_t n, float scale, std::int32_t zero, float *out)
{
    const float z = static_cast<float>(zero);
    for (std::uint64_t i = 0; i < n; ++i)
        out[i] = (static_cast<float>(codes[i]) - z) * scale;
}

// Pass 1 of a range: the groups' shifted sums (around the first group's mean), extremes, zeros.
struct Moments {
    double shift = 0, sum = 0, squares = 0, lo = INFINITY, hi = -INFINITY, absMax = 0;
    std::uint64_t finite = 0, zeros = 0;
    bool shifted = false;
    // The group whose sums are added after the next one's are taken: its arithmetic then
    // overlaps the next group's loads instead of waiting for its own reductions.
    struct Pending {
        quant::ByteColumnStats st;
        std::uint64_t n = 0;
        float scale = 0;
        std::int32_t zero = 0;
    } pending;
    bool hasPending = false;

    void add(const std::uint8_t *codes, std::uint64_t n, float scale, std::int32_t zero, std::uint64_t index,
        Worker &w, StatsAccumulator &acc)
    {
        if (!usable(scale)) {
            decodeGroup(codes, n, scale, zero, w.values.data());
            kernels::scanValues(DType::F32, reinterpret_cast<const std::byte *>(w.values.data()), 0, n, acc);
            return;
        }
        quant::ByteColumnStats st;
        quant::byteColumnStatsIn(w.family, codes, n, zeroCode(zero), st);
        addStats(st, n, scale, zero, index, w);
    }
    // A group whose codes' statistics are already taken (GPTQ's, untransposed); its scale finite
    // and exact (usable()).
    void addStats(const quant::ByteColumnStats &st, std::uint64_t n, float scale, std::int32_t zero,
        std::uint64_t index, Worker &w)
    {
        if (hasPending)
            accumulate(pending);
        pending = Pending { st, n, scale, zero };
        hasPending = true;
        (*w.ranges)[index] = static_cast<std::uint16_t>(st.lo | st.hi << 8);
    }
    static bool usable(float scale) { return std::isfinite(scale) && exactScale(scale); }
    static unsigned zeroCode(std::int32_t zero) { return zero >= 0 && zero < 256 ? unsigned(zero) : 256u; }
    // The last group's sums; before finish().
    void flush()
    {
        if (hasPending)
            accumulate(pending);
        hasPending = false;
    }
    void accumulate(const Pending &p)
    {
        const quant::ByteColumnStats &st = p.st;
        const std::uint64_t n = p.n;
        const float scale = p.scale;
        const std::int32_t zero = p.zero;
        const auto count = static_cast<std::int64_t>(n), z = static_cast<std::int64_t>(zero);
        const std::int64_t sumD = std::int64_t(st.sum) - count * z;
        const std::int64_t squaresD = std::int64_t(st.squares) - 2 * z * std::int64_t(st.sum) + count * z * z;
        const double s = scale, nd = static_cast<double>(n);
        const double vSum = s * static_cast<double>(sumD);
        if (!shifted) {
            shift = vSum / nd;
            shifted = true;
        }
        sum += vSum - nd * shift;
        squares += s * s * static_cast<double>(squaresD) - 2 * shift * vSum + nd * shift * shift;
        const double a = s * double(std::int32_t(st.lo) - zero), b = s * double(std::int32_t(st.hi) - zero);
        lo = std::min(lo, std::min(a, b));
        hi = std::max(hi, std::max(a, b));
        absMax = std::max(absMax, std::max(std::fabs(a), std::fabs(b)));
        finite += n;
        zeros += scale == 0 ? n : st.zeros;
    }
    void finish(StatsAccumulator &acc) const
    {
        if (!finite)
            return;
        acc.addFiniteBlock(finite, shift, sum, squares);
        acc.addExtremes(lo, hi, absMax);
        acc.addZeros(zeros);
    }
};

// The outliers among a group's codes (all in [lo, hi]), by the scalar test of the F32 kernels,
// |value − mean| > distance, with value = scale · (q − zero) exact. The test fails on one run of
// codes, those whose values lie within the distance of the mean, and holds on either side of it:
// the run is found around the code nearest the mean by binary searches with the test itself, and
// the codes outside it are counted with countAtLeast. With heavy-tailed weights most groups reach
// that far, and decoding each of them to test every value took 5 to 20 times the BF16 statistics.
std::uint64_t groupOutliers(const std::uint8_t *codes, std::uint64_t n, double scale, std::int32_t zero,
    unsigned lo, unsigned hi, const kernels::BinPlan &plan, Worker &w)
{
    const auto out
        = [&](int q) { return std::fabs(scale * double(q - zero) - plan.mean) > plan.outlierDistance; };
    const int first = static_cast<int>(lo), last = static_cast<int>(hi);
    // The code nearest the mean (zero when the scale is 0 or the quotient leaves the range).
    const double quotient = scale != 0 ? double(zero) + plan.mean / scale : double(zero);
    int middle = std::isfinite(quotient)
        ? static_cast<int>(std::clamp(std::round(quotient), double(first), double(last)))
        : first;
    if (out(middle)) { // rounding may have missed the nearest by one
        if (middle > first && !out(middle - 1))
            --middle;
        else if (middle < last && !out(middle + 1))
            ++middle;
        else
            return n; // no value within the distance of the mean
    }
    // a: the first code of the run (out holds below it), b: the last.
    int below = first, above = middle; // out(below − 1) or below = first; !out(above)
    while (below < above) {
        const int q = below + (above - below) / 2;
        if (out(q))
            below = q + 1;
        else
            above = q;
    }
    const int a = below;
    below = middle;
    above = last; // !out(below); the last non-outlier is in [below, above]
    while (below < above) {
        const int q = below + (above - below + 1) / 2;
        if (out(q))
            above = q - 1;
        else
            below = q;
    }
    const int b = below;
    const std::int32_t thresholds[8] = { a, b + 1, a, a, a, a, a, a }; // padded for the AVX kernels
    std::uint32_t counts[8] = {};
    quant::countAtLeastIn(w.family, codes, n, thresholds, 2, counts);
    return (n - counts[0]) + counts[1];
}

// A span of bins [b0, b1] that holds lo's bin and hi's (plan.lo <= lo <= hi <= plan.hi): the
// estimates of kernels::binIndex checked against one edge each, without its search. An
// estimate may be a bin off near an edge: b0 then lies below lo's bin or b1 above hi's, and
// those bins gain nothing (their levels' thresholds fall outside the codes); binIndex where a
// check fails.
std::pair<int, int> binSpan(const kernels::BinPlan &plan, double lo, double hi)
{
    const int bins = static_cast<int>(plan.edges.size()) - 1;
    const double origin = plan.lo * plan.unit, x0 = lo * plan.unit, x1 = hi * plan.unit;
    const double t0 = (x0 - origin) * plan.scale, t1 = (x1 - origin) * plan.scale;
    const int b0 = t0 < bins ? static_cast<int>(t0) : bins - 1;
    const int b1 = t1 < bins ? static_cast<int>(t1) : bins - 1;
    const bool low = x0 >= plan.edges[static_cast<std::size_t>(b0)]; // b0 at or below lo's bin
    const bool high = b1 + 1 == bins || x1 < plan.edges[static_cast<std::size_t>(b1) + 1];
    if (low && high)
        return { b0, b1 };
    return { kernels::binIndex(plan, lo), kernels::binIndex(plan, hi) };
}

// Pass 2 of one group: bins by code thresholds, outliers by the scalar test where the group's
// range reaches that far.
void binGroup(const std::uint8_t *codes, std::uint64_t n, float scale, std::int32_t zero, std::uint64_t index,
    const kernels::BinPlan &plan, const double *edges, Worker &w)
{
    const auto fallback = [&] {
        decodeGroup(codes, n, scale, zero, w.values.data());
        kernels::binValues(DType::F32, reinterpret_cast<const std::byte *>(w.values.data()), 0, n, plan,
            w.binCounts.data(), w.outliers);
    };
    if (!std::isfinite(scale) || !exactScale(scale))
        return fallback();
    quant::ByteColumnStats st;
    st.lo = static_cast<std::uint8_t>((*w.ranges)[index]);
    st.hi = static_cast<std::uint8_t>((*w.ranges)[index] >> 8);
    const double s = scale;
    const double a = s * double(std::int32_t(st.lo) - zero), b = s * double(std::int32_t(st.hi) - zero);
    const double lo = std::min(a, b), hi = std::max(a, b);
    const bool far = (std::fabs(lo - plan.mean) > plan.outlierDistance)
        | (std::fabs(hi - plan.mean) > plan.outlierDistance);
    if (!plan.countBins) { // no histogram (the CLI audit table): only the outliers, whatever the bins' range
        if (far)
            w.outliers += groupOutliers(codes, n, s, zero, st.lo, st.hi, plan, w);
        return;
    }
    if (!(lo >= plan.lo && hi <= plan.hi))
        return fallback();
    const auto [b0, b1] = binSpan(plan, lo, hi);
    if (b0 < 0 || b1 < b0)
        return fallback();
    if (b0 == b1) {
        w.binCounts[static_cast<std::size_t>(b0)] += n;
    } else {
        // Level j: the values at or above edge b0 + 1 + j, C_j of them: the codes at or above
        // t_j (scale > 0), or below it.
        const std::size_t levels = static_cast<std::size_t>(b1 - b0);
        if (!quant::binGroupCodesIn(w.family, codes, n, s, zero, plan.unit, edges + b0 + 1, levels, st.lo,
                st.hi, w.thresholds.data(), w.counts.data(), w.binCounts.data() + b0))
            return fallback();
    }
    if (far)
        w.outliers += groupOutliers(codes, n, s, zero, st.lo, st.hi, plan, w);
}

// Visits every group of a range: GPTQ ranges are a group of a block of outputs, transposed a
// tile at a time; pack-quantized ranges are a block of outputs, each output's groups in a row.
struct Ranges {
    Ranges(const Dequantizer &dq, const ByteGroups &g)
        : dequantizer(dq)
        , groups(g)
    {
        if (g.interleaved) {
            tile = tileOutputs(g.groupSize);
            outputsPer = std::max<std::uint64_t>(tile, kChunkElements / g.groupSize / tile * tile);
            perGroup = (g.outputs + outputsPer - 1) / outputsPer;
            count = g.groups * perGroup;
        } else {
            outputsPer = std::max<std::uint64_t>(1, kChunkElements / g.inputs);
            count = (g.outputs + outputsPer - 1) / outputsPer;
        }
    }
    std::uint64_t elements(std::uint64_t r) const
    {
        const std::uint64_t o0 = (groups.interleaved ? r % perGroup : r) * outputsPer;
        const std::uint64_t outputs = std::min(outputsPer, groups.outputs - o0);
        return outputs * (groups.interleaved ? groups.groupSize : groups.inputs);
    }
    // GPTQ: the rows of words of a tile (group `group`, outputs [o, o + width)) as 8-bit rows:
    // where they lie, or (4-bit) split into w.split; its first row, row bytes and rows.
    struct Tile {
        const std::uint8_t *src;
        std::uint64_t rowBytes, rows;
    };
    Tile tileRows(std::uint64_t group, std::uint64_t o, std::uint64_t width, Worker &w) const
    {
        const ByteGroups &g = groups;
        const std::uint64_t wordRows = g.groupSize * g.bits / 32;
        const std::uint8_t *src = g.codes + group * wordRows * g.rowBytes + 4 * o;
        if (g.bits == 8)
            return { src, g.rowBytes, wordRows };
        quant::splitNibbleRowsIn(w.family, src, g.rowBytes, wordRows, 4 * width, w.split.data());
        return { w.split.data(), 4 * width, 2 * wordRows };
    }

    // fn(codes, n, scale, zero, index) for every group of range r; index: the group's own number.
    template<typename Fn> void visit(std::uint64_t r, Worker &w, const Fn &fn) const
    {
        const ByteGroups &g = groups;
        const std::uint64_t n = g.groupSize;
        if (!g.interleaved) {
            const std::uint64_t o0 = r * outputsPer, o1 = std::min(g.outputs, o0 + outputsPer);
            for (std::uint64_t o = o0; o < o1; ++o) {
                const std::uint8_t *row = g.codes + o * g.rowBytes;
                dequantizer.byteRowParams(o, 0, g.groups, w.rowScales.data(), w.rowZeros.data());
                for (std::uint64_t group = 0; group < g.groups; ++group) {
                    __builtin_prefetch(row + group * n + kAhead);
                    __builtin_prefetch(row + group * n + kAhead + 64);
                    fn(row + group * n, n, w.rowScales[group], w.rowZeros[group], o * g.groups + group);
                }
            }
            return;
        }
        const std::uint64_t group = r / perGroup, o0 = (r % perGroup) * outputsPer;
        const std::uint64_t o1 = std::min(g.outputs, o0 + outputsPer);
        for (std::uint64_t o = o0; o < o1; o += tile) {
            const std::uint64_t width = std::min(tile, o1 - o);
            dequantizer.byteGroupParams(group, o, width, w.scales.data(), w.zeros.data());
            const Tile t = tileRows(group, o, width, w);
            std::uint8_t *dst = w.columns.data();
            quant::transposeWordsIn(w.family, t.src, t.rowBytes, t.rows, width, dst);
            for (std::uint64_t c = 0; c < width; ++c)
                fn(dst + c * n, n, w.scales[c], w.zeros[c], group * g.outputs + o + c);
        }
    }

    // Pass 1 of range r into `m`: as visit() with Moments::add, but GPTQ's tiles are summed where
    // they lie (columnWordStats) instead of transposed first: the transposes took most of pass 1.
    void moments(std::uint64_t r, Worker &w, Moments &m, StatsAccumulator &acc) const
    {
        const auto add = [&](const std::uint8_t *codes, std::uint64_t n, float scale, std::int32_t zero,
                             std::uint64_t index) { m.add(codes, n, scale, zero, index, w, acc); };
        const ByteGroups &g = groups;
        if (!g.interleaved)
            return visit(r, w, add);
        const std::uint64_t n = g.groupSize, group = r / perGroup, o0 = (r % perGroup) * outputsPer;
        const std::uint64_t o1 = std::min(g.outputs, o0 + outputsPer);
        for (std::uint64_t o = o0; o < o1; o += tile) {
            const std::uint64_t width = std::min(tile, o1 - o);
            dequantizer.byteGroupParams(group, o, width, w.scales.data(), w.zeros.data());
            const Tile t = tileRows(group, o, width, w);
            for (std::uint64_t c = 0; c < width; ++c)
                w.zeroCodes[c] = Moments::zeroCode(w.zeros[c]);
            quant::columnWordStatsIn(
                w.family, t.src, t.rowBytes, t.rows, width, w.zeroCodes.data(), w.columnStats.data());
            for (std::uint64_t c = 0; c < width; ++c) {
                const std::uint64_t index = group * g.outputs + o + c;
                if (Moments::usable(w.scales[c])) {
                    m.addStats(w.columnStats[c], n, w.scales[c], w.zeros[c], index, w);
                } else { // decoded: the column's codes gathered
                    std::uint8_t *column = w.columns.data();
                    quant::transposeWordsIn(
                        quant::ByteRunFamily::Portable, t.src + 4 * c, t.rowBytes, t.rows, 1, column);
                    add(column, n, w.scales[c], w.zeros[c], index);
                }
            }
        }
    }

    const Dequantizer &dequantizer;
    const ByteGroups groups;
    std::uint64_t outputsPer = 0, perGroup = 0, count = 0, tile = 0; // tile: GPTQ's outputs at once
};

} // namespace

std::optional<TensorAnalysis> analyzeQuantizedByteGroups(const Dequantizer &dequantizer,
    const AnalysisOptions &options, std::stop_token stop, const ProgressFn &progress)
{
    const std::optional<ByteGroups> groups = dequantizer.byteGroups();
    if (!groups)
        return std::nullopt;
    const unsigned bins = std::max(1u, options.bins); // workers' tables: at least one bin
    const Ranges ranges(dequantizer, *groups);
    const std::uint64_t elements = dequantizer.elements();
    const unsigned threads = static_cast<unsigned>(
        std::min<std::uint64_t>(threadCount(options.threads), std::max<std::uint64_t>(ranges.count, 1)));
    std::vector<Worker> workers;
    workers.reserve(threads);
    for (unsigned i = 0; i < threads; ++i)
        workers.emplace_back(bins, groups->groupSize, ranges.tile, groups->interleaved ? 0 : groups->groups,
            groups->bits == 4);
    // Each group's least and largest code, from pass 1 for pass 2: 2 bytes per group of 32 or more.
    std::vector<std::uint16_t> codeRanges(groups->outputs * groups->groups);
    for (Worker &w : workers)
        w.ranges = &codeRanges;
    std::mutex progressMutex;
    std::uint64_t done = 0;
    const auto pass = [&](const auto &work) {
        return parallelFor(
            ranges.count, threads,
            [&](std::uint64_t r, unsigned k) {
                Worker &w = workers[k];
                if (!runGuarded([&] { work(r, w); }))
                    return false;
                if (progress) {
                    std::lock_guard lock(progressMutex);
                    done += ranges.elements(r);
                    progress(done, 2 * elements);
                }
                return true;
            },
            stop);
    };
    // Pass 1's statistics range by range, merged in range order: the same bits on every run and
    // any number of threads (as tensoranalyzer.cpp's chunks).
    std::vector<StatsAccumulator> rangeStats(ranges.count);
    if (!pass([&](std::uint64_t r, Worker &w) {
            Moments m;
            ranges.moments(r, w, m, rangeStats[r]);
            m.flush();
            m.finish(rangeStats[r]);
        }))
        return std::nullopt;
    for (const StatsAccumulator &range : rangeStats)
        workers.front().acc.merge(range);
    TensorAnalysis result;
    const auto binPass = [&](const kernels::BinPlan &plan) {
        std::vector<double> edges(plan.edges); // padded for codeThresholds' vectors
        edges.resize(edges.size() + 8, edges.back());
        return pass([&](std::uint64_t r, Worker &w) {
            ranges.visit(r, w,
                [&](const std::uint8_t *codes, std::uint64_t n, float scale, std::int32_t zero,
                    std::uint64_t index) { binGroup(codes, n, scale, zero, index, plan, edges.data(), w); });
        });
    };
    if (!finishTwoPass(DType::F32, options.bins, workers, binPass, result))
        return std::nullopt;
    result.stats.count = elements;
    return result;
}

} // namespace stb
