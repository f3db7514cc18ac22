// Tensor statistics against values worked out here, independently of the implementation: every
// dtype decoded by the test's own formulas (checked against literal tables), statistics in long
// double with plain two-pass code, histograms by comparing with long double edges (where they lie
// is layoutBins', tested in tst_binlayout). Then chunking
// and threads, accuracy on 10^8 values, cancel, content digests, SHA-256 and truncated files.
#include "core/format/writer.h"
#include "core/io/filedigest.h"
#include "core/io/mappedfile.h"
#include "core/io/safetensorsfile.h"
#include "core/stats/binlayout.h"
#include "core/stats/kernels/avx512.h"
#include "core/stats/kernels/portableblocks.h"
#include "core/stats/kernels/valuescan.h"
#include "core/stats/statsaccumulator.h"
#include "core/stats/tensoranalyzer.h"
#include "tests/support/statscompare.h"

#include <QByteArray>
#include <QList>
#include <QProcess>
#include <QTemporaryDir>
#include <QTest>

#include <algorithm>
#include <bit>
#include <cmath>
#include <cstring>
#include <fstream>
#include <limits>
#include <random>
#include <vector>

#include <fcntl.h>
#include <unistd.h>

using namespace Qt::StringLiterals;
using namespace stb;
using stb::test::compareCountsAndExtremes;

Q_DECLARE_METATYPE(stb::DType)

namespace {

constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();
constexpr double kInf = std::numeric_limits<double>::infinity();
constexpr std::uint64_t kChunk = 1u << 18; // the analyser's chunk, to cut tensors across it
// Exact sums of squares of 10^8 integers need more than 64 bits.
__extension__ typedef unsigned __int128 Uint128;

// ---- the test's own decoding ------------------------------------------------------------------

unsigned widthOf(DType dtype)
{
    switch (dtype) {
    case DType::F4:
        return 4;
    case DType::F6_E2M3:
    case DType::F6_E3M2:
        return 6;
    case DType::I16:
    case DType::U16:
    case DType::F16:
    case DType::BF16:
        return 16;
    case DType::I32:
    case DType::U32:
    case DType::F32:
        return 32;
    case DType::C64:
    case DType::F64:
    case DType::I64:
    case DType::U64:
        return 64;
    default:
        return 8;
    }
}

enum class Specials { Ieee, AllOnesNaN, NegativeZeroNaN, None };

// A binary float of 1 sign bit, `expBits` and `manBits`, as fraction arithmetic with ldexp.
double miniFloat(std::uint64_t code, int expBits, int manBits, int bias, Specials specials)
{
    const int width = 1 + expBits + manBits;
    const bool negative = (code >> (width - 1)) & 1;
    const std::uint64_t e = (code >> manBits) & ((std::uint64_t(1) << expBits) - 1);
    const std::uint64_t m = code & ((std::uint64_t(1) << manBits) - 1);
    const std::uint64_t eMax = (std::uint64_t(1) << expBits) - 1, mMax = (std::uint64_t(1) << manBits) - 1;
    if (specials == Specials::Ieee && e == eMax)
        return m ? kNaN : (negative ? -kInf : kInf);
    if (specials == Specials::AllOnesNaN && e == eMax && m == mMax)
        return kNaN;
    if (specials == Specials::NegativeZeroNaN && code == std::uint64_t(1) << (width - 1))
        return kNaN;
    const double fraction = std::ldexp(static_cast<double>(m), -manBits) + (e ? 1.0 : 0.0);
    const double magnitude = std::ldexp(fraction, (e ? static_cast<int>(e) : 1) - bias);
    return negative ? -magnitude : magnitude;
}

double f32Of(std::uint64_t code)
{
    return miniFloat(code & 0xFFFFFFFF, 8, 23, 127, Specials::Ieee);
}

// The value the statistics see for one element's code (C64: the magnitude, NaN if a part is NaN).
double referenceValue(DType dtype, std::uint64_t code)
{
    switch (dtype) {
    case DType::BOOL:
        return code != 0 ? 1 : 0;
    case DType::U8:
    case DType::U16:
    case DType::U32:
    case DType::U64:
        return static_cast<double>(code);
    case DType::I8:
        return static_cast<double>(static_cast<std::int64_t>(code << 56) >> 56);
    case DType::I16:
        return static_cast<double>(static_cast<std::int64_t>(code << 48) >> 48);
    case DType::I32:
        return static_cast<double>(static_cast<std::int64_t>(code << 32) >> 32);
    case DType::I64:
        return static_cast<double>(static_cast<std::int64_t>(code));
    case DType::F16:
        return miniFloat(code, 5, 10, 15, Specials::Ieee);
    case DType::BF16:
        return miniFloat(code, 8, 7, 127, Specials::Ieee);
    case DType::F32:
        return f32Of(code);
    case DType::F64:
        return miniFloat(code, 11, 52, 1023, Specials::Ieee);
    case DType::F8_E5M2:
        return miniFloat(code, 5, 2, 15, Specials::Ieee);
    case DType::F8_E4M3:
        return miniFloat(code, 4, 3, 7, Specials::AllOnesNaN);
    case DType::F8_E4M3FNUZ:
        return miniFloat(code, 4, 3, 8, Specials::NegativeZeroNaN);
    case DType::F8_E5M2FNUZ:
        return miniFloat(code, 5, 2, 16, Specials::NegativeZeroNaN);
    case DType::F8_E8M0:
        return code == 0xFF ? kNaN : std::ldexp(1.0, static_cast<int>(code) - 127);
    case DType::F6_E2M3:
        return miniFloat(code, 2, 3, 1, Specials::None);
    case DType::F6_E3M2:
        return miniFloat(code, 3, 2, 3, Specials::None);
    case DType::F4:
        return miniFloat(code, 2, 1, 1, Specials::None);
    case DType::C64: {
        const double re = f32Of(code), im = f32Of(code >> 32);
        if (std::isnan(re) || std::isnan(im))
            return kNaN;
        if (std::isinf(re) || std::isinf(im))
            return kInf;
        return static_cast<double>(
            std::sqrt(static_cast<long double>(re) * re + static_cast<long double>(im) * im));
    }
    }
    return kNaN;
}

std::uint64_t c64(float re, float im)
{
    return std::bit_cast<std::uint32_t>(re) | std::uint64_t(std::bit_cast<std::uint32_t>(im)) << 32;
}

// Codes written out by hand with the values they stand for: NaN, ±Inf, ±0, subnormals, the
// extremes, and the value 1 (used for scalar and constant rows).
std::vector<std::pair<std::uint64_t, double>> literalTable(DType dtype)
{
    constexpr double fltMax = 3.4028234663852886e38;
    switch (dtype) {
    case DType::BOOL:
        return { { 0, 0 }, { 1, 1 }, { 0xFF, 1 }, { 2, 1 }, { 0, 0 } };
    case DType::U8:
        return { { 0, 0 }, { 1, 1 }, { 0x80, 128 }, { 0xFF, 255 } };
    case DType::I8:
        return { { 0, 0 }, { 1, 1 }, { 0x7F, 127 }, { 0x80, -128 }, { 0xFF, -1 } };
    case DType::U16:
        return { { 0, 0 }, { 1, 1 }, { 0x8000, 32768 }, { 0xFFFF, 65535 } };
    case DType::I16:
        return { { 0, 0 }, { 1, 1 }, { 0x7FFF, 32767 }, { 0x8000, -32768 }, { 0xFFFF, -1 } };
    case DType::U32:
        return { { 0, 0 }, { 1, 1 }, { 7, 7 }, { 0xFFFFFFFF, 4294967295.0 } };
    case DType::I32:
        return { { 0, 0 }, { 1, 1 }, { 0x7FFFFFFF, 2147483647.0 }, { 0x80000000, -2147483648.0 },
            { 0xFFFFFFFE, -2 } };
    case DType::U64:
        return { { 0, 0 }, { 1, 1 }, { 3, 3 }, { 1ull << 53, 9007199254740992.0 },
            { ~0ull, 18446744073709551616.0 } };
    case DType::I64:
        return { { 0, 0 }, { 1, 1 }, { 0x8000000000000000ull, -9223372036854775808.0 },
            { 0x7FFFFFFFFFFFFFFFull, 9223372036854775808.0 }, { ~0ull, -1 } };
    case DType::F16:
        return { { 0x0000, 0 }, { 0x8000, -0.0 }, { 0x0001, 5.960464477539063e-08 },
            { 0x03FF, 6.097555160522461e-05 }, { 0x0400, 6.103515625e-05 }, { 0x3C00, 1 }, { 0xC000, -2 },
            { 0x7BFF, 65504 }, { 0xFBFF, -65504 }, { 0x7C00, kInf }, { 0xFC00, -kInf }, { 0x7E00, kNaN },
            { 0x7C01, kNaN }, { 0xFE00, kNaN } };
    case DType::BF16:
        return { { 0x0000, 0 }, { 0x8000, -0.0 }, { 0x0001, 9.183549615799121e-41 },
            { 0x0080, 1.1754943508222875e-38 }, { 0x3F80, 1 }, { 0xC040, -3 },
            { 0x7F7F, 3.3895313892515355e38 }, { 0xFF7F, -3.3895313892515355e38 }, { 0x7F80, kInf },
            { 0xFF80, -kInf }, { 0x7FC0, kNaN }, { 0xFFC1, kNaN } };
    case DType::F32:
        return { { 0x00000000, 0 }, { 0x80000000, -0.0 }, { 0x00000001, 1.401298464324817e-45 },
            { 0x80800000, -1.1754943508222875e-38 }, { 0x3F800000, 1 }, { 0xC0490FDB, -3.1415927410125732 },
            { 0x7F7FFFFF, fltMax }, { 0xFF7FFFFF, -fltMax }, { 0x7F800000, kInf }, { 0xFF800000, -kInf },
            { 0x7FC00000, kNaN }, { 0x7F800001, kNaN } };
    case DType::F64:
        // Magnitudes stay below 1e154: beyond that the sum of squares overflows (as numpy's does).
        return { { 0, 0 }, { 0x8000000000000000ull, -0.0 }, { 1, 4.9406564584124654e-324 },
            { 0x3FF0000000000000ull, 1 }, { 0xC004000000000000ull, -2.5 },
            { std::bit_cast<std::uint64_t>(1e150), 1e150 }, { std::bit_cast<std::uint64_t>(-3e149), -3e149 },
            { 0x7FF0000000000000ull, kInf }, { 0xFFF0000000000000ull, -kInf },
            { 0x7FF8000000000000ull, kNaN }, { 0x7FF0000000000001ull, kNaN },
            { 0xFFF8000000000000ull, kNaN } };
    case DType::C64:
        return { { c64(1, 0), 1 }, { c64(3, 4), 5 }, { c64(0, 0), 0 }, { c64(-0.0f, -0.0f), 0 },
            { c64(-1.401298464324817e-45f, 0), 1.401298464324817e-45 }, { c64(0, -12), 12 },
            { c64(kInf, 0), kInf }, { c64(0, -kInf), kInf }, { c64(kNaN, 0), kNaN },
            { c64(kInf, kNaN), kNaN } };
    case DType::F8_E5M2:
        return { { 0x00, 0 }, { 0x80, -0.0 }, { 0x01, 1.52587890625e-05 }, { 0x04, 6.103515625e-05 },
            { 0x3C, 1 }, { 0x7B, 57344 }, { 0xFB, -57344 }, { 0x7C, kInf }, { 0xFC, -kInf }, { 0x7D, kNaN },
            { 0xFF, kNaN } };
    case DType::F8_E4M3:
        return { { 0x00, 0 }, { 0x80, -0.0 }, { 0x01, 0.001953125 }, { 0x08, 0.015625 }, { 0x38, 1 },
            { 0x78, 256 }, { 0x7E, 448 }, { 0xFE, -448 }, { 0x7F, kNaN }, { 0xFF, kNaN } };
    case DType::F8_E4M3FNUZ:
        return { { 0x00, 0 }, { 0x01, 0.0009765625 }, { 0x08, 0.0078125 }, { 0x40, 1 }, { 0x7F, 240 },
            { 0xFF, -240 }, { 0x80, kNaN } };
    case DType::F8_E5M2FNUZ:
        return { { 0x00, 0 }, { 0x01, 7.62939453125e-06 }, { 0x40, 1 }, { 0x7F, 57344 }, { 0xFF, -57344 },
            { 0x80, kNaN } };
    case DType::F8_E8M0:
        return { { 0x00, 5.877471754111438e-39 }, { 0x7F, 1 }, { 0x80, 2 }, { 0xFE, 1.7014118346046923e38 },
            { 0xFF, kNaN } };
    case DType::F6_E2M3:
        return { { 0x00, 0 }, { 0x20, -0.0 }, { 0x01, 0.125 }, { 0x07, 0.875 }, { 0x08, 1 }, { 0x1F, 7.5 },
            { 0x3F, -7.5 } };
    case DType::F6_E3M2:
        return { { 0x00, 0 }, { 0x20, -0.0 }, { 0x01, 0.0625 }, { 0x04, 0.25 }, { 0x0C, 1 }, { 0x1F, 28 },
            { 0x3F, -28 } };
    case DType::F4:
        return { { 0x0, 0 }, { 0x8, -0.0 }, { 0x1, 0.5 }, { 0x2, 1 }, { 0x3, 1.5 }, { 0x7, 6 }, { 0xF, -6 } };
    }
    return {};
}

// Codes as the format stores them: little-endian, sub-byte elements as a little-endian bit stream.
QByteArray pack(DType dtype, const std::vector<std::uint64_t> &codes)
{
    const unsigned bits = widthOf(dtype);
    QByteArray out(static_cast<qsizetype>((codes.size() * bits + 7) / 8), '\0');
    auto *p = reinterpret_cast<unsigned char *>(out.data());
    for (std::size_t i = 0; i < codes.size(); ++i) {
        if (bits >= 8) {
            for (unsigned b = 0; b < bits / 8; ++b)
                p[i * bits / 8 + b] = static_cast<unsigned char>(codes[i] >> (8 * b));
        } else {
            for (unsigned b = 0; b < bits; ++b) {
                const std::size_t bit = i * bits + b;
                if ((codes[i] >> b) & 1)
                    p[bit / 8] |= static_cast<unsigned char>(1u << (bit % 8));
            }
        }
    }
    return out;
}

std::span<const std::byte> asBytes(const QByteArray &data)
{
    return std::as_bytes(std::span(data.constData(), static_cast<std::size_t>(data.size())));
}

// ---- the test's own statistics ---------------------------------------------------------------

struct Reference {
    std::uint64_t count = 0, nan = 0, posInf = 0, negInf = 0, zeros = 0, finite = 0, outliers = 0;
    double min = kNaN, max = kNaN, mean = kNaN, std = kNaN, absMax = kNaN;
    std::vector<std::uint64_t> histogram;
    double histogramLo = kNaN, histogramHi = kNaN;
};

Reference referenceStats(const std::vector<double> &values, unsigned bins, DType dtype = DType::F64)
{
    Reference r;
    long double sum = 0, lo = kInf, hi = -kInf, absMax = 0;
    for (double v : values) {
        ++r.count;
        if (std::isnan(v)) {
            ++r.nan;
        } else if (std::isinf(v)) {
            ++(v > 0 ? r.posInf : r.negInf);
        } else {
            ++r.finite;
            r.zeros += v == 0;
            sum += v;
            lo = std::min<long double>(lo, v);
            hi = std::max<long double>(hi, v);
            absMax = std::max<long double>(absMax, std::fabs(v));
        }
    }
    if (!r.finite)
        return r;
    const long double mean = sum / static_cast<long double>(r.finite);
    long double m2 = 0;
    for (double v : values) {
        if (std::isfinite(v))
            m2 += (v - mean) * (v - mean);
    }
    const long double sd = std::sqrt(m2 / static_cast<long double>(r.finite));
    r.min = static_cast<double>(lo);
    r.max = static_cast<double>(hi);
    r.absMax = static_cast<double>(absMax);
    r.mean = static_cast<double>(mean);
    r.std = static_cast<double>(sd);
    if (lo < hi) {
        // Bin i holds edge[i] <= v < edge[i+1]; the last bin also holds hi.
        const BinLayout layout = layoutBins(dtype, r.min, r.max, bins);
        bins = layout.bins;
        r.histogramLo = layout.lo;
        r.histogramHi = layout.hi;
        std::vector<long double> edges(bins + 1);
        for (unsigned i = 0; i <= bins; ++i)
            edges[i] = layout.lo + (static_cast<long double>(layout.hi) - layout.lo) * i / bins;
        r.histogram.assign(bins, 0);
        for (double v : values) {
            if (!std::isfinite(v))
                continue;
            unsigned b = bins - 1;
            while (b > 0 && v < edges[b])
                --b;
            ++r.histogram[b];
        }
    }
    if (r.std > 0) { // a spread that rounds to 0 in double (all subnormal) has no outliers
        for (double v : values)
            r.outliers += std::isfinite(v) && std::fabs(v - mean) > 6 * sd;
    }
    return r;
}

bool sameValue(double actual, double expected)
{
    if (std::isnan(actual) || std::isnan(expected))
        return std::isnan(actual) && std::isnan(expected);
    return actual == expected;
}

// Within `relative` of the data's scale, or a couple of units in the last place (subnormals).
bool closeTo(double actual, double expected, double relative, double scale)
{
    if (std::isnan(actual) || std::isnan(expected))
        return std::isnan(actual) && std::isnan(expected);
    const double diff = std::fabs(actual - expected);
    const double ulp = std::nextafter(std::fabs(expected), kInf) - std::fabs(expected);
    return diff <= relative * scale || diff <= 2 * ulp;
}

QByteArray describe(const char *what, double actual, double expected)
{
    return QByteArray(what) + ": got " + QByteArray::number(actual, 'g', 17) + ", expected "
        + QByteArray::number(expected, 'g', 17);
}

// Compares an analysis with the reference. C64 magnitudes may differ from long double sqrt by
// an ulp (hypot), so its extremes get the same tolerance as the moments.
void verify(const TensorAnalysis &a, const Reference &r, DType dtype)
{
    const TensorStats &s = a.stats;
    QCOMPARE(s.count, r.count);
    QCOMPARE(s.nan, r.nan);
    QCOMPARE(s.posInf, r.posInf);
    QCOMPARE(s.negInf, r.negInf);
    QCOMPARE(s.zeros, r.zeros);
    QCOMPARE(s.finite, r.finite);
    const double scale = std::isnan(r.absMax) ? 0 : r.absMax;
    const double extremeTolerance = dtype == DType::C64 ? 1e-15 : 0;
    QVERIFY2(closeTo(s.min, r.min, extremeTolerance, scale), describe("min", s.min, r.min));
    QVERIFY2(closeTo(s.max, r.max, extremeTolerance, scale), describe("max", s.max, r.max));
    QVERIFY2(closeTo(s.absMax, r.absMax, extremeTolerance, scale), describe("absMax", s.absMax, r.absMax));
    if (dtype != DType::C64) {
        QVERIFY2(sameValue(s.min, r.min), describe("min", s.min, r.min));
        QVERIFY2(sameValue(s.max, r.max), describe("max", s.max, r.max));
    }
    QVERIFY2(closeTo(s.mean, r.mean, 1e-13, scale), describe("mean", s.mean, r.mean));
    QVERIFY2(closeTo(s.std, r.std, 1e-9, r.std) || closeTo(s.std, r.std, 1e-13, scale),
        describe("std", s.std, r.std));
    QCOMPARE(a.histogram.counts, r.histogram);
    if (!r.histogram.empty()) {
        QVERIFY2(sameValue(a.histogram.lo, r.histogramLo), describe("histogram lo", a.histogram.lo, r.histogramLo));
        QVERIFY2(sameValue(a.histogram.hi, r.histogramHi), describe("histogram hi", a.histogram.hi, r.histogramHi));
    }
    QCOMPARE(a.outliers, r.outliers);
}

std::vector<double> valuesOf(DType dtype, const std::vector<std::uint64_t> &codes)
{
    std::vector<double> values;
    values.reserve(codes.size());
    for (auto code : codes)
        values.push_back(referenceValue(dtype, code));
    return values;
}

std::uint64_t codeMask(DType dtype)
{
    const unsigned bits = widthOf(dtype);
    return bits == 64 ? ~0ull : (std::uint64_t(1) << bits) - 1;
}

// Random codes of a dtype: the whole code space for narrow types and integers; for the wide
// floats, mostly normally distributed values with a sprinkling of raw bit patterns (NaN, Inf,
// subnormals among them).
std::vector<std::uint64_t> randomCodes(DType dtype, std::size_t n, std::uint32_t seed)
{
    std::mt19937_64 rng(seed);
    std::normal_distribution<double> normal(0.5, 3.0);
    std::vector<std::uint64_t> codes(n);
    for (auto &code : codes) {
        const bool raw = rng() % 8 == 0;
        switch (dtype) {
        case DType::F32:
            code = raw ? rng() & 0xFFFFFFFF : std::bit_cast<std::uint32_t>(static_cast<float>(normal(rng)));
            break;
        case DType::F64:
            // Inf or NaN of either sign, or a value between about 1e-20 and 1e20.
            code = raw && rng() % 2
                ? 0x7FF0000000000000ull | (rng() % 2) << 51 | (rng() & 1) << 63
                : std::bit_cast<std::uint64_t>(normal(rng) * std::pow(10.0, double(rng() % 40) - 20));
            break;
        case DType::C64:
            code = raw ? rng() : c64(static_cast<float>(normal(rng)), static_cast<float>(normal(rng)));
            break;
        default:
            code = rng() & codeMask(dtype);
        }
    }
    return codes;
}

// Finite normal F32 values (the vectorised path takes blocks without NaN or Inf), with a few far
// values and, if asked, a NaN and an Inf in two places.
std::vector<std::uint64_t> normalF32(std::size_t n, std::uint32_t seed, bool specials, float mean = -3.0f)
{
    std::mt19937_64 rng(seed);
    std::normal_distribution<float> normal(mean, 0.25f);
    std::vector<std::uint64_t> codes(n);
    for (auto &code : codes)
        code = std::bit_cast<std::uint32_t>(normal(rng));
    for (std::size_t i = 97; i < n; i += n / 5)
        codes[i] = std::bit_cast<std::uint32_t>(i % 2 ? 40.0f : -70.0f); // outliers
    if (specials && n > 3000) {
        codes[1500] = 0x7FC00000;
        codes[n - 3] = 0xFF800000;
        codes[700] = 0; // a zero
    }
    return codes;
}

// The same for BF16 and F16 (nearest code by the test's own decoder), with both NaNs, both
// infinities and both zeros inside the part the vector kernels take (64 values at a time) and in
// the ragged end.
// F32 codes as BF16 or F16 codes: the largest magnitude not above each value's.
std::vector<std::uint64_t> halfCodes(DType dtype, const std::vector<std::uint64_t> &f32)
{
    const std::uint64_t maxFinite = dtype == DType::BF16 ? 0x7F7F : 0x7BFF;
    std::vector<std::uint64_t> codes(f32.size());
    for (std::size_t i = 0; i < f32.size(); ++i) {
        const double v = std::bit_cast<float>(static_cast<std::uint32_t>(f32[i]));
        std::uint64_t lo = 0, hi = maxFinite; // the largest magnitude code not above |v|
        while (lo < hi) {
            const std::uint64_t mid = (lo + hi + 1) / 2;
            if (referenceValue(dtype, mid) <= std::fabs(v))
                lo = mid;
            else
                hi = mid - 1;
        }
        codes[i] = lo | (v < 0 ? 0x8000 : 0);
    }
    return codes;
}

std::vector<std::uint64_t> normalHalf(
    DType dtype, std::size_t n, std::uint32_t seed, bool specials, float mean = -3.0f)
{
    std::vector<std::uint64_t> codes = halfCodes(dtype, normalF32(n, seed, false, mean));
    const std::uint64_t maxFinite = dtype == DType::BF16 ? 0x7F7F : 0x7BFF;
    if (specials) {
        const std::uint64_t inf = maxFinite + 1;
        for (std::size_t i : { std::size_t(5), std::size_t(1000), n - 2 })
            codes[i] = inf + 1; // NaN
        codes[2000] = 0x8000 | (inf + 5); // negative NaN
        codes[3000] = inf;
        codes[n / 2] = 0x8000 | inf;
        codes[77] = 0;
        codes[78] = 0x8000;
    }
    return codes;
}

// Whole bytes for the sub-byte dtypes, as a file holds them: repeat the first codes.
void padToBytes(DType dtype, std::vector<std::uint64_t> &codes)
{
    for (std::size_t i = 0; (codes.size() * widthOf(dtype)) % 8; ++i)
        codes.push_back(codes[i]);
}

// The AVX-512 kernels are switched off within a test to run the portable ones on the same rows;
// this puts them back.
struct RestoreAvx512 {
    const bool wasEnabled = kernels::avx512::enabled(); // STB_KERNELS=portable stays portable
    ~RestoreAvx512() { kernels::avx512::setEnabled(wasEnabled); }
};

// Likewise for the portable family's AVX2 kernels, switched off to run GCC's generic vectors.
struct RestoreAvx2 {
    const bool wasEnabled = kernels::avx2::enabled();
    ~RestoreAvx2() { kernels::avx2::setEnabled(wasEnabled); }
};

// The same double, bit for bit (the sign of a zero, the last bit of a mean).
bool sameBits(double a, double b)
{
    return std::bit_cast<std::uint64_t>(a) == std::bit_cast<std::uint64_t>(b);
}

std::optional<TensorAnalysis> analyze(DType dtype, const QByteArray &bytes, std::uint64_t elements,
    unsigned bins = 10, unsigned threads = 1, std::stop_token stop = {})
{
    AnalysisOptions options;
    options.bins = bins;
    options.threads = threads;
    return analyzeTensor(dtype, asBytes(bytes), elements, options, stop);
}

std::string sha256sum(const QString &path)
{
    QProcess process;
    process.start(u"sha256sum"_s, { path });
    if (!process.waitForFinished(60000))
        return {};
    return QString::fromUtf8(process.readAllStandardOutput()).section(u' ', 0, 0).toStdString();
}

} // namespace

class tst_TensorStats : public QObject {
    Q_OBJECT

private slots:
    void initTestCase();
    void referenceDecoder_data();
    void referenceDecoder();
    void statistics_data();
    void statistics();
    void accumulatorGroupings();
    void chunkedMatchesSinglePass_data();
    void chunkedMatchesSinglePass();
    void kernelFamiliesAgree_data();
    void kernelFamiliesAgree();
    void avx2MatchesGenericVectors_data();
    void avx2MatchesGenericVectors();
    void avx2HalfBlockMatchesWidened_data();
    void avx2HalfBlockMatchesWidened();
    void sameBitsOnAnyThreadCount();
    void accuracyLargeMean();
    void withoutHistogram_data();
    void withoutHistogram();
    void histogramEdges_data();
    void histogramEdges();
    void cancel_data();
    void cancel();
    void progress();
    void contentDigest();
    void sha256_data();
    void sha256();
    void truncatedDuringScan_data();
    void truncatedDuringScan();

private:
    QTemporaryDir m_dir;
};

void tst_TensorStats::initTestCase()
{
    // Rows that run the AVX-512 kernels fall back to the portable ones on a CPU without them: say
    // which ran, so a reader of the log knows what a green run covered.
    if (kernels::avx512::supported())
        qInfo("AVX-512 kernels: supported; F32/BF16/F16 rows run them and the portable kernels");
    else
        qInfo("AVX-512 kernels: NOT supported by this CPU; their rows run only the portable kernels");
}

// The test's decoder must itself be right before it judges anything: every literal code.
void tst_TensorStats::referenceDecoder_data()
{
    QTest::addColumn<DType>("dtype");
    for (const auto &info : allDTypes())
        QTest::newRow(info.name.data()) << info.dtype;
}

void tst_TensorStats::referenceDecoder()
{
    QFETCH(DType, dtype);
    const auto table = literalTable(dtype);
    QVERIFY(!table.empty());
    bool hasOne = false;
    for (const auto &[code, value] : table) {
        const double decoded = referenceValue(dtype, code);
        const bool exact = sameValue(decoded, value)
            && (std::isnan(value) || std::signbit(decoded) == std::signbit(value));
        const bool complexClose
            = dtype == DType::C64 && std::fabs(decoded - value) <= 1e-15 * std::fabs(value);
        QVERIFY2(exact || complexClose,
            QByteArray("code 0x" + QByteArray::number(code, 16) + ": " + describe("", decoded, value)));
        hasOne = hasOne || value == 1;
    }
    QVERIFY(hasOne);
}

void tst_TensorStats::statistics_data()
{
    QTest::addColumn<DType>("dtype");
    QTest::addColumn<QByteArray>("bytes");
    QTest::addColumn<quint64>("elements");
    QTest::addColumn<unsigned>("bins");

    for (const auto &info : allDTypes()) {
        const DType dtype = info.dtype;
        const auto table = literalTable(dtype);
        std::uint64_t one = 0;
        for (const auto &[code, value] : table) {
            if (value == 1) {
                one = code;
                break;
            }
        }
        auto row = [&](const char *what, std::vector<std::uint64_t> codes, unsigned bins) {
            const quint64 n = codes.size();
            QTest::addRow("%s %s", info.name.data(), what) << dtype << pack(dtype, codes) << n << bins;
        };
        std::vector<std::uint64_t> literals;
        for (const auto &entry : table)
            literals.push_back(entry.first);
        padToBytes(dtype, literals);
        row("literals", literals, 10);
        row("literals 3 bins", literals, 3);

        auto random = randomCodes(dtype, 5000, static_cast<std::uint32_t>(dtype) + 1);
        row("random", random, 10);
        row("random 64 bins", random, 64);
        row("random 1 bin", random, 1);
        row("empty", {}, 10);
        if (widthOf(dtype) >= 8) { // a sub-byte scalar cannot be stored
            row("scalar", { one }, 10);
            row("scalar NaN or max", { table.back().first }, 10);
        }
        // Floats of the vector kernels: below, at and above their threshold limits (21 bins), and
        // the many bins F32 takes by index (the GUI's 64 and 1,000).
        if (dtype == DType::F32 || dtype == DType::BF16 || dtype == DType::F16) {
            auto normal = [&](std::size_t n, std::uint32_t seed, bool specials) {
                return dtype == DType::F32 ? normalF32(n, seed, specials) : normalHalf(dtype, n, seed, specials);
            };
            for (unsigned bins : { 10u, 16u, 17u, 1u, 21u, 22u, 64u, 1000u }) {
                QTest::addRow("%s normal %u bins", info.name.data(), bins)
                    << dtype << pack(dtype, normal(20000, 3, false)) << quint64(20000) << bins;
                QTest::addRow("%s normal, NaN, Inf, %u bins", info.name.data(), bins)
                    << dtype << pack(dtype, normal(20011, 4, true)) << quint64(20011) << bins;
            }
            // The portable kernels sum around 0 where the first block's mean is near it (within
            // a standard deviation), else around that block's mean; a chunk whose later values lie
            // far from 0 has its sums redone around its mean.
            auto centred = [&](std::size_t n, std::uint32_t seed, float mean) {
                const auto f32 = normalF32(n, seed, false, mean);
                return dtype == DType::F32 ? f32 : halfCodes(dtype, f32);
            };
            auto farAfterFirstBlock = centred(20000, 7, 0.0f);
            const auto far = centred(20000, 8, 4096.0f);
            std::copy(far.begin() + 512, far.end(), farAfterFirstBlock.begin() + 512);
            for (unsigned bins : { 10u, 64u }) {
                QTest::addRow("%s centred normal %u bins", info.name.data(), bins)
                    << dtype << pack(dtype, centred(20000, 6, 0.0f)) << quint64(20000) << bins;
                QTest::addRow("%s centred first block, then far from 0, %u bins", info.name.data(), bins)
                    << dtype << pack(dtype, farAfterFirstBlock) << quint64(20000) << bins;
            }
            if (dtype == DType::F32) {
                // x - lo overflows a float here; and a range of subnormals, whose bins / range does.
                std::vector<std::uint64_t> fullRange = normalF32(4096, 5, false), tiny(4096);
                fullRange[10] = 0x7F7FFFFF;
                fullRange[3000] = 0xFF7FFFFF;
                for (std::size_t i = 0; i < tiny.size(); ++i)
                    tiny[i] = (i * 2654435761u) % 5000; // subnormals and zero
                // The floats on both sides of each edge of 64 bins over [0.1, 0.8], where float
                // arithmetic alone would put some in the wrong bin.
                const float lo = 0.1f, hi = 0.8f;
                std::vector<std::uint64_t> edges { std::bit_cast<std::uint32_t>(lo), std::bit_cast<std::uint32_t>(hi) };
                for (int k = 1; k < 64; ++k) {
                    const double edge = double(lo) + k * ((double(hi) - double(lo)) / 64);
                    float above = static_cast<float>(edge);
                    if (double(above) < edge)
                        above = std::nextafter(above, 1.0f);
                    for (float v : { std::nextafter(above, 0.0f), above, std::nextafter(above, 1.0f) })
                        edges.push_back(std::bit_cast<std::uint32_t>(v));
                }
                while (edges.size() % 64)
                    edges.push_back(edges[edges.size() % 7]);
                QTest::addRow("F32 around the edges of 64 bins")
                    << dtype << pack(dtype, edges) << quint64(edges.size()) << 64u;
                for (unsigned bins : { 10u, 64u }) {
                    QTest::addRow("F32 -FLT_MAX..FLT_MAX %u bins", bins) << dtype << pack(dtype, fullRange) << quint64(4096) << bins;
                    QTest::addRow("F32 subnormals %u bins", bins) << dtype << pack(dtype, tiny) << quint64(4096) << bins;
                }
            }
        }
        row("constant", std::vector<std::uint64_t>(100, one), 10);
        // A constant with NaN and Inf around it still has no spread, so no histogram.
        std::vector<std::uint64_t> constantAndSpecials(64, one);
        for (const auto &[code, value] : table) {
            if (!std::isfinite(value))
                constantAndSpecials.push_back(code);
        }
        padToBytes(dtype, constantAndSpecials);
        row("constant with specials", constantAndSpecials, 10);
        // Outliers: zeros and a few far values (|x - mean| > 6 std needs under 1 in 37).
        std::vector<std::uint64_t> spiky(400, table.front().first);
        for (const auto &[code, value] : table) {
            if (std::isfinite(value) && value != referenceValue(dtype, table.front().first)) {
                spiky[37] = spiky[211] = code;
                break;
            }
        }
        row("two spikes", spiky, 10);
    }
}

void tst_TensorStats::statistics()
{
    QFETCH(DType, dtype);
    QFETCH(QByteArray, bytes);
    QFETCH(quint64, elements);
    QFETCH(unsigned, bins);

    std::vector<std::uint64_t> codes(elements);
    // Unpack with the test's own bit reader (the inverse of pack()).
    const unsigned width = widthOf(dtype);
    for (std::uint64_t i = 0; i < elements; ++i) {
        for (unsigned b = 0; b < width; ++b) {
            const std::uint64_t bit = i * width + b;
            if ((static_cast<unsigned char>(bytes[static_cast<qsizetype>(bit / 8)]) >> (bit % 8)) & 1)
                codes[i] |= std::uint64_t(1) << b;
        }
    }
    const Reference expected = referenceStats(valuesOf(dtype, codes), bins, dtype);
    const RestoreAvx512 restore;
    const RestoreAvx2 restoreAvx2;
    // AVX-512 on 1 and 2 threads, then the portable family with its AVX2 kernels and without.
    struct Run {
        bool avx512, avx2;
        unsigned threads;
    };
    for (const Run run : { Run { true, true, 1 }, Run { true, true, 2 }, Run { false, true, 1 }, Run { false, false, 1 } }) {
        if ((run.avx512 && !kernels::avx512::supported()) || (run.avx2 && !kernels::avx2::supported()))
            continue;
        const unsigned threads = run.threads;
        kernels::avx512::setEnabled(run.avx512);
        kernels::avx2::setEnabled(run.avx2);
        const auto analysis = analyze(dtype, bytes, elements, bins, threads);
        QVERIFY(analysis);
        verify(*analysis, expected, dtype);
        if (QTest::currentTestFailed())
            return;
        if (expected.finite == 0) {
            QVERIFY(std::isnan(analysis->stats.min) && std::isnan(analysis->stats.max));
            QVERIFY(std::isnan(analysis->stats.mean) && std::isnan(analysis->stats.std));
            QVERIFY(analysis->histogram.empty());
        }
    }
}

// Mergeable statistics: one value at a time, whole blocks, and merges in different groupings
// all agree with the long double reference.
void tst_TensorStats::accumulatorGroupings()
{
    std::mt19937_64 rng(7);
    std::normal_distribution<double> normal(1e4, 0.5);
    std::vector<double> values(3000);
    for (auto &v : values)
        v = normal(rng);
    const Reference expected = referenceStats(values, 10);

    StatsAccumulator oneByOne;
    for (double v : values)
        oneByOne.addFinite(v);
    auto block = [&](std::size_t begin, std::size_t end) {
        StatsAccumulator acc;
        double sum = 0, squares = 0;
        for (std::size_t i = begin; i < end; ++i) {
            sum += values[i] - values[begin];
            squares += (values[i] - values[begin]) * (values[i] - values[begin]);
        }
        acc.addFiniteBlock(end - begin, values[begin], sum, squares);
        const auto [lo, hi] = std::minmax_element(values.begin() + begin, values.begin() + end);
        acc.addExtremes(*lo, *hi, std::max(std::fabs(*lo), std::fabs(*hi)));
        return acc;
    };
    StatsAccumulator left = block(0, 1000), middle = block(1000, 1700), right = block(1700, 3000);
    StatsAccumulator leftFirst = left, rightFirst = middle, empty;
    leftFirst.merge(middle);
    leftFirst.merge(right);
    rightFirst.merge(right);
    rightFirst.merge(empty);
    empty.merge(left);
    empty.merge(rightFirst);
    for (const auto *acc : { &oneByOne, &leftFirst, &empty }) {
        const TensorStats s = acc->stats();
        QCOMPARE(s.count, std::uint64_t(3000));
        QCOMPARE(s.finite, std::uint64_t(3000));
        QVERIFY2(std::fabs(s.mean - expected.mean) <= 1e-15 * expected.mean,
            describe("mean", s.mean, expected.mean));
        QVERIFY2(
            std::fabs(s.std - expected.std) <= 1e-10 * expected.std, describe("std", s.std, expected.std));
    }
}

void tst_TensorStats::chunkedMatchesSinglePass_data()
{
    QTest::addColumn<DType>("dtype");
    for (DType dtype : { DType::F32, DType::BF16, DType::F16, DType::F64, DType::I8, DType::U8, DType::F4,
             DType::I32, DType::I64, DType::C64, DType::F8_E4M3 })
        QTest::newRow(dtypeName(dtype).data()) << dtype;
}

// Several chunks and a ragged end, with specials right at chunk boundaries: 1, 2 and 3 threads,
// and the portable kernels, give identical counts, histogram and digest, and moments equal
// within 1e-12.
void tst_TensorStats::chunkedMatchesSinglePass()
{
    QFETCH(DType, dtype);
    const std::size_t n = 3 * kChunk + 1000;
    auto codes = dtype == DType::F32                              ? normalF32(n, 99, true)
        : dtype == DType::BF16 || dtype == DType::F16 ? normalHalf(dtype, n, 99, true)
                                                      : randomCodes(dtype, n, 99);
    std::uint64_t nanCode = 0, infCode = 0;
    for (const auto &[code, value] : literalTable(dtype)) {
        if (std::isnan(value) && !nanCode)
            nanCode = code;
        if (std::isinf(value) && !infCode)
            infCode = code;
    }
    for (std::size_t c = 1; c <= 3; ++c) {
        if (nanCode)
            codes[c * kChunk - 1] = nanCode;
        if (infCode)
            codes[c * kChunk] = infCode;
    }
    const QByteArray bytes = pack(dtype, codes);
    const Reference expected = referenceStats(valuesOf(dtype, codes), 10, dtype);

    const auto single = analyze(dtype, bytes, n, 10, 1);
    QVERIFY(single);
    verify(*single, expected, dtype);
    if (QTest::currentTestFailed())
        return;
    // And the portable kernels, where the AVX-512 ones ran above.
    const RestoreAvx512 restore;
    for (const auto &[avx512, threads] : { std::pair(true, 2u), std::pair(true, 3u), std::pair(false, 1u) }) {
        kernels::avx512::setEnabled(avx512);
        const auto multi = analyze(dtype, bytes, n, 10, threads);
        QVERIFY(multi);
        const TensorStats &a = multi->stats, &b = single->stats;
        compareCountsAndExtremes(a, b);
        if (QTest::currentTestFailed())
            return;
        QVERIFY2(std::fabs(a.mean - b.mean) <= 1e-12 * std::max(std::fabs(b.mean), b.std),
            describe("mean", a.mean, b.mean));
        QVERIFY2(std::fabs(a.std - b.std) <= 1e-12 * b.std, describe("std", a.std, b.std));
        QCOMPARE(multi->histogram.counts, single->histogram.counts);
        QCOMPARE(multi->outliers, single->outliers);
        QCOMPARE(multi->digest, single->digest);
    }
}

void tst_TensorStats::kernelFamiliesAgree_data()
{
    QTest::addColumn<DType>("dtype");
    QTest::addColumn<QByteArray>("bytes");
    QTest::addColumn<quint64>("elements");
    QTest::addColumn<unsigned>("bins");
    // Several chunks and a ragged end: both families split the work the same way, so this is the
    // kernels alone that differ. The audit's 10 bins, the browser's 64, and 1,000 (F32 by index).
    const std::size_t n = 3 * kChunk + 1000;
    for (DType dtype : { DType::F32, DType::BF16, DType::F16 }) {
        const char *name = dtypeName(dtype).data();
        auto normal = [&](std::uint32_t seed, bool specials, float mean = -3.0f) {
            return dtype == DType::F32 ? normalF32(n, seed, specials, mean)
                                       : normalHalf(dtype, n, seed, specials, mean);
        };
        // A mean far from zero against a small spread: where summation order shows most.
        const QByteArray plain = pack(dtype, normal(21, false)), specials = pack(dtype, normal(22, true)),
                         offset = pack(dtype, normal(11, false, 100.0f)),
                         centred = pack(dtype, normal(12, false, 0.0f));
        // Centred on 0: the portable F32 and BF16 kernels' sums around 0. (F16 is counted by code,
        // and its sums of centred values differ by more than 4 ulp of the std.)
        for (unsigned bins : { 10u, 64u, 1000u }) {
            QTest::addRow("%s normal %u bins", name, bins) << dtype << plain << quint64(n) << bins;
            QTest::addRow("%s normal, NaN, Inf, %u bins", name, bins) << dtype << specials << quint64(n) << bins;
            QTest::addRow("%s large mean %u bins", name, bins) << dtype << offset << quint64(n) << bins;
            if (dtype != DType::F16)
                QTest::addRow("%s centred %u bins", name, bins) << dtype << centred << quint64(n) << bins;
        }
    }
}

// The same tensor through the AVX-512 kernels and the portable ones (STB_KERNELS=portable forces
// the latter on an AVX-512 machine), 2 threads each: every count, extreme, histogram bin,
// outlier count and digest bit-identical. Mean and std come from sums that the two families
// form differently (F32: x - shift in 16 double lanes against 8; BF16 and F16: vector sums
// against the portable path's per-code counts), so they may differ by rounding: allowed 4 units in the last place of the larger of |mean| and std
// (measured: means equal, std within 1 such ulp), far below the 1e-13 both keep against the
// reference.
void tst_TensorStats::kernelFamiliesAgree()
{
    QFETCH(DType, dtype);
    QFETCH(QByteArray, bytes);
    QFETCH(quint64, elements);
    QFETCH(unsigned, bins);
    if (!kernels::avx512::supported())
        QSKIP("this CPU has no AVX-512: only the portable kernels can run here");
    const RestoreAvx512 restore;
    kernels::avx512::setEnabled(true);
    const auto wide = analyze(dtype, bytes, elements, bins, 2);
    kernels::avx512::setEnabled(false);
    const auto portable = analyze(dtype, bytes, elements, bins, 2);
    QVERIFY(wide && portable);
    const TensorStats &a = portable->stats, &b = wide->stats;
    compareCountsAndExtremes(a, b);
    if (QTest::currentTestFailed())
        return;
    const double scale = std::max(std::fabs(b.mean), b.std);
    const double ulp = std::nextafter(scale, kInf) - scale;
    QVERIFY2(std::fabs(a.mean - b.mean) <= 4 * ulp, describe("mean", a.mean, b.mean));
    QVERIFY2(std::fabs(a.std - b.std) <= 4 * ulp, describe("std", a.std, b.std));
    QVERIFY(!b.finite || !wide->histogram.counts.empty());
    QCOMPARE(portable->histogram.counts, wide->histogram.counts);
    QVERIFY2(sameValue(portable->histogram.lo, wide->histogram.lo), "histogram lo");
    QVERIFY2(sameValue(portable->histogram.hi, wide->histogram.hi), "histogram hi");
    QCOMPARE(portable->outliers, wide->outliers);
    QCOMPARE(portable->digest, wide->digest);
}

// F32 and BF16 tensors with NaN, both infinities, both zeros and subnormals (in whole blocks of
// the vector kernels and in ragged ends), all-finite ones (pass 2 then trusts pass 1's block
// ranges), odd lengths, and bins counted by threshold (10), by float index (17, 64, 1000) and
// with outliers. BF16 codes are the F32 codes' upper halves (so NaN, Inf and subnormals stay).
void tst_TensorStats::avx2MatchesGenericVectors_data()
{
    QTest::addColumn<DType>("dtype");
    QTest::addColumn<QByteArray>("bytes");
    QTest::addColumn<quint64>("elements");
    QTest::addColumn<unsigned>("bins");
    auto withSpecials = [](std::vector<std::uint64_t> codes) {
        const std::uint32_t specials[] = { 0x7FC00000, 0xFFC00001, 0x7F800000, 0xFF800000, 0x00000000, 0x80000000,
            0x00000001, 0x807FFFFF, 0x00400000 };
        const std::size_t n = codes.size();
        std::size_t k = 0;
        // Places past the end of a short tensor (n - 700 wraps around below 700) are skipped.
        for (std::size_t i : { std::size_t(3), std::size_t(600), std::size_t(4100), std::size_t(5000), n / 2,
                 n / 2 + 1, n - 700, n - 5, n - 1 }) {
            if (i < n)
                codes[i] = specials[k % std::size(specials)];
            ++k;
        }
        return codes;
    };
    // Zeros and subnormals only, no NaN or Inf: finite blocks with extremes of either sign of zero.
    auto withTiny = [](std::vector<std::uint64_t> codes) {
        for (std::size_t i = 11; i < codes.size(); i += 997)
            codes[i] = i % 3 == 0 ? 0x80000000 : i % 3 == 1 ? 0x00000003 : 0x80000010;
        return codes;
    };
    auto upperHalves = [](std::vector<std::uint64_t> codes) {
        for (auto &code : codes)
            code >>= 16;
        return codes;
    };
    // Magnitudes from 2^-40 to 2^40: sums that round, so the order of every addition shows (sums
    // of BF16 values of a narrow range are exact in double in any order).
    auto wideRange = [](std::size_t n) {
        std::mt19937_64 rng(34);
        std::vector<std::uint64_t> codes(n);
        for (auto &code : codes) {
            const std::uint64_t r = rng();
            code = (r & 0x807FFFFF) | (((r >> 32) % 81 + 87) << 23); // biased exponent 87..167
        }
        return codes;
    };
    // Values of one sign and zeros of both, in every lane: the extreme is a zero, and its sign is
    // the one the lanes' fold, block by block, comes to.
    auto signedZeros = [](std::size_t n, bool negative) {
        std::mt19937_64 rng(negative ? 36 : 35);
        std::vector<std::uint64_t> codes(n);
        for (auto &code : codes) {
            const std::uint64_t r = rng();
            code = r % 4 == 0 ? (r >> 8) % 2 * 0x80000000u
                              : (negative ? 0x80000000u : 0u) | 0x3F000000u | (r >> 40 & 0x7FFFFF);
        }
        return codes;
    };
    for (DType dtype : { DType::F32, DType::BF16 }) {
        const char *name = dtypeName(dtype).data();
        auto packed = [&](const std::vector<std::uint64_t> &f32) {
            return pack(dtype, dtype == DType::F32 ? f32 : upperHalves(f32));
        };
        for (const quint64 n : { quint64(2 * kChunk + 1001), quint64(8193), quint64(513) }) {
            const QByteArray finite = packed(normalF32(n, 31, false));
            const QByteArray specials = packed(withSpecials(normalF32(n, 32, false)));
            const QByteArray tiny = packed(withTiny(normalF32(n, 33, false, 0.0f)));
            const QByteArray wide = packed(wideRange(n));
            QTest::addRow("%s %llu signed zeros at the minimum", name, n)
                << dtype << packed(signedZeros(n, false)) << n << 10u;
            QTest::addRow("%s %llu signed zeros at the maximum", name, n)
                << dtype << packed(signedZeros(n, true)) << n << 10u;
            for (unsigned bins : { 10u, 17u, 64u, 1000u }) {
                QTest::addRow("%s %llu wide range, %u bins", name, n, bins) << dtype << wide << n << bins;
                QTest::addRow("%s %llu finite, %u bins", name, n, bins) << dtype << finite << n << bins;
                QTest::addRow("%s %llu NaN Inf zeros subnormals, %u bins", name, n, bins)
                    << dtype << specials << n << bins;
                QTest::addRow("%s %llu zeros subnormals, %u bins", name, n, bins)
                    << dtype << tiny << n << bins;
            }
        }
    }
}

// The portable family's AVX2 kernels (portableavx2.cpp) against GCC's generic vectors
// (portable.cpp) on the same CPU: the same arithmetic lane for lane, so every result is
// bit-identical, mean and std included.
void tst_TensorStats::avx2MatchesGenericVectors()
{
    QFETCH(DType, dtype);
    QFETCH(QByteArray, bytes);
    QFETCH(quint64, elements);
    QFETCH(unsigned, bins);
    if (!kernels::avx2::supported())
        QSKIP("this CPU has no AVX2: only the generic vectors can run here");
    const RestoreAvx512 restore;
    const RestoreAvx2 restoreAvx2;
    kernels::avx512::setEnabled(false);
    for (unsigned threads : { 1u, 2u }) {
        kernels::avx2::setEnabled(true);
        const auto avx2 = analyze(dtype, bytes, elements, bins, threads);
        kernels::avx2::setEnabled(false);
        const auto generic = analyze(dtype, bytes, elements, bins, threads);
        QVERIFY(avx2 && generic);
        const TensorStats &a = avx2->stats, &b = generic->stats;
        compareCountsAndExtremes(a, b);
        if (QTest::currentTestFailed())
            return;
        QVERIFY2(sameBits(a.min, b.min) && sameBits(a.max, b.max) && sameBits(a.absMax, b.absMax), "extremes");
        QVERIFY2(sameBits(a.mean, b.mean), describe("mean", a.mean, b.mean));
        QVERIFY2(sameBits(a.std, b.std), describe("std", a.std, b.std));
        QCOMPARE(avx2->histogram.counts, generic->histogram.counts);
        QVERIFY(sameBits(avx2->histogram.lo, generic->histogram.lo) && sameBits(avx2->histogram.hi, generic->histogram.hi));
        QCOMPARE(avx2->outliers, generic->outliers);
        // And both as the test's own long double reference has them.
        std::vector<double> values(elements);
        for (std::size_t i = 0; i < elements; ++i) {
            std::uint32_t bits = 0;
            if (dtype == DType::F32) {
                std::memcpy(&bits, bytes.constData() + 4 * i, 4);
            } else {
                std::uint16_t code;
                std::memcpy(&code, bytes.constData() + 2 * i, 2);
                bits = std::uint32_t(code) << 16;
            }
            values[i] = std::bit_cast<float>(bits);
        }
        verify(*avx2, referenceStats(values, bins, dtype), dtype);
        if (QTest::currentTestFailed())
            return;
    }
}

// The AVX2 BF16 and F16 block kernels, which widen codes in registers (BF16 in an order of its
// own), against the AVX2 F32 block kernel on the block widened by the test's own decoder
// (bit-identical to the generic vectors, above), sum and squares compared bit for bit: on
// magnitudes of 2^-60 to 2^60 (F16: 2^-24 to 2^15) every addition rounds, so a value added into
// another lane or out of turn shows, where whole tensors' mean and std mostly hide it. F16 also
// through pass 2's widening (widenF16).
void tst_TensorStats::avx2HalfBlockMatchesWidened_data()
{
    QTest::addColumn<DType>("dtype");
    QTest::addColumn<unsigned>("seed");
    QTest::addColumn<unsigned>("specials"); // 0: none, 1: zeros and subnormals, 2: a NaN, 3: an Inf
    QTest::addColumn<bool>("aroundZero"); // the kernels' unshifted sums
    for (DType dtype : { DType::BF16, DType::F16 })
        for (unsigned seed = 1; seed <= 8; ++seed)
            for (unsigned specials = 0; specials < 4; ++specials)
                for (bool aroundZero : { false, true })
                    QTest::addRow("%s seed %u specials %u%s", dtypeName(dtype).data(), seed, specials,
                        aroundZero ? " around 0" : "")
                        << dtype << seed << specials << aroundZero;
}

void tst_TensorStats::avx2HalfBlockMatchesWidened()
{
    QFETCH(DType, dtype);
    QFETCH(unsigned, seed);
    QFETCH(unsigned, specials);
    QFETCH(bool, aroundZero);
    if (!kernels::avx2::supported())
        QSKIP("this CPU has no AVX2");
    using kernels::portable::kBlock;
    const bool bf16 = dtype == DType::BF16;
    std::mt19937_64 rng(seed);
    std::vector<std::uint16_t> codes(kBlock);
    for (auto &code : codes) {
        const std::uint64_t r = rng();
        code = bf16
            ? static_cast<std::uint16_t>((r & 0x807F) | (((r >> 32) % 121 + 67) << 7)) // exponent 67..187
            : static_cast<std::uint16_t>((r & 0x83FF) | (((r >> 32) % 30 + 1) << 10)); // normal, 1..30
    }
    const std::uint16_t bf16Extra[] = { 0x0000, 0x8000, 0x0001, 0x807F, 0x7FC0, 0xFF80 };
    const std::uint16_t f16Extra[] = { 0x0000, 0x8000, 0x0001, 0x83FF, 0x7E00, 0xFC00 };
    const std::uint16_t *extra = bf16 ? bf16Extra : f16Extra;
    for (std::size_t i = seed; specials && i < kBlock; i += 37)
        codes[i] = specials == 1 ? extra[i % 4] : extra[specials + 2];
    alignas(32) float widened[kBlock];
    for (std::size_t i = 0; i < kBlock; ++i)
        widened[i] = static_cast<float>(referenceValue(dtype, codes[i]));
    const double shift = aroundZero ? 0.0 : widened[1];
    const auto *raw = reinterpret_cast<const std::byte *>(codes.data());
    kernels::portable::BlockMoments a {}, b {};
    const bool okA = bf16 ? kernels::avx2::momentsBlockBF16(raw, shift, a)
                          : kernels::avx2::momentsBlockF16(raw, shift, a);
    const bool okB = kernels::avx2::momentsBlock(reinterpret_cast<const std::byte *>(widened), shift, b);
    QCOMPARE(okA, okB);
    QCOMPARE(okA, specials < 2);
    if (!bf16) {
        alignas(32) float byKernel[kBlock];
        kernels::avx2::widenF16(raw, byKernel);
        for (std::size_t i = 0; i < kBlock; ++i)
            QVERIFY2((std::isnan(byKernel[i]) && std::isnan(widened[i])) || sameBits(byKernel[i], widened[i]),
                QByteArray::number(codes[i], 16));
    }
    if (!okA)
        return; // the scalar code redoes such a block
    QVERIFY2(sameBits(a.sum, b.sum), describe("sum", a.sum, b.sum));
    QVERIFY2(sameBits(a.squares, b.squares), describe("squares", a.squares, b.squares));
    QVERIFY2(sameBits(a.min, b.min) && sameBits(a.max, b.max) && sameBits(a.absMax, b.absMax), "extremes");
    QCOMPARE(a.zeros, b.zeros);
}

// Mean and std of values whose sums round (magnitudes 2^-40 to 2^40, F32 and BF16), on 1, 2 and 3
// threads, five times each: the same bits every time, so that an audit's output can be
// compared between runs and machines with as many cores.
void tst_TensorStats::sameBitsOnAnyThreadCount()
{
    const std::size_t n = 6 * kChunk + 77;
    std::mt19937_64 rng(35);
    std::vector<std::uint64_t> f32(n), bf16(n);
    for (std::size_t i = 0; i < n; ++i) {
        const std::uint64_t r = rng();
        f32[i] = (r & 0x807FFFFF) | (((r >> 32) % 81 + 87) << 23);
        bf16[i] = f32[i] >> 16;
    }
    for (const auto &[dtype, codes] : { std::pair(DType::F32, f32), std::pair(DType::BF16, bf16) }) {
        const QByteArray bytes = pack(dtype, codes);
        const auto first = analyze(dtype, bytes, n, 10, 1);
        QVERIFY(first);
        for (int run = 0; run < 5; ++run) {
            for (unsigned threads : { 1u, 2u, 3u }) {
                const auto again = analyze(dtype, bytes, n, 10, threads);
                QVERIFY(again);
                QVERIFY2(sameBits(again->stats.mean, first->stats.mean),
                    describe("mean", again->stats.mean, first->stats.mean));
                QVERIFY2(sameBits(again->stats.std, first->stats.std),
                    describe("std", again->stats.std, first->stats.std));
            }
        }
    }
}

void tst_TensorStats::withoutHistogram_data()
{
    QTest::addColumn<DType>("dtype");
    QTest::addColumn<QByteArray>("bytes");
    QTest::addColumn<quint64>("elements");
    QTest::addColumn<bool>("outliers"); // whether the tensor has some (pass 2 runs)
    const std::size_t n = 2 * kChunk + 1001;
    std::mt19937_64 rng(5);
    std::uniform_real_distribution<float> uniform(-1.0f, 1.0f);
    std::vector<std::uint64_t> flat(n); // within 1.8 standard deviations of the mean
    for (auto &code : flat)
        code = std::bit_cast<std::uint32_t>(uniform(rng));
    const std::vector<std::uint64_t> constant(n, std::bit_cast<std::uint32_t>(0.5f)), zeros(n, 0);
    for (DType dtype : { DType::F32, DType::BF16, DType::F16 }) {
        const char *name = dtypeName(dtype).data();
        const auto row = [&](const char *what, const std::vector<std::uint64_t> &f32, bool outliers) {
            const auto codes = dtype == DType::F32 ? f32 : halfCodes(dtype, f32);
            QTest::addRow("%s %s", name, what)
                << dtype << pack(dtype, codes) << quint64(codes.size()) << outliers;
        };
        row("no outliers", flat, false);
        row("outliers", normalF32(n, 41, false), true);
        row("no outliers, short", std::vector<std::uint64_t>(flat.begin(), flat.begin() + 700), false);
        row("outliers, short", normalF32(700, 42, false), true);
        row("constant", constant, false);
        row("zeros", zeros, false);
        const auto specials = dtype == DType::F32 ? normalF32(n, 43, true) : normalHalf(dtype, n, 43, true);
        QTest::addRow("%s outliers, NaN, Inf", name) << dtype << pack(dtype, specials) << quint64(n) << true;
    }
}

// Without a histogram (AnalysisOptions::bins 0: the CLI's audit table) a tensor has the same
// counts, extremes and outliers as with one, in every kernel family, on 1 and 2 threads, and no
// histogram. Pass 2 then reads only blocks that may hold outliers, and BF16 is summed in
// vectors rather than counted by code: mean and std within 4 units in the last place of the
// larger of |mean| and std.
void tst_TensorStats::withoutHistogram()
{
    QFETCH(DType, dtype);
    QFETCH(QByteArray, bytes);
    QFETCH(quint64, elements);
    QFETCH(bool, outliers);
    const RestoreAvx512 restore;
    const RestoreAvx2 restoreAvx2;
    struct Family {
        bool avx512, avx2;
    };
    for (const Family family : { Family { true, true }, Family { false, true }, Family { false, false } }) {
        if ((family.avx512 && !kernels::avx512::supported()) || (family.avx2 && !kernels::avx2::supported()))
            continue;
        kernels::avx512::setEnabled(family.avx512);
        kernels::avx2::setEnabled(family.avx2);
        for (unsigned threads : { 1u, 2u }) {
            const QByteArray run = QStringLiteral("avx512 %1, avx2 %2, %3 threads")
                                       .arg(family.avx512)
                                       .arg(family.avx2)
                                       .arg(threads)
                                       .toUtf8();
            const auto with = analyze(dtype, bytes, elements, 10, threads);
            const auto without = analyze(dtype, bytes, elements, 0, threads);
            QVERIFY2(with && without, run.constData());
            compareCountsAndExtremes(without->stats, with->stats);
            if (QTest::currentTestFailed())
                return;
            const TensorStats &a = without->stats, &b = with->stats;
            const double scale = std::max(std::fabs(b.mean), b.std);
            const double ulp = std::nextafter(scale, kInf) - scale;
            QVERIFY2(std::fabs(a.mean - b.mean) <= 4 * ulp, describe("mean", a.mean, b.mean));
            QVERIFY2(std::fabs(a.std - b.std) <= 4 * ulp, describe("std", a.std, b.std));
            QVERIFY2(without->histogram.counts.empty(), run.constData());
            QCOMPARE(without->outliers, with->outliers);
            QCOMPARE(with->outliers > 0, outliers);
        }
    }
}

// 10^8 F32 values of 1e6 plus noise in steps of 1/16: every value is k/16 for an integer k, so
// the exact mean and variance come from integer sums.
void tst_TensorStats::accuracyLargeMean()
{
    const std::uint64_t n = 100'000'000;
    QByteArray bytes(static_cast<qsizetype>(n * 4), Qt::Uninitialized);
    std::int64_t sumK = 0;
    Uint128 sumK2 = 0;
    std::uint64_t state = 88172645463325252ull;
    auto *out = reinterpret_cast<float *>(bytes.data());
    for (std::uint64_t i = 0; i < n; ++i) {
        state ^= state << 13, state ^= state >> 7, state ^= state << 17;
        const std::int64_t k = 16'000'000 + static_cast<std::int64_t>((state >> 40) % 33) - 16;
        out[i] = static_cast<float>(k) / 16.0f; // exact: k < 2^24
        sumK += k;
        sumK2 += static_cast<Uint128>(k * k);
    }
    const auto N = static_cast<Uint128>(n);
    const long double mean = static_cast<long double>(sumK) / (16.0L * n);
    const Uint128 numerator = N * sumK2 - static_cast<Uint128>(sumK) * static_cast<Uint128>(sumK);
    const long double stdDev
        = std::sqrt(static_cast<long double>(numerator) / (static_cast<long double>(n) * n * 256.0L));

    const auto analysis = analyze(DType::F32, bytes, n, 10, 0);
    QVERIFY(analysis);
    const TensorStats &s = analysis->stats;
    QCOMPARE(s.finite, n);
    const double meanError = static_cast<double>(std::fabs((s.mean - mean) / mean));
    const double stdError = static_cast<double>(std::fabs((s.std - stdDev) / stdDev));
    qInfo("mean %.17g (exact %.20Lg, relative error %.3g), std %.17g (exact %.20Lg, relative error %.3g)",
        s.mean, mean, meanError, s.std, stdDev, stdError);
    QVERIFY2(meanError <= 1e-12, describe("mean", s.mean, static_cast<double>(mean)));
    QVERIFY2(stdError <= 1e-9, describe("std", s.std, static_cast<double>(stdDev)));
    QCOMPARE(s.min, 1e6 - 1);
    QCOMPARE(s.max, 1e6 + 1);
}

// Values exactly on edges go up a bin; the maximum stays in the last (closed) bin.
void tst_TensorStats::histogramEdges_data()
{
    QTest::addColumn<QList<double>>("values");
    QTest::addColumn<unsigned>("bins");
    QTest::addColumn<QList<quint64>>("counts");
    QTest::newRow("integers on edges") << QList<double> { 0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10 } << 10u
                                       << QList<quint64> { 1, 1, 1, 1, 1, 1, 1, 1, 1, 2 };
    QTest::newRow("two values") << QList<double> { -1, 1, 1, -1, 1 } << 4u << QList<quint64> { 2, 0, 0, 3 };
    QTest::newRow("one bin") << QList<double> { -3, 0.5, 2, 7 } << 1u << QList<quint64> { 4 };
    QTest::newRow("middle edge") << QList<double> { -2, -0.0, 0, 2 } << 2u << QList<quint64> { 1, 3 };
    QTest::newRow("subnormal range") << QList<double> { 0, 4.9406564584124654e-324, 9.8813129168249309e-324 }
                                     << 2u << QList<quint64> { 1, 2 };
    QTest::newRow("whole double range") << QList<double> { -1.7976931348623157e308, 0, 1,
        1.7976931348623157e308 } << 4u << QList<quint64> { 1, 0, 2, 1 };
}

void tst_TensorStats::histogramEdges()
{
    QFETCH(QList<double>, values);
    QFETCH(unsigned, bins);
    QFETCH(QList<quint64>, counts);
    QByteArray bytes(static_cast<qsizetype>(values.size() * 8), '\0');
    std::memcpy(bytes.data(), values.constData(), static_cast<std::size_t>(bytes.size()));
    const auto analysis = analyze(DType::F64, bytes, static_cast<quint64>(values.size()), bins);
    QVERIFY(analysis);
    QCOMPARE(QList<quint64>(analysis->histogram.counts.begin(), analysis->histogram.counts.end()), counts);
}

void tst_TensorStats::cancel_data()
{
    QTest::addColumn<DType>("dtype");
    QTest::addColumn<quint64>("elements");
    QTest::newRow("F32 several chunks") << DType::F32 << quint64(3 * kChunk);
    QTest::newRow("BF16 one chunk") << DType::BF16 << quint64(100);
    QTest::newRow("F4") << DType::F4 << quint64(kChunk + 2);
    QTest::newRow("empty") << DType::F32 << quint64(0);
}

// A cancel flag set before the scan leaves no result, whatever the dtype and thread count; one
// set from the progress callback midway does too.
void tst_TensorStats::cancel()
{
    QFETCH(DType, dtype);
    QFETCH(quint64, elements);
    const QByteArray bytes(static_cast<qsizetype>((elements * widthOf(dtype) + 7) / 8), '\x01');
    std::stop_source cancelled;
    cancelled.request_stop();
    for (unsigned threads : { 1u, 2u })
        QVERIFY(!analyze(dtype, bytes, elements, 10, threads, cancelled.get_token()));
    std::stop_source running;
    QVERIFY(analyze(dtype, bytes, elements, 10, 1, running.get_token()));
    if (elements > kChunk) {
        AnalysisOptions options;
        options.threads = 1;
        const auto result = analyzeTensor(dtype, asBytes(bytes), elements, options, running.get_token(),
            [&](std::uint64_t, std::uint64_t) { running.request_stop(); });
        QVERIFY(!result);
    }
}

// Progress only grows and ends at the total the scan announced.
void tst_TensorStats::progress()
{
    for (DType dtype : { DType::F32, DType::BF16 }) {
        const std::uint64_t n = 4 * kChunk + 17;
        const QByteArray bytes = pack(dtype, randomCodes(dtype, n, 5));
        std::uint64_t last = 0, total = 0, calls = 0;
        bool monotonic = true;
        AnalysisOptions options;
        options.threads = 2;
        const auto result = analyzeTensor(
            dtype, asBytes(bytes), n, options, {}, [&](std::uint64_t done, std::uint64_t all) {
                monotonic = monotonic && done >= last && done <= all;
                last = done;
                total = all;
                ++calls;
            });
        QVERIFY(result);
        QVERIFY(monotonic);
        QVERIFY(calls >= 5);
        QCOMPARE(last, total);
        QVERIFY(total >= static_cast<std::uint64_t>(bytes.size()));
    }
}

// Equal bytes, equal digests (whatever the threads); one changed byte anywhere changes it.
void tst_TensorStats::contentDigest()
{
    const std::uint64_t n = 2 * kChunk + 5;
    const QByteArray original = pack(DType::F32, randomCodes(DType::F32, n, 11));
    QByteArray copy(original.constData(), original.size()); // separate storage
    const auto a = analyze(DType::F32, original, n, 10, 1);
    const auto b = analyze(DType::F32, copy, n, 10, 2);
    QVERIFY(a && b);
    QVERIFY(a->digest);
    QCOMPARE(a->digest, b->digest);
    QCOMPARE(a->digest->hex().size(), std::size_t(32));
    // The digest alone is the same one, and statistics without it have none.
    QCOMPARE(tensorDigest(DType::F32, std::as_bytes(std::span(original.constData(), original.size())), n), a->digest);
    AnalysisOptions noDigest;
    noDigest.digest = false;
    const auto d = analyzeTensor(DType::F32, std::as_bytes(std::span(original.constData(), original.size())), n, noDigest);
    QVERIFY(d && !d->digest);
    for (qsizetype at : { qsizetype(0), qsizetype(kChunk * 4 + 3), original.size() - 1 }) {
        QByteArray changed = original;
        changed[at] = static_cast<char>(changed[at] ^ 0x40);
        const auto c = analyze(DType::F32, changed, n);
        QVERIFY(c);
        QVERIFY2(!(c->digest == a->digest), qPrintable(u"byte %1"_s.arg(at)));
    }
    // Counted dtypes digest their bytes too.
    const QByteArray bf16 = pack(DType::BF16, randomCodes(DType::BF16, 1000, 3));
    QByteArray bf16Changed = bf16;
    bf16Changed[500] = static_cast<char>(bf16Changed[500] ^ 1);
    QCOMPARE(analyze(DType::BF16, bf16, 1000)->digest,
        analyze(DType::BF16, QByteArray(bf16.constData(), bf16.size()), 1000)->digest);
    QVERIFY(!(analyze(DType::BF16, bf16, 1000)->digest == analyze(DType::BF16, bf16Changed, 1000)->digest));
}

void tst_TensorStats::sha256_data()
{
    QTest::addColumn<QByteArray>("content");
    QTest::addColumn<QString>("expected"); // empty: ask sha256sum
    QTest::newRow("abc") << QByteArray("abc")
                         << u"ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad"_s;
    QTest::newRow("empty") << QByteArray()
                           << u"e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855"_s;
    QTest::newRow("two million a") << QByteArray(2'000'000, 'a') << QString();
    QByteArray big(20 << 20, '\0'); // several of the reader's 8 MiB pieces, and a ragged end
    std::mt19937 rng(1);
    for (auto &c : big)
        c = static_cast<char>(rng());
    big.append("tail");
    QTest::newRow("20 MiB and 4 bytes") << big << QString();
    QTest::newRow("sample checkpoint") << QByteArray() << u"SAMPLE"_s;
}

void tst_TensorStats::sha256()
{
    QFETCH(QByteArray, content);
    QFETCH(QString, expected);
    QVERIFY(m_dir.isValid());
    QString path = m_dir.filePath(u"digest.bin"_s);
    if (expected == u"SAMPLE"_s) {
        path = QString::fromUtf8(STB_SOURCE_DIR "/resources/sample/sample.safetensors");
        QVERIFY(QFile::exists(path));
        expected.clear();
    } else {
        QFile file(path);
        QVERIFY(file.open(QIODevice::WriteOnly | QIODevice::Truncate));
        QCOMPARE(file.write(content), content.size());
    }
    if (expected.isEmpty())
        expected = QString::fromStdString(sha256sum(path));
    QCOMPARE(expected.size(), 64);
    std::string error;
    const auto mapped = MappedFile::open(path.toStdString(), error);
    QVERIFY2(mapped, error.c_str());
    const auto digest = sha256Hex(*mapped);
    QVERIFY(digest);
    QCOMPARE(QString::fromStdString(*digest), expected);
    std::stop_source cancelled;
    cancelled.request_stop();
    if (mapped->size() > 0)
        QVERIFY(!sha256Hex(*mapped, cancelled.get_token()));
}

void tst_TensorStats::truncatedDuringScan_data()
{
    QTest::addColumn<DType>("dtype");
    QTest::addColumn<unsigned>("threads");
    QTest::newRow("F32 one thread") << DType::F32 << 1u;
    QTest::newRow("F32 two threads") << DType::F32 << 2u;
    QTest::newRow("BF16 counted") << DType::BF16 << 2u;
    QTest::newRow("I8 counted") << DType::I8 << 1u;
}

// Map a file, cut it short underneath the mapping, analyse: no crash, no result; then the same
// process still analyses healthy bytes.
void tst_TensorStats::truncatedDuringScan()
{
    QFETCH(DType, dtype);
    QFETCH(unsigned, threads);
    QVERIFY(m_dir.isValid());
    const std::string path = m_dir.filePath(u"truncated.safetensors"_s).toStdString();
    const std::uint64_t n = 8 * kChunk;
    const std::vector<TensorSpec> specs = { { "weight", dtype, { n } } };
    std::string error;
    QVERIFY2(writeFile(
                 path, specs, Metadata {},
                 [&](std::size_t, std::span<std::byte> out) {
                     for (std::size_t i = 0; i < out.size(); ++i)
                         out[i] = static_cast<std::byte>(i * 7 + 1);
                 },
                 error),
        error.c_str());
    const auto file = SafetensorsFile::open(path, error);
    QVERIFY2(file && file->header().valid(), error.c_str());
    const TensorInfo &info = file->header().tensors.front();
    const auto bytes = file->tensorBytes(info);
    QCOMPARE(bytes.size(), static_cast<std::size_t>(n * widthOf(dtype) / 8));

    QVERIFY(::truncate(path.c_str(), 4096) == 0);
    AnalysisOptions options;
    options.threads = threads;
    QVERIFY(!analyzeTensor(dtype, bytes, n, options));
    QVERIFY(!sha256Hex(file->mapping()));

    const QByteArray healthy = pack(DType::F32, { 0x3F800000, 0x40000000 });
    const auto after = analyze(DType::F32, healthy, 2);
    QVERIFY(after);
    QCOMPARE(after->stats.mean, 1.5);
}

QTEST_GUILESS_MAIN(tst_TensorStats)
#include "tst_tensorstats.moc"
