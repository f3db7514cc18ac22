// Comparing checkpoints: every status, every metric against values computed here, NaN and Inf
// on either side, empty and scalar tensors, tolerances, metadata, and a sharded model against
// its single-file twin.
#include "core/compare/comparereport.h"
#include "core/compare/compareresult.h"
#include "core/compare/comparison.h"
#include "core/compare/diffavx2.h"
#include "core/compare/diffhistogram.h"
#include "core/compare/diffsums.h"
#include "core/format/writer.h"
#include "core/layers/layerdiff.h"
#include "core/stats/kernels/valuescan.h"
#include "tests/support/testfiles.h"

#include <QFileInfo>
#include <QScopeGuard>
#include <QTemporaryDir>
#include <QTest>

#include <bit>
#include <cmath>
#include <cstring>
#include <fstream>
#include <stdexcept>
#include <type_traits>
#include <unistd.h>

using namespace stb;
using namespace Qt::StringLiterals;

namespace {

struct Model {
    std::vector<TensorSpec> specs;
    std::vector<std::vector<std::byte>> data;
    Metadata metadata;

    void addF32(std::string name, std::vector<std::uint64_t> shape, const std::vector<float> &values)
    {
        std::vector<std::byte> bytes(values.size() * 4);
        if (!values.empty())
            std::memcpy(bytes.data(), values.data(), bytes.size());
        specs.push_back({std::move(name), DType::F32, std::move(shape)});
        data.push_back(std::move(bytes));
    }
    void addBF16(std::string name, std::vector<std::uint64_t> shape, const std::vector<std::uint16_t> &codes)
    {
        addHalf(std::move(name), DType::BF16, std::move(shape), codes);
    }
    void addHalf(std::string name, DType dtype, std::vector<std::uint64_t> shape,
        const std::vector<std::uint16_t> &codes)
    {
        std::vector<std::byte> bytes(codes.size() * 2);
        if (!codes.empty())
            std::memcpy(bytes.data(), codes.data(), bytes.size());
        specs.push_back({ std::move(name), dtype, std::move(shape) });
        data.push_back(std::move(bytes));
    }
    void addF64(std::string name, std::vector<std::uint64_t> shape, const std::vector<double> &values)
    {
        std::vector<std::byte> bytes(values.size() * 8);
        if (!values.empty())
            std::memcpy(bytes.data(), values.data(), bytes.size());
        specs.push_back({std::move(name), DType::F64, std::move(shape)});
        data.push_back(std::move(bytes));
    }
};

// F16 by the compiler's own conversions (round to nearest; exact back), independent of the code
// under test.
std::uint16_t halfCode(float v)
{
    return std::bit_cast<std::uint16_t>(static_cast<_Float16>(v));
}
float halfValue(std::uint16_t code)
{
    return static_cast<float>(std::bit_cast<_Float16>(code));
}

// The 16-bit code of a float as `dtype` (BF16: its upper half; F16: the nearest), and back.
std::uint16_t codeAs(DType dtype, std::uint32_t bits)
{
    return dtype == DType::BF16 ? static_cast<std::uint16_t>(bits >> 16)
                                : halfCode(std::bit_cast<float>(bits));
}
std::uint32_t bitsOf(DType dtype, std::uint16_t code)
{
    return dtype == DType::BF16 ? std::uint32_t(code) << 16 : std::bit_cast<std::uint32_t>(halfValue(code));
}

// The pair of that name. A missing name fails the run (QtTest reports the exception as a failure,
// then stops) instead of handing back a default pair whose status could match by accident.
const TensorPair &pairNamed(const Comparison &c, const std::string &name)
{
    for (const auto &p : c.pairs) {
        if (p.name == name)
            return p;
    }
    throw std::runtime_error("no pair named \"" + name + '"');
}

// Options on 2 threads, with absolute and relative tolerances of 1e-3 and 1e-2 when asked.
CompareOptions twoThreads(bool tolerances)
{
    CompareOptions options;
    options.threads = 2;
    if (tolerances) {
        options.tolerances = true;
        options.atol = 1e-3;
        options.rtol = 1e-2;
    }
    return options;
}

// Two measurements of one pair that must agree on every count and on where the largest
// difference is (the caller checks QTest::currentTestFailed() after).
void compareCounts(const DiffMetrics &m, const DiffMetrics &r)
{
    QCOMPARE(m.compared, r.compared);
    QCOMPARE(m.different, r.different);
    QCOMPARE(m.nanA, r.nanA);
    QCOMPARE(m.nanB, r.nanB);
    QCOMPARE(m.infA, r.infA);
    QCOMPARE(m.infB, r.infB);
    QCOMPARE(m.outOfTolerance, r.outOfTolerance);
    QCOMPARE(m.argmax, r.argmax);
}

} // namespace

class tst_Comparison : public QObject {
    Q_OBJECT

private slots:
    void init() { m_dir = std::make_unique<QTemporaryDir>(); }

    void statuses()
    {
        Model a, b;
        a.addF32("same", {3}, {1, 2, 3});
        b.addF32("same", {3}, {1, 2, 3});
        a.addF32("changed", {2, 2}, {1, 2, 3, 4});
        b.addF32("changed", {2, 2}, {1, 2, 3, 5});
        a.addF32("dtype", {2}, {1, 2});
        b.addF64("dtype", {2}, {1, 2.5});
        a.addF32("shape", {2, 3}, {0, 0, 0, 0, 0, 0});
        b.addF32("shape", {3, 2}, {0, 0, 0, 0, 0, 0});
        a.addF32("only.a", {1}, {1});
        b.addF32("only.b", {1}, {1});
        const auto c = compare(a, b);
        QCOMPARE(c.pairs.size(), std::size_t(6));
        QCOMPARE(pairNamed(c, "same").status, PairStatus::Identical);
        QCOMPARE(pairNamed(c, "changed").status, PairStatus::Changed);
        QCOMPARE(pairNamed(c, "dtype").status, PairStatus::DTypeChanged);
        QCOMPARE(pairNamed(c, "shape").status, PairStatus::ShapeChanged);
        QCOMPARE(pairNamed(c, "only.a").status, PairStatus::OnlyInA);
        QCOMPARE(pairNamed(c, "only.b").status, PairStatus::OnlyInB);
        QVERIFY(!pairNamed(c, "same").metrics);
        QVERIFY(pairNamed(c, "dtype").metrics);       // equal shapes: values compared after decoding
        QVERIFY(!pairNamed(c, "shape").metrics);
        QCOMPARE(pairNamed(c, "dtype").metrics->maxAbsDiff, 0.5);
        QCOMPARE(pairNamed(c, "dtype").metrics->argmax, std::uint64_t(1));
        QVERIFY(!c.equivalent);
        for (std::size_t s = 0; s < kPairStatusCount; ++s)
            QCOMPARE(c.counts[s], std::size_t(s == std::size_t(PairStatus::Unreadable) ? 0 : 1));
        QVERIFY(std::is_sorted(c.pairs.begin(), c.pairs.end(), [](auto &x, auto &y) { return x.name < y.name; }));
    }

    void metrics_data()
    {
        QTest::addColumn<QList<double>>("a");
        QTest::addColumn<QList<double>>("b");
        QTest::newRow("one element off") << QList<double>{1, 2, 3, 4} << QList<double>{1, 2, 3, 6};
        QTest::newRow("all off") << QList<double>{1, -2, 3, -4} << QList<double>{-1, 2, -3, 4};
        QTest::newRow("first largest wins ties") << QList<double>{0, 0, 0} << QList<double>{1, -1, 1};
        QTest::newRow("NaN in a") << QList<double>{NAN, 1, 2} << QList<double>{5, 1, 3};
        QTest::newRow("NaN in b") << QList<double>{1, 1, 2} << QList<double>{NAN, 1, 3};
        QTest::newRow("NaN both") << QList<double>{NAN, 1, 2} << QList<double>{NAN, 1, 4};
        QTest::newRow("Inf in a") << QList<double>{INFINITY, 1, 2} << QList<double>{1, 1, 3};
        QTest::newRow("-Inf in b") << QList<double>{1, 1, 2} << QList<double>{-INFINITY, 2, 2};
        QTest::newRow("zero vector a") << QList<double>{0, 0} << QList<double>{1, 0};
        QTest::newRow("negative zero") << QList<double>{-0.0, 1} << QList<double>{0.0, 2};
        QTest::newRow("large values") << QList<double>{1e30, 2e30} << QList<double>{1e30, 3e30};
    }
    void metrics()
    {
        QFETCH(QList<double>, a);
        QFETCH(QList<double>, b);
        Model ma, mb;
        ma.addF64("t", {static_cast<std::uint64_t>(a.size())}, std::vector<double>(a.begin(), a.end()));
        mb.addF64("t", {static_cast<std::uint64_t>(b.size())}, std::vector<double>(b.begin(), b.end()));
        const auto c = compare(ma, mb);
        const auto &pair = pairNamed(c, "t");
        QCOMPARE(pair.status, PairStatus::Changed);
        QVERIFY(pair.metrics);
        const DiffMetrics &m = *pair.metrics;

        // Independent computation: finite on both sides only.
        std::uint64_t compared = 0, different = 0, nanA = 0, nanB = 0, argmax = 0;
        long double maxDiff = -1, sumAbs = 0, sq = 0, sqA = 0, sqB = 0, dot = 0;
        for (qsizetype i = 0; i < a.size(); ++i) {
            nanA += std::isnan(a[i]);
            nanB += std::isnan(b[i]);
            const bool same = (std::isnan(a[i]) && std::isnan(b[i])) || a[i] == b[i];
            different += !same;
            if (!std::isfinite(a[i]) || !std::isfinite(b[i]))
                continue;
            ++compared;
            const long double d = std::fabs(static_cast<long double>(a[i]) - b[i]);
            if (d > maxDiff) {
                maxDiff = d;
                argmax = static_cast<std::uint64_t>(i);
            }
            sumAbs += d;
            sq += d * d;
            sqA += static_cast<long double>(a[i]) * a[i];
            sqB += static_cast<long double>(b[i]) * b[i];
            dot += static_cast<long double>(a[i]) * b[i];
        }
        QCOMPARE(m.compared, compared);
        QCOMPARE(m.different, different);
        QCOMPARE(m.nanA, nanA);
        QCOMPARE(m.nanB, nanB);
        QCOMPARE(m.maxAbsDiff, static_cast<double>(maxDiff));
        QCOMPARE(m.argmax, argmax);
        QVERIFY(std::fabs(m.meanAbsDiff - static_cast<double>(sumAbs / compared)) <= 1e-12 * std::fabs(static_cast<double>(sumAbs / compared)) + 1e-300);
        if (sqA > 0)
            QVERIFY(std::fabs(m.relL2 - static_cast<double>(std::sqrt(sq) / std::sqrt(sqA))) < 1e-12);
        else
            QVERIFY(std::isnan(m.relL2));
        if (sqA > 0 && sqB > 0)
            QVERIFY(std::fabs(m.cosine - static_cast<double>(dot / std::sqrt(sqA * sqB))) < 1e-12);
        else
            QVERIFY(std::isnan(m.cosine));
        QVERIFY(std::isfinite(m.maxAbsDiff)); // NaN and Inf never leak into the metrics
    }

    // Changed F32, BF16 and F16 pairs are measured straight from their bytes; every other dtype
    // through decoded batches. The same values as F64 take the latter: every metric bit for bit the
    // same, with NaN, both infinities, both zeros and subnormals on either side, over several
    // chunks and a ragged end.
    void realDtypesMatchDecodedValues_data()
    {
        QTest::addColumn<DType>("dtype");
        QTest::addColumn<bool>("tolerances");
        QTest::addColumn<bool>("avx2"); // the AVX2 loop (diffavx2.cpp), else the scalar one
        QTest::addColumn<int>("tail"); // elements after the last whole chunk
        for (const bool avx2 : { false, true }) {
            const char *loop = avx2 ? ", AVX2" : ", scalar";
            QTest::addRow("F32%s", loop) << DType::F32 << false << avx2 << 1001;
            QTest::addRow("F32, tolerances%s", loop) << DType::F32 << true << avx2 << 1003;
            QTest::addRow("BF16%s", loop) << DType::BF16 << false << avx2 << 1002;
            QTest::addRow("BF16, tolerances%s", loop) << DType::BF16 << true << avx2 << 1001;
            QTest::addRow("F16%s", loop) << DType::F16 << false << avx2 << 1003;
            QTest::addRow("F16, tolerances%s", loop) << DType::F16 << true << avx2 << 1002;
        }
    }
    void realDtypesMatchDecodedValues()
    {
        QFETCH(DType, dtype);
        QFETCH(bool, tolerances);
        QFETCH(bool, avx2);
        QFETCH(int, tail);
        if (avx2 && !kernels::avx2::supported())
            QSKIP("no AVX2 on this CPU");
        kernels::avx2::setEnabled(avx2);
        const auto restore = qScopeGuard([] { kernels::avx2::setEnabled(true); });
        const std::size_t n = (1u << 18) * 2 + static_cast<std::size_t>(tail);
        std::vector<std::uint32_t> bitsA(n), bitsB(n);
        std::uint64_t state = 0x9E3779B97F4A7C15ull;
        auto next = [&] {
            state ^= state << 13, state ^= state >> 7, state ^= state << 17;
            return state;
        };
        for (std::size_t i = 0; i < n; ++i) {
            const float a = static_cast<float>(static_cast<std::int64_t>(next() % 2001) - 1000) / 300.0f;
            bitsA[i] = std::bit_cast<std::uint32_t>(a);
            bitsB[i] = next() % 4 ? bitsA[i] : std::bit_cast<std::uint32_t>(a * 1.01f + 0.001f);
        }
        // NaN, both infinities, both zeros, subnormals of either sign, the largest BF16: on one
        // side at a time and on both at once.
        const std::uint32_t specials[] = { 0x7FC00000, 0x7F800000, 0xFF800000, 0x00000000, 0x80000000, 0x00010000,
            0x80010000, 0x7F7F0000 };
        std::size_t at = 3;
        for (std::uint32_t special : specials) {
            bitsA[at] = special;
            bitsB[at + 5000] = special;
            bitsA[n - at] = bitsB[n - at] = special;
            at += 40009;
        }
        bitsB[100] = bitsA[100] ^ 0x80000000; // a zero or a value against its negation
        const bool half = dtype != DType::F32;
        if (half) {
            for (auto *bits : { &bitsA, &bitsB }) {
                for (auto &b : *bits)
                    b = bitsOf(dtype, codeAs(dtype, b)); // 16-bit codes as the F32 values they decode to
            }
            if (dtype == DType::F16) { // its own subnormals and largest value (the above are BF16's)
                bitsA[11] = bitsOf(dtype, 0x0001), bitsB[12] = bitsOf(dtype, 0x8001);
                bitsA[13] = bitsB[13] = bitsOf(dtype, 0x7BFF);
            }
        }
        Model a, b, a64, b64;
        const std::vector<std::uint64_t> shape { n };
        auto add = [&](Model &m, Model &m64, const std::vector<std::uint32_t> &bits) {
            std::vector<double> values(n);
            for (std::size_t i = 0; i < n; ++i)
                values[i] = std::bit_cast<float>(bits[i]);
            m64.addF64("t", shape, values);
            if (half) {
                std::vector<std::uint16_t> codes(n);
                for (std::size_t i = 0; i < n; ++i)
                    codes[i] = codeAs(dtype, bits[i]);
                m.addHalf("t", dtype, shape, codes);
            } else {
                std::vector<float> floats(n);
                for (std::size_t i = 0; i < n; ++i)
                    floats[i] = std::bit_cast<float>(bits[i]);
                m.addF32("t", shape, floats);
            }
        };
        add(a, a64, bitsA);
        add(b, b64, bitsB);
        const CompareOptions options = twoThreads(tolerances);
        const auto direct = compare(a, b, options);
        const auto decoded = compare(a64, b64, options);
        const auto &m = pairNamed(direct, "t").metrics, &r = pairNamed(decoded, "t").metrics;
        QVERIFY(m && r);
        compareCounts(*m, *r);
        if (QTest::currentTestFailed())
            return;
        auto same = [](double x, double y) { return std::bit_cast<std::uint64_t>(x) == std::bit_cast<std::uint64_t>(y); };
        QVERIFY(same(m->maxAbsDiff, r->maxAbsDiff));
        QVERIFY(same(m->meanAbsDiff, r->meanAbsDiff));
        QVERIFY(same(m->relL2, r->relL2));
        QVERIFY(same(m->cosine, r->cosine));
        QVERIFY(m->nanA && m->nanB && m->infA && m->infB && m->different < m->compared);
    }

    // The AVX2 loop's running sums against addPair one element at a time in the lanes' order,
    // field for field and bit for bit, on data where the order of additions shows: full mantissas over 40
    // binades, NaN, ±Inf, ±0 and subnormals scattered (some in one group of four with finite values), starts
    // and lengths that are not multiples of four. (The metrics above go through sqrt and divisions, which
    // can hide a last bit of a sum.)
    void avx2SumsMatchScalar_data()
    {
        QTest::addColumn<DType>("dtype");
        QTest::addColumn<bool>("tolerances");
        QTest::addColumn<int>("first");
        QTest::addColumn<int>("count");
        QTest::newRow("F32") << DType::F32 << false << 0 << 100003;
        QTest::newRow("F32, tolerances, odd start") << DType::F32 << true << 3 << 99998;
        QTest::newRow("BF16") << DType::BF16 << false << 1 << 100001;
        QTest::newRow("BF16, tolerances") << DType::BF16 << true << 0 << 100000;
        QTest::newRow("F16") << DType::F16 << false << 2 << 100002;
        QTest::newRow("F16, tolerances") << DType::F16 << true << 1 << 99999;
        QTest::newRow("F32, fewer than four") << DType::F32 << true << 5 << 3;
        QTest::newRow("BF16, two steps and a tail of three") << DType::BF16 << false << 2 << 11;
        QTest::newRow("F16, two steps and a tail of two") << DType::F16 << true << 3 << 10;
        QTest::newRow("F32, two steps, one more and a tail of one") << DType::F32 << false << 1 << 13;
        QTest::newRow("BF16, one step only") << DType::BF16 << true << 0 << 4;
    }
    void avx2SumsMatchScalar()
    {
        QFETCH(DType, dtype);
        QFETCH(bool, tolerances);
        QFETCH(int, first);
        QFETCH(int, count);
        if (!kernels::avx2::supported())
            QSKIP("no AVX2 on this CPU");
        const std::size_t n = static_cast<std::size_t>(first + count);
        std::uint64_t state = 0x2545F4914F6CDD1Dull;
        auto next = [&] {
            state ^= state << 13, state ^= state >> 7, state ^= state << 17;
            return state;
        };
        std::vector<float> a(n), b(n);
        for (std::size_t i = 0; i < n; ++i) {
            const float mantissa = static_cast<float>(next() % (1u << 24)) / float(1u << 23) - 1.0f;
            // F16: its own range of binades (2^-14 to 2^15), else mostly infinities and zeros.
            a[i] = dtype == DType::F16 ? std::ldexp(mantissa, static_cast<int>(next() % 30) - 14)
                                       : std::ldexp(mantissa, static_cast<int>(next() % 41) - 20);
            const unsigned kind = next() % 8;
            b[i] = kind < 3 ? a[i] : kind < 6 ? a[i] * (1.0f + static_cast<float>(next() % 1000) * 1e-5f) : -a[i] / 3;
        }
        // (Not the largest finite values: their squares would swamp every other term.)
        const std::uint32_t specials[] = { 0x7FC00000, 0x7F800000, 0xFF800000, 0x00000000, 0x80000000, 0x00010000,
            0x80010000, 0x00000001 };
        for (std::size_t k = 0; k < std::size(specials) && n > 20; ++k) {
            const float special = std::bit_cast<float>(specials[k]);
            a[7 + 997 * k % (n - 20)] = special;
            b[11 + 1499 * k % (n - 20)] = special;
            a[13 + 2003 * k % (n - 20)] = b[13 + 2003 * k % (n - 20)] = special;
        }
        std::vector<std::byte> bytesA, bytesB;
        for (auto [values, bytes] : { std::pair { &a, &bytesA }, std::pair { &b, &bytesB } }) {
            for (const float v : *values) {
                const auto bits = std::bit_cast<std::uint32_t>(v);
                if (dtype != DType::F32) {
                    const std::uint16_t code = codeAs(dtype, bits);
                    bytes->insert(bytes->end(), reinterpret_cast<const std::byte *>(&code),
                        reinterpret_cast<const std::byte *>(&code) + 2);
                } else {
                    bytes->insert(bytes->end(), reinterpret_cast<const std::byte *>(&bits),
                        reinterpret_cast<const std::byte *>(&bits) + 4);
                }
            }
        }
        const double atol = tolerances ? 1e-4 : 0, rtol = tolerances ? 1e-3 : 0;
        // The scalar order: element first + k into lane k % 4, each lane in element order, the
        // lanes folded pairwise.
        diff::DiffSums scalar, vector, lanes[diff::kSumLanes];
        for (std::uint64_t i = static_cast<std::uint64_t>(first); i < n; ++i) {
            const auto at = [&](const std::vector<std::byte> &bytes) {
                return dtype == DType::BF16 ? diff::BF16Values::at(bytes.data(), i)
                    : dtype == DType::F16   ? diff::F16Values::at(bytes.data(), i)
                                            : diff::F32Values::at(bytes.data(), i);
            };
            diff::addPair(at(bytesA), 0.0, at(bytesB), 0.0, i, atol, rtol,
                lanes[(i - static_cast<std::uint64_t>(first)) % 4]);
        }
        diff::foldLanes(lanes, scalar);
        const auto measure = dtype == DType::BF16 ? diff::avx2::measureBF16
            : dtype == DType::F16                 ? diff::avx2::measureF16
                                                  : diff::avx2::measureF32;
        measure(bytesA.data(), bytesB.data(), static_cast<std::uint64_t>(first),
            static_cast<std::uint64_t>(count), atol, rtol, vector);
        auto bits = [](double x) { return std::bit_cast<std::uint64_t>(x); };
        QCOMPARE(vector.compared, scalar.compared);
        QCOMPARE(vector.different, scalar.different);
        QCOMPARE(vector.nanA, scalar.nanA);
        QCOMPARE(vector.nanB, scalar.nanB);
        QCOMPARE(vector.infA, scalar.infA);
        QCOMPARE(vector.infB, scalar.infB);
        QCOMPARE(vector.outOfTolerance, scalar.outOfTolerance);
        QCOMPARE(vector.argmax, scalar.argmax);
        QCOMPARE(bits(vector.maxAbs), bits(scalar.maxAbs));
        QCOMPARE(bits(vector.sumAbs), bits(scalar.sumAbs));
        QCOMPARE(bits(vector.sumSqDiff), bits(scalar.sumSqDiff));
        QCOMPARE(bits(vector.sumSqA), bits(scalar.sumSqA));
        QCOMPARE(bits(vector.sumSqB), bits(scalar.sumSqB));
        QCOMPARE(bits(vector.dot), bits(scalar.dot));
        if (count > 1000)
            QVERIFY(scalar.nanA && scalar.infB && scalar.outOfTolerance < scalar.compared);
    }

    // Pairs of two float dtypes (and quantized weights, decoded to floats) go through the AVX2 loop
    // a batch at a time: against the loop of one pair at a time on doubles (AVX2 off), the same
    // counts, maximum and its place, and sums within rounding, with NaN, infinities, zeros and
    // subnormals on either side.
    void mixedFloatDtypes_data()
    {
        QTest::addColumn<DType>("dtypeA");
        QTest::addColumn<DType>("dtypeB");
        QTest::addColumn<bool>("tolerances");
        QTest::newRow("BF16 against F32") << DType::BF16 << DType::F32 << false;
        QTest::newRow("F32 against F16, tolerances") << DType::F32 << DType::F16 << true;
        QTest::newRow("F16 against BF16") << DType::F16 << DType::BF16 << false;
    }
    void mixedFloatDtypes()
    {
        QFETCH(DType, dtypeA);
        QFETCH(DType, dtypeB);
        QFETCH(bool, tolerances);
        if (!kernels::avx2::supported())
            QSKIP("no AVX2 on this CPU");
        const auto restore = qScopeGuard([] { kernels::avx2::setEnabled(true); });
        const std::size_t n = (1u << 18) + 5003; // a chunk, batches and a ragged end
        std::uint64_t state = 0x853C49E6748FEA9Bull;
        auto next = [&] {
            state ^= state << 13, state ^= state >> 7, state ^= state << 17;
            return state;
        };
        std::vector<std::uint32_t> bits(n);
        for (auto &b : bits)
            b = std::bit_cast<std::uint32_t>(
                static_cast<float>(static_cast<std::int64_t>(next() % 20001) - 10000) / 3000.0f);
        const std::uint32_t specials[]
            = { 0x7FC00000, 0x7F800000, 0xFF800000, 0x00000000, 0x80000000, 0x33800000 };
        for (std::size_t k = 0; k < std::size(specials); ++k)
            bits[17 + 40009 * k] = specials[k];
        Model a, b;
        const std::vector<std::uint64_t> shape { n };
        auto add = [&](Model &m, DType dtype, std::uint64_t salt) {
            std::vector<std::uint32_t> own = bits;
            for (std::size_t i = salt; i < n; i += 7) // a few values differ beyond rounding
                own[i] = std::bit_cast<std::uint32_t>(std::bit_cast<float>(own[i]) * 1.5f);
            if (dtype == DType::F32) {
                std::vector<float> floats(n);
                for (std::size_t i = 0; i < n; ++i)
                    floats[i] = std::bit_cast<float>(own[i]);
                m.addF32("t", shape, floats);
            } else {
                std::vector<std::uint16_t> codes(n);
                for (std::size_t i = 0; i < n; ++i)
                    codes[i] = codeAs(dtype, own[i]);
                m.addHalf("t", dtype, shape, codes);
            }
        };
        add(a, dtypeA, 3);
        add(b, dtypeB, 5);
        const CompareOptions options = twoThreads(tolerances);
        kernels::avx2::setEnabled(true);
        const auto vector = compare(a, b, options);
        kernels::avx2::setEnabled(false);
        const auto scalar = compare(a, b, options);
        const auto &m = pairNamed(vector, "t").metrics, &r = pairNamed(scalar, "t").metrics;
        QVERIFY(m && r);
        compareCounts(*m, *r);
        if (QTest::currentTestFailed())
            return;
        QCOMPARE(m->maxAbsDiff, r->maxAbsDiff);
        const std::pair<double, double> sums[]
            = { { m->meanAbsDiff, r->meanAbsDiff }, { m->relL2, r->relL2 }, { m->cosine, r->cosine } };
        for (const auto &[x, y] : sums)
            QVERIFY2(std::fabs(x - y) <= 1e-12 * std::fabs(y),
                (QByteArray::number(x, 'g', 17) + " against " + QByteArray::number(y, 'g', 17)).constData());
        QVERIFY(m->nanA && m->infA && m->different > 0 && m->different < m->compared);
    }

    void emptyAndScalar()
    {
        Model a, b;
        a.addF32("empty", {0, 4}, {});
        b.addF32("empty", {0, 4}, {});
        a.addF32("scalar", {}, {2});
        b.addF32("scalar", {}, {3});
        const auto c = compare(a, b);
        QCOMPARE(pairNamed(c, "empty").status, PairStatus::Identical);
        QCOMPARE(pairNamed(c, "scalar").status, PairStatus::Changed);
        QCOMPARE(pairNamed(c, "scalar").metrics->maxAbsDiff, 1.0);
        QCOMPARE(pairNamed(c, "scalar").metrics->argmax, std::uint64_t(0));
    }

    void manyChunksOnSeveralThreads()
    {
        // 3 chunks of 2^18 elements: the metrics merge across chunks and threads.
        const std::size_t n = 3 * (1u << 18) + 17;
        std::vector<float> va(n), vb(n);
        for (std::size_t i = 0; i < n; ++i) {
            va[i] = static_cast<float>(std::sin(i * 0.001));
            vb[i] = va[i] + (i % 1000 == 0 ? 0.25f : 0.0f);
        }
        vb[n - 5] = va[n - 5] + 2.0f;
        Model a, b;
        a.addF32("big", {n}, va);
        b.addF32("big", {n}, vb);
        for (unsigned threads : {1u, 2u, 3u}) {
            CompareOptions options;
            options.threads = threads;
            const auto c = compare(a, b, options);
            const auto &m = *pairNamed(c, "big").metrics;
            QCOMPARE(m.argmax, std::uint64_t(n - 5));
            QCOMPARE(m.different, std::uint64_t((n - 1) / 1000 + 1 + 1));
            QCOMPARE(m.compared, std::uint64_t(n));
        }
    }

    void tolerances_data()
    {
        QTest::addColumn<double>("atol");
        QTest::addColumn<double>("rtol");
        QTest::addColumn<bool>("equivalent");
        QTest::newRow("bytes only") << -1.0 << -1.0 << false;
        QTest::newRow("atol too small") << 0.05 << 0.0 << false;
        QTest::newRow("atol enough") << 0.11 << 0.0 << true; // 2.1 - 2.0 is 0.10000000000000009 in doubles
        QTest::newRow("rtol enough") << 0.0 << 0.05 << true; // |a-b| = 0.1 <= 0.05 * |b| (2.1)
        QTest::newRow("rtol too small") << 0.0 << 0.01 << false;
    }
    void tolerances()
    {
        QFETCH(double, atol);
        QFETCH(double, rtol);
        QFETCH(bool, equivalent);
        Model a, b;
        a.addF64("t", {2}, {1.0, 2.0});
        b.addF64("t", {2}, {1.0, 2.1});
        CompareOptions options;
        if (atol >= 0) {
            options.atol = atol;
            options.rtol = rtol;
            options.tolerances = true;
        }
        QCOMPARE(compare(a, b, options).equivalent, equivalent);
    }

    void nanMustMatchUnderTolerance()
    {
        Model a, b;
        a.addF64("t", {2}, {NAN, 1});
        b.addF64("t", {2}, {2, 1});
        CompareOptions options;
        options.atol = 1e9;
        options.tolerances = true;
        QVERIFY(!compare(a, b, options).equivalent);
    }

    void metadataDifference()
    {
        Model a, b;
        a.addF32("t", {1}, {1});
        b.addF32("t", {1}, {1});
        a.metadata = {{"format", "pt"}, {"gone", "1"}, {"changed", "a"}};
        b.metadata = {{"format", "pt"}, {"new", "2"}, {"changed", "b"}};
        const auto c = compare(a, b);
        QCOMPARE(c.metadata.added, (std::map<std::string, std::string>{{"new", "2"}}));
        QCOMPARE(c.metadata.removed, (std::map<std::string, std::string>{{"gone", "1"}}));
        QCOMPARE(c.metadata.changed.at("changed"), std::make_pair(std::string("a"), std::string("b")));
        QVERIFY(c.equivalent); // metadata does not decide equivalence: tensors do
    }

    void shardedAgainstSingleFile()
    {
        const auto model = test::makeSampleModel(2, 16);
        std::string error;
        const std::string single = path("single.safetensors");
        QVERIFY(writeFile(single, model.specs, model.data, model.metadata, error));
        // The same tensors split over two shards, and one changed.
        std::vector<TensorSpec> s1, s2;
        std::vector<std::vector<std::byte>> d1, d2;
        std::string weightMap;
        for (std::size_t i = 0; i < model.specs.size(); ++i) {
            const bool first = i % 2 == 0;
            (first ? s1 : s2).push_back(model.specs[i]);
            auto bytes = model.data[i];
            if (model.specs[i].name == "lm_head.weight")
                bytes[10] = std::byte{0x7f};
            (first ? d1 : d2).push_back(bytes);
            weightMap += (weightMap.empty() ? "" : ",") + std::string("\"") + model.specs[i].name + "\":\""
                + (first ? "a.safetensors" : "b.safetensors") + "\"";
        }
        QVERIFY(writeFile(path("a.safetensors"), s1, d1, model.metadata, error));
        QVERIFY(writeFile(path("b.safetensors"), s2, d2, model.metadata, error));
        std::ofstream(path("model.safetensors.index.json")) << "{\"weight_map\":{" << weightMap << "}}";

        const auto a = Checkpoint::open(single, error);
        const auto b = Checkpoint::open(path("model.safetensors.index.json"), error);
        QVERIFY(a && b);
        const auto c = compareCheckpoints(*a, *b, {});
        QVERIFY(c);
        QCOMPARE(c->counts[static_cast<std::size_t>(PairStatus::Changed)], std::size_t(1));
        QCOMPARE(c->counts[static_cast<std::size_t>(PairStatus::Identical)], model.specs.size() - 1);
        QCOMPARE(pairNamed(*c, "lm_head.weight").status, PairStatus::Changed);
        QCOMPARE(pairNamed(*c, "lm_head.weight").metrics->different, std::uint64_t(1));
        QCOMPARE(pairNamed(*c, "lm_head.weight").metrics->argmax, std::uint64_t(5)); // byte 10 is BF16 element 5
    }

    // A tensor whose values cannot be read on a side (bytes past the end of a truncated file, a
    // shard the index lists missing) is unreadable, never identical, and says which side and why;
    // a status the header alone decides (shape changed) stays.
    void unreadablePairs_data()
    {
        QTest::addColumn<int>("cutA"); // bytes cut off the end of A's file
        QTest::addColumn<int>("cutB");
        QTest::addColumn<QString>("bw"); // B's "w": "F32", "F64" or "F32 [2, 2]"
        QTest::addColumn<QString>("bIndex"); // B as an index over x.safetensors (holding "a"): its weight_map
        QTest::addColumn<QString>("name");
        QTest::addColumn<int>("status");
        QTest::addColumn<QString>("whyA");
        QTest::addColumn<QString>("whyB");
        const int unreadable = int(PairStatus::Unreadable);
        // w lies at file bytes 124–140, after the header and a's 4 bytes.
        const QString past
            = QStringLiteral("bytes 132\u2013140 lie past the end of the file (file is 132 bytes)");
        QTest::newRow("B truncated") << 0 << 8 << u"F32"_s << QString() << u"w"_s << unreadable << QString()
                                     << past;
        QTest::newRow("both truncated")
            << 8 << 8 << u"F32"_s << QString() << u"w"_s << unreadable << past << past;
        QTest::newRow("A truncated, dtype changed")
            << 8 << 0 << u"F64"_s << QString() << u"w"_s << unreadable << past << QString();
        // B's side cannot be read, but the header alone says what changed: no bytes needed.
        QTest::newRow("B truncated, shape changed") << 0 << 8 << u"F32 [2, 2]"_s << QString() << u"w"_s
                                                    << int(PairStatus::ShapeChanged) << QString() << past;
        QTest::newRow("B's shard missing")
            << 0 << 0 << u"F32"_s << uR"("a": "x.safetensors", "w": "gone.safetensors")"_s << u"w"_s
            << unreadable << QString()
            << u"shard \"gone.safetensors\" cannot be read: No such file or directory"_s;
        QTest::newRow("B's index lists a name A lacks, in a missing shard")
            << 0 << 0 << u"F32"_s
            << uR"("a": "x.safetensors", "w": "x.safetensors", "extra": "gone.safetensors")"_s << u"extra"_s
            << unreadable << QString()
            << u"shard \"gone.safetensors\" cannot be read: No such file or directory"_s;
    }
    void unreadablePairs()
    {
        QFETCH(int, cutA);
        QFETCH(int, cutB);
        QFETCH(QString, bw);
        QFETCH(QString, bIndex);
        QFETCH(QString, name);
        QFETCH(int, status);
        QFETCH(QString, whyA);
        QFETCH(QString, whyB);
        Model a, b;
        a.addF32("a", { 1 }, { 5 });
        a.addF32("w", { 4 }, { 1, 2, 3, 4 });
        b.addF32("a", { 1 }, { 5 });
        if (bw == u"F64"_s)
            b.addF64("w", { 4 }, { 1, 2, 3, 4 });
        else
            b.addF32("w",
                bw == u"F32"_s ? std::vector<std::uint64_t> { 4 } : std::vector<std::uint64_t> { 2, 2 },
                { 1, 2, 3, 4 });
        writeModel(a, "ua.safetensors");
        std::string bPath = path("ub.safetensors");
        if (bIndex.isEmpty()) {
            writeModel(b, "ub.safetensors");
        } else {
            Model shard;
            shard.addF32("a", { 1 }, { 5 });
            if (bIndex.contains(u"\"w\": \"x.safetensors\""_s))
                shard.addF32("w", { 4 }, { 1, 2, 3, 4 });
            writeModel(shard, "x.safetensors");
            bPath = path("ub.safetensors.index.json");
            std::ofstream(bPath) << "{\"weight_map\": {" << bIndex.toStdString() << "}}";
        }
        for (const auto &[file, cut] :
            { std::pair { path("ua.safetensors"), cutA }, std::pair { bPath, cutB } }) {
            if (cut)
                QVERIFY(::truncate(file.c_str(), QFileInfo(QString::fromStdString(file)).size() - cut) == 0);
        }
        std::string error;
        const auto ca = Checkpoint::open(path("ua.safetensors"), error);
        const auto cb = Checkpoint::open(bPath, error);
        QVERIFY2(ca && cb, error.c_str());
        const auto c = compareCheckpoints(*ca, *cb, twoThreads(false));
        QVERIFY(c);
        const TensorPair &pair = pairNamed(*c, name.toStdString());
        QCOMPARE(int(pair.status), status);
        QCOMPARE(pair.readable, status != int(PairStatus::Unreadable));
        QCOMPARE(QString::fromStdString(sideUnreadableReason(*ca, pair, true)), whyA);
        QCOMPARE(QString::fromStdString(sideUnreadableReason(*cb, pair, false)), whyB);
        QVERIFY(!c->equivalent);
        QCOMPARE(pairNamed(*c, "a").status, PairStatus::Identical);
        // A pair with neither side held (a name only an index lists) keeps its place by name.
        QVERIFY(diffByLayer(*c).repeats.empty());
        if (status != int(PairStatus::Unreadable))
            return;
        QVERIFY(!pair.metrics);
        QCOMPARE(c->counts[std::size_t(PairStatus::Unreadable)], std::size_t(1));
        QVERIFY(comparisonSummaryText(*c).starts_with("1 unreadable"));
        const Json j = comparisonJson(*ca, *cb, *c);
        QCOMPARE(j["summary"]["unreadable"].get<int>(), 1);
        for (const auto &row : j["tensors"]) {
            if (row["name"] != name.toStdString())
                continue;
            QCOMPARE(row["status"].get<std::string>(), std::string("unreadable"));
            QCOMPARE(row["unreadable"]["a"].is_null(), whyA.isEmpty());
            QCOMPARE(row["unreadable"]["b"].is_null(), whyB.isEmpty());
        }
        const std::string sides = unreadableSidesText(*ca, *cb, pair);
        QCOMPARE(sides.find("in A: ") != std::string::npos, !whyA.isEmpty());
        QCOMPARE(sides.find("in B: ") != std::string::npos, !whyB.isEmpty());
    }

    void resultOwnsItsTree()
    {
        // The tree's names are views into the result's own pairs: a copy or a move would leave
        // them pointing into the original, so neither compiles.
        static_assert(!std::is_copy_constructible_v<CompareResult> && !std::is_move_constructible_v<CompareResult>);
        static_assert(!std::is_copy_assignable_v<CompareResult> && !std::is_move_assignable_v<CompareResult>);
        Model a, b;
        a.addF32("m.layers.10.w", {1}, {1}); // short names: their bytes live inside each std::string
        a.addF32("m.layers.2.w", {1}, {1});
        b.addF32("m.layers.2.w", {1}, {2});
        b.addF32("m.x", {1}, {0});
        writeModel(a, "ra.safetensors");
        writeModel(b, "rb.safetensors");
        std::string error;
        auto ca = Checkpoint::open(path("ra.safetensors"), error);
        auto cb = Checkpoint::open(path("rb.safetensors"), error);
        QVERIFY(ca && cb);
        auto c = compareCheckpoints(*ca, *cb, {});
        QVERIFY(c);
        const auto result = std::make_shared<const CompareResult>(ca, cb, CompareOptions{}, std::move(*c));
        QCOMPARE(result->tree.names.leafCount(), result->comparison.pairs.size());
        for (std::size_t p = 0; p < result->comparison.pairs.size(); ++p) {
            const std::string &name = result->comparison.pairs[p].name;
            const int node = result->tree.names.nodeOfLeaf(p);
            QCOMPARE(result->tree.path(node), name);
            QCOMPARE(result->tree.find(name), node);
        }
        const auto &root = result->tree.countsOf(NameTree::kRoot);
        QCOMPARE(root[static_cast<std::size_t>(PairStatus::Changed)], std::size_t(1));
        QCOMPARE(root[static_cast<std::size_t>(PairStatus::OnlyInA)], std::size_t(1));
        QCOMPARE(root[static_cast<std::size_t>(PairStatus::OnlyInB)], std::size_t(1));
        QCOMPARE(CompareTree::differing(result->tree.countsOf(result->tree.find("m.layers"))), std::size_t(2));
        // Natural order: layer 2 before layer 10.
        const auto &layers = result->tree.node(result->tree.find("m.layers")).children;
        QCOMPARE(result->tree.node(layers.front()).name, std::string_view("2"));
    }

    void cancelLeavesNoResult()
    {
        Model a, b;
        a.addF32("t", {2}, {1, 2});
        b.addF32("t", {2}, {1, 3});
        std::stop_source cancel;
        cancel.request_stop();
        std::string error;
        writeModel(a, "ca.safetensors");
        writeModel(b, "cb.safetensors");
        const auto ca = Checkpoint::open(path("ca.safetensors"), error);
        const auto cb = Checkpoint::open(path("cb.safetensors"), error);
        QVERIFY(!compareCheckpoints(*ca, *cb, {}, cancel.get_token()));
    }

    void jsonKeys()
    {
        Model a, b;
        a.addF32("t", {2}, {1, 2});
        b.addF32("t", {2}, {1, 3});
        a.addF32("gone", {1}, {1});
        std::string error;
        writeModel(a, "ja.safetensors");
        writeModel(b, "jb.safetensors");
        const auto ca = Checkpoint::open(path("ja.safetensors"), error);
        const auto cb = Checkpoint::open(path("jb.safetensors"), error);
        const auto c = compareCheckpoints(*ca, *cb, {});
        const Json j = comparisonJson(*ca, *cb, *c);
        for (const char *key : {"a", "b", "tensors", "metadata", "summary"})
            QVERIFY2(j.contains(key), key);
        const Json &changed = j["tensors"][1];
        QCOMPARE(changed["name"].get<std::string>(), std::string("t"));
        for (const char *key : {"name", "status", "a", "b", "max_abs_diff", "argmax", "mean_abs_diff", "rel_l2", "cosine", "n_different"})
            QVERIFY2(changed.contains(key), key);
        QVERIFY(j["tensors"][0]["b"].is_null());
        QVERIFY(j["tensors"][0]["max_abs_diff"].is_null());
        QCOMPARE(j["summary"]["changed"].get<int>(), 1);
        QCOMPARE(j["summary"]["only_in_a"].get<int>(), 1);
        QVERIFY(comparisonMarkdown(*ca, *cb, *c).find("| `t` | changed |") != std::string::npos);
    }

    // The a/b/a-b histograms of the compare window: every finite value counted once, the same
    // counts on 1, 2 and 3 threads (chunks of 65,536 and a ragged end), and cancel gives none.
    void diffHistogramsAnyThreads()
    {
        const std::size_t n = 3 * 65536 + 123;
        std::vector<float> a(n), b(n);
        std::uint64_t finiteA = 0, finiteB = 0, pairs = 0;
        for (std::size_t i = 0; i < n; ++i) {
            a[i] = std::sin(0.001f * static_cast<float>(i));
            b[i] = a[i] + (i % 7 == 0 ? 0.25f : 0.0f);
        }
        a[5] = NAN, a[70000] = INFINITY, b[131072] = -INFINITY, b[n - 1] = NAN;
        for (std::size_t i = 0; i < n; ++i) {
            finiteA += std::isfinite(a[i]), finiteB += std::isfinite(b[i]);
            pairs += std::isfinite(a[i]) && std::isfinite(b[i]);
        }
        const DiffSide sa { DType::F32, std::as_bytes(std::span(a)), n }, sb { DType::F32, std::as_bytes(std::span(b)), n };
        auto total = [](const Histogram &h) {
            std::uint64_t sum = 0;
            for (auto c : h.counts)
                sum += c;
            return sum;
        };
        const auto one = diffHistograms(sa, sb, 50, {}, {}, 1);
        QVERIFY(one);
        QCOMPARE(total(one->a), finiteA);
        QCOMPARE(total(one->b), finiteB);
        QCOMPARE(one->diffCount, pairs);
        QCOMPARE(total(one->diff), pairs);
        QVERIFY(std::fabs(one->diff.lo + 0.25) < 1e-6); // a - (a + 0.25f), rounded in float
        QCOMPARE(one->diff.hi, 0.0);
        for (unsigned threads : { 2u, 3u }) {
            std::uint64_t calls = 0, last = 0;
            const auto many = diffHistograms(sa, sb, 50, {}, [&](std::uint64_t done, std::uint64_t all) {
                ++calls;
                QVERIFY(done >= last && done <= all);
                last = done;
            }, threads);
            QVERIFY(many);
            QCOMPARE(many->a.counts, one->a.counts);
            QCOMPARE(many->b.counts, one->b.counts);
            QCOMPARE(many->diff.counts, one->diff.counts);
            QCOMPARE(many->diffCount, one->diffCount);
            QCOMPARE(last, std::uint64_t(4 * n));
            QCOMPARE(calls, std::uint64_t(2 * 4)); // 4 chunks, 2 passes
        }
        std::stop_source cancel;
        cancel.request_stop();
        QVERIFY(!diffHistograms(sa, sb, 50, cancel.get_token(), {}, 2));
    }

private:
    std::string path(const char *name) const { return (m_dir->path() + u'/' + QLatin1String(name)).toStdString(); }

    void writeModel(const Model &m, const char *name)
    {
        std::string error;
        QVERIFY2(writeFile(path(name), m.specs, m.data, m.metadata, error), error.c_str());
    }

    Comparison compare(const Model &a, const Model &b, const CompareOptions &options = {})
    {
        writeModel(a, "a.safetensors");
        writeModel(b, "b.safetensors");
        std::string error;
        const auto ca = Checkpoint::open(path("a.safetensors"), error);
        const auto cb = Checkpoint::open(path("b.safetensors"), error);
        auto c = compareCheckpoints(*ca, *cb, options);
        // The pairs point into the checkpoints: keep them alive with the result.
        m_keep.push_back(ca);
        m_keep.push_back(cb);
        return c.value_or(Comparison{});
    }

    std::unique_ptr<QTemporaryDir> m_dir;
    std::vector<std::shared_ptr<const Checkpoint>> m_keep;
};

QTEST_GUILESS_MAIN(tst_Comparison)
#include "tst_comparison.moc"
