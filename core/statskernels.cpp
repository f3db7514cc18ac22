#include "core/statskernels.h"

#include <algorithm>
#include <cstring>

namespace stb::kernels {

namespace {

template<typename T>
T load(const std::byte *p)
{
    T v;
    std::memcpy(&v, p, sizeof v);
    return v;
}

// Element loaders: each returns the value statistics see.
struct LoadF32 {
    static constexpr std::size_t size = 4;
    static double get(const std::byte *p) { return load<float>(p); }
};
struct LoadF64 {
    static constexpr std::size_t size = 8;
    static double get(const std::byte *p) { return load<double>(p); }
};
struct LoadI32 {
    static constexpr std::size_t size = 4;
    static double get(const std::byte *p) { return load<std::int32_t>(p); }
};
struct LoadU32 {
    static constexpr std::size_t size = 4;
    static double get(const std::byte *p) { return load<std::uint32_t>(p); }
};
struct LoadI64 {
    static constexpr std::size_t size = 8;
    static double get(const std::byte *p) { return static_cast<double>(load<std::int64_t>(p)); }
};
struct LoadU64 {
    static constexpr std::size_t size = 8;
    static double get(const std::byte *p) { return static_cast<double>(load<std::uint64_t>(p)); }
};
struct LoadC64 {
    static constexpr std::size_t size = 8;
    static double get(const std::byte *p)
    {
        const double re = load<float>(p), im = load<float>(p + 4);
        if (std::isnan(re) || std::isnan(im))
            return NAN;
        return std::hypot(re, im);
    }
};

// Eight independent lanes keep the loop free of a serial dependency chain, so the compiler can
// keep them in vector registers.
constexpr int kLanes = 8;

template<typename Loader>
void scan(const std::byte *data, std::uint64_t first, std::uint64_t n, StatsAccumulator &acc)
{
    const std::byte *p = data + first * Loader::size;
    // Shift: the chunk's first finite value (sums of x-K carry no cancellation).
    double shift = 0;
    std::uint64_t i = 0;
    for (; i < n; ++i) {
        const double v = Loader::get(p + i * Loader::size);
        if (std::isfinite(v)) {
            shift = v;
            break;
        }
    }
    double sum[kLanes] = {}, squares[kLanes] = {}, lo[kLanes], hi[kLanes], abs[kLanes] = {};
    std::uint64_t finite[kLanes] = {}, zeros[kLanes] = {};
    for (int k = 0; k < kLanes; ++k)
        lo[k] = INFINITY, hi[k] = -INFINITY;
    std::uint64_t nan = 0, posInf = 0, negInf = 0;
    for (std::uint64_t j = 0; j < n; j += kLanes) {
        const std::uint64_t lanes = std::min<std::uint64_t>(kLanes, n - j);
        for (std::uint64_t k = 0; k < lanes; ++k) {
            const double v = Loader::get(p + (j + k) * Loader::size);
            if (!std::isfinite(v)) [[unlikely]] {
                if (std::isnan(v))
                    ++nan;
                else if (v > 0)
                    ++posInf;
                else
                    ++negInf;
                continue;
            }
            const double d = v - shift;
            sum[k] += d;
            squares[k] += d * d;
            lo[k] = std::min(lo[k], v);
            hi[k] = std::max(hi[k], v);
            abs[k] = std::max(abs[k], std::fabs(v));
            finite[k] += 1;
            zeros[k] += v == 0;
        }
    }
    StatsAccumulator chunk;
    double s = 0, q = 0, mn = INFINITY, mx = -INFINITY, am = 0;
    std::uint64_t f = 0, z = 0;
    for (int k = 0; k < kLanes; ++k) {
        s += sum[k];
        q += squares[k];
        mn = std::min(mn, lo[k]);
        mx = std::max(mx, hi[k]);
        am = std::max(am, abs[k]);
        f += finite[k];
        z += zeros[k];
    }
    chunk.addFiniteBlock(f, shift, s, q);
    if (f)
        chunk.addExtremes(mn, mx, am);
    chunk.addZeros(z);
    chunk.addNan(nan);
    chunk.addInf(false, posInf);
    chunk.addInf(true, negInf);
    acc.merge(chunk);
}

template<typename Loader>
void bin(const std::byte *data, std::uint64_t first, std::uint64_t n, const BinPlan &plan, std::uint64_t *bins,
         std::uint64_t &outliers)
{
    const std::byte *p = data + first * Loader::size;
    std::uint64_t far = 0;
    for (std::uint64_t i = 0; i < n; ++i) {
        const double v = Loader::get(p + i * Loader::size);
        const int b = binIndex(plan, v);
        if (b >= 0)
            ++bins[b];
        far += std::fabs(v - plan.mean) > plan.outlierDistance && std::isfinite(v);
    }
    outliers += far;
}

} // namespace

bool countsCodes(DType dtype) { return dtype != DType::C64 && dtypeBits(dtype) <= 16; }

CodeCounter::CodeCounter(DType dtype)
    : m_dtype(dtype)
    , m_bits(dtypeBits(dtype))
    , m_tables(std::size_t(2) << m_bits, 0)
{
}

void CodeCounter::add(const std::byte *data, std::uint64_t first, std::uint64_t n)
{
    std::uint32_t *t0 = m_tables.data(), *t1 = m_tables.data() + (std::size_t(1) << m_bits);
    std::uint64_t i = 0;
    if (m_bits == 8) {
        const auto *p = reinterpret_cast<const unsigned char *>(data) + first;
        for (; i + 2 <= n; i += 2) {
            ++t0[p[i]];
            ++t1[p[i + 1]];
        }
        for (; i < n; ++i)
            ++t0[p[i]];
    } else if (m_bits == 16) {
        const std::byte *p = data + first * 2;
        for (; i + 2 <= n; i += 2) {
            ++t0[load<std::uint16_t>(p + 2 * i)];
            ++t1[load<std::uint16_t>(p + 2 * i + 2)];
        }
        for (; i < n; ++i)
            ++t0[load<std::uint16_t>(p + 2 * i)];
    } else {
        // 4- and 6-bit codes: rare and small, the generic bit-stream reader is fast enough.
        const std::span<const std::byte> bytes(data, static_cast<std::size_t>(((first + n) * m_bits + 7) / 8));
        for (i = first; i < first + n; ++i)
            ++t0[elementCode(m_dtype, bytes, i)];
    }
    m_pending += n;
}

void CodeCounter::flushInto(std::vector<std::uint64_t> &totals)
{
    const std::size_t codes = std::size_t(1) << m_bits;
    totals.resize(codes, 0);
    for (std::size_t c = 0; c < codes; ++c) {
        totals[c] += std::uint64_t(m_tables[c]) + m_tables[codes + c];
        m_tables[c] = m_tables[codes + c] = 0;
    }
    m_pending = 0;
}

void scanValues(DType dtype, const std::byte *data, std::uint64_t first, std::uint64_t n, StatsAccumulator &acc)
{
    switch (dtype) {
    case DType::F32: return scan<LoadF32>(data, first, n, acc);
    case DType::F64: return scan<LoadF64>(data, first, n, acc);
    case DType::I32: return scan<LoadI32>(data, first, n, acc);
    case DType::U32: return scan<LoadU32>(data, first, n, acc);
    case DType::I64: return scan<LoadI64>(data, first, n, acc);
    case DType::U64: return scan<LoadU64>(data, first, n, acc);
    case DType::C64: return scan<LoadC64>(data, first, n, acc);
    default: return;
    }
}

BinPlan makeBinPlan(double lo, double hi, unsigned bins, double mean, double std)
{
    BinPlan plan;
    plan.lo = lo;
    plan.hi = hi;
    plan.scale = bins / (hi - lo);
    plan.edges.resize(bins + 1);
    for (unsigned i = 0; i <= bins; ++i)
        plan.edges[i] = lo + (hi - lo) * i / bins;
    plan.edges[bins] = hi;
    plan.mean = mean;
    plan.outlierDistance = std > 0 ? kOutlierSigmas * std : INFINITY;
    return plan;
}

int binIndex(const BinPlan &plan, double value)
{
    if (!(value >= plan.lo && value <= plan.hi))
        return -1;
    const int bins = static_cast<int>(plan.edges.size()) - 1;
    int b = static_cast<int>((value - plan.lo) * plan.scale);
    b = std::min(b, bins - 1);
    // As numpy does: the multiplication can be off by one near an edge; the edges decide.
    if (b > 0 && value < plan.edges[b])
        --b;
    else if (b + 1 < bins && value >= plan.edges[b + 1])
        ++b;
    return b;
}

void binValues(DType dtype, const std::byte *data, std::uint64_t first, std::uint64_t n, const BinPlan &plan,
               std::uint64_t *bins, std::uint64_t &outliers)
{
    switch (dtype) {
    case DType::F32: return bin<LoadF32>(data, first, n, plan, bins, outliers);
    case DType::F64: return bin<LoadF64>(data, first, n, plan, bins, outliers);
    case DType::I32: return bin<LoadI32>(data, first, n, plan, bins, outliers);
    case DType::U32: return bin<LoadU32>(data, first, n, plan, bins, outliers);
    case DType::I64: return bin<LoadI64>(data, first, n, plan, bins, outliers);
    case DType::U64: return bin<LoadU64>(data, first, n, plan, bins, outliers);
    case DType::C64: return bin<LoadC64>(data, first, n, plan, bins, outliers);
    default: return;
    }
}

double statValue(DType dtype, const std::byte *data, std::uint64_t index)
{
    if (dtype == DType::C64)
        return LoadC64::get(data + index * 8);
    const unsigned bits = dtypeBits(dtype);
    const std::span<const std::byte> bytes(data, static_cast<std::size_t>(((index + 1) * bits + 7) / 8));
    return decodeElement(dtype, bytes, index);
}

} // namespace stb::kernels
