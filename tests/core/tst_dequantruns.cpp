// Code counting's kernels (core/quant/dequantruns.h) in every family this CPU runs (AVX-512,
// AVX2, the portable bodies) against the portable bodies: counted moments bit for bit, nibble
// counts exactly, counted outliers and the AVX2 bin indices against their scalar definitions.
// Values include NaN,
// ±Inf, ±0 and subnormals; counts 0 and above 2^31; lengths odd.
#include "core/quant/dequantruns.h"
#include "core/quant/dequantrunsavx2.h"
#include "core/stats/kernels/avx512.h"
#include "core/stats/kernels/valuescan.h"
#include "core/stats/statskernels.h"

#include <QTest>

#include <bit>
#include <cmath>
#include <cstring>
#include <limits>
#include <random>
#include <vector>

using namespace stb;

namespace {

enum Family { Avx512, Avx2, Portable };

// Selects a family for its lifetime; false when this CPU cannot run it.
struct UseFamily {
    explicit UseFamily(Family family)
    {
        ok = family == Portable
            || (family == Avx512 ? kernels::avx512::supported() : kernels::avx2::supported());
        kernels::avx512::setEnabled(family == Avx512);
        kernels::avx2::setEnabled(family == Avx2);
    }
    ~UseFamily()
    {
        kernels::avx512::setEnabled(true);
        kernels::avx2::setEnabled(true);
    }
    bool ok = false;
};

bool sameBits(double a, double b)
{
    return std::bit_cast<std::uint64_t>(a) == std::bit_cast<std::uint64_t>(b);
}

bool sameBits(float a, float b)
{
    return std::bit_cast<std::uint32_t>(a) == std::bit_cast<std::uint32_t>(b);
}

// One value in `every` special; the first three specials (NaN, ±Inf) only when `nonFinite`.
std::vector<float> specialValues(std::size_t n, std::mt19937 &rng, unsigned every = 7, bool nonFinite = true)
{
    const float specials[] = { NAN, INFINITY, -INFINITY, 0.0f, -0.0f, 1e-40f, -3e-42f,
        std::numeric_limits<float>::max(), -std::numeric_limits<float>::denorm_min() };
    const unsigned first = nonFinite ? 0 : 3;
    std::normal_distribution<float> normal(0.0f, 0.02f);
    std::vector<float> v(n);
    for (std::size_t k = 0; k < n; ++k)
        v[k] = rng() % every == 0 ? specials[first + rng() % (std::size(specials) - first)] : normal(rng);
    return v;
}

quant::CountedMoments moments(
    const std::vector<float> &values, const std::vector<std::uint32_t> &counts, std::size_t n, double shift)
{
    quant::CountedMoments m;
    quant::countedMomentsRun(values.data(), counts.data(), n, shift, m);
    return m;
}

} // namespace

class tst_DequantRuns : public QObject {
    Q_OBJECT

private slots:
    void countedMoments_data();
    void countedMoments();
    void countedOutliers_data();
    void countedOutliers();
    void blockNibbleCounts_data();
    void blockNibbleCounts();
    void wordNibbleCounts_data();
    void wordNibbleCounts();
    void avx2BinIndices();
};

void tst_DequantRuns::countedMoments_data()
{
    QTest::addColumn<int>("family");
    QTest::addColumn<int>("n");
    // Mixed: NaN, ±Inf and counts from 2^31 often. Finite: none of them (AVX2's fast steps).
    // Rare: one step in a few has one (fast and slow steps adding to the same lanes).
    QTest::addColumn<int>("mix");
    for (int family : { Avx512, Avx2 })
        for (int n : { 0, 1, 7, 8, 15, 16, 17, 100, 1023 })
            for (int mix : { 0, 1, 2 })
                QTest::newRow(qPrintable(QStringLiteral("%1 %2 %3")
                                             .arg(family == Avx512 ? u"avx512" : u"avx2")
                                             .arg(n)
                                             .arg(mix == 0      ? u"mixed"
                                                     : mix == 1 ? u"finite"
                                                                : u"rare")))
                    << family << n << mix;
}

void tst_DequantRuns::countedMoments()
{
    QFETCH(int, family);
    QFETCH(int, n);
    QFETCH(int, mix);
    std::mt19937 rng(
        static_cast<unsigned>(n) * 31u + static_cast<unsigned>(family) * 7u + static_cast<unsigned>(mix));
    const std::vector<float> values = mix == 0 ? specialValues(static_cast<std::size_t>(n), rng)
        : mix == 1                             ? specialValues(static_cast<std::size_t>(n), rng, 7, false)
                                               : specialValues(static_cast<std::size_t>(n), rng, 60, true);
    const unsigned bigEvery = mix == 0 ? 9 : mix == 1 ? 0 : 60;
    std::vector<std::uint32_t> counts(static_cast<std::size_t>(n));
    for (auto &c : counts)
        c = rng() % 5 == 0                      ? 0u
            : bigEvery && rng() % bigEvery == 0 ? 0x80000000u + rng() % 1000
                                                : rng() % 300;
    quant::CountedMoments expected, got;
    {
        UseFamily portable(Portable);
        expected = moments(values, counts, counts.size(), 0.01);
    }
    {
        UseFamily use(static_cast<Family>(family));
        if (!use.ok)
            QSKIP("this CPU cannot run that family");
        got = moments(values, counts, counts.size(), 0.01);
    }
    QVERIFY(sameBits(got.finite, expected.finite));
    QVERIFY(sameBits(got.zeros, expected.zeros));
    QVERIFY(sameBits(got.nan, expected.nan));
    QVERIFY(sameBits(got.posInf, expected.posInf));
    QVERIFY(sameBits(got.negInf, expected.negInf));
    QVERIFY(sameBits(got.lo, expected.lo));
    QVERIFY(sameBits(got.hi, expected.hi));
    if (family == Avx2) { // the same lanes in the same order
        QVERIFY(sameBits(got.sum, expected.sum));
        QVERIFY(sameBits(got.squares, expected.squares));
    } else { // AVX-512 adds its lanes as a tree
        QVERIFY(std::fabs(got.sum - expected.sum) <= 1e-9 * (1 + std::fabs(expected.sum)));
        QVERIFY(std::fabs(got.squares - expected.squares) <= 1e-9 * (1 + std::fabs(expected.squares)));
    }
}

void tst_DequantRuns::countedOutliers_data()
{
    QTest::addColumn<int>("family");
    QTest::addColumn<int>("n");
    QTest::addColumn<bool>("bytes"); // a CountTape's counts, or pass 1's
    for (int family : { Avx512, Avx2, Portable })
        for (int n : { 0, 1, 7, 8, 9, 16, 100, 1023 })
            for (bool bytes : { false, true })
                QTest::newRow(qPrintable(QStringLiteral("%1 %2 %3")
                                             .arg(family == Avx512    ? u"avx512"
                                                     : family == Avx2 ? u"avx2"
                                                                      : u"portable")
                                             .arg(n)
                                             .arg(bytes ? u"bytes" : u"words")))
                    << family << n << bytes;
}

// Against the scalar test |v - mean| > distance for finite v, on values at, just inside and just
// beyond the plan's float thresholds, and NaN, ±Inf, ±0, subnormals and FLT_MAX.
void tst_DequantRuns::countedOutliers()
{
    QFETCH(int, family);
    QFETCH(int, n);
    QFETCH(bool, bytes);
    std::mt19937 rng(static_cast<unsigned>(n) * 13u + static_cast<unsigned>(family) * 5u + (bytes ? 1u : 0u));
    const kernels::BinPlan plan = kernels::makeBinPlan(-1.0, 1.0, 64, 0.003, 0.02 / 6); // 6σ: 0.02
    QVERIFY(std::isfinite(plan.outlierAbove) && std::isfinite(plan.outlierBelow));
    const float edges[] = { plan.outlierAbove, std::nextafter(plan.outlierAbove, 0.0f),
        std::nextafter(plan.outlierAbove, INFINITY), plan.outlierBelow,
        std::nextafter(plan.outlierBelow, 0.0f), std::nextafter(plan.outlierBelow, -INFINITY) };
    std::vector<float> values = specialValues(static_cast<std::size_t>(n), rng, 5);
    for (auto &v : values)
        v = rng() % 3 == 0 ? edges[rng() % std::size(edges)] : v;
    std::vector<std::uint32_t> words(values.size());
    std::vector<std::uint8_t> counts(values.size());
    std::uint64_t expected = 0;
    for (std::size_t k = 0; k < values.size(); ++k) {
        words[k] = bytes ? rng() % 256 : rng() % 4 == 0 ? 0x80000000u + rng() % 1000 : rng() % 300;
        counts[k] = static_cast<std::uint8_t>(words[k]);
        const double v = values[k];
        if (std::isfinite(v) && std::fabs(v - plan.mean) > plan.outlierDistance)
            expected += words[k];
    }
    UseFamily use(static_cast<Family>(family));
    if (!use.ok)
        QSKIP("this CPU cannot run that family");
    const std::uint64_t got = bytes ? quant::countedOutliersRun(values.data(), counts.data(), values.size(),
                                  plan.outlierAbove, plan.outlierBelow)
                                    : quant::countedOutliersRun(values.data(), words.data(), values.size(),
                                        plan.outlierAbove, plan.outlierBelow);
    QCOMPARE(got, expected);
}

void tst_DequantRuns::blockNibbleCounts_data()
{
    QTest::addColumn<int>("family");
    QTest::addColumn<int>("blockBytes");
    QTest::addColumn<int>("blocks");
    for (int family : { Avx512, Avx2 })
        for (int blockBytes : { 32, 64, 96, 128 })
            for (int blocks : { 1, 2, 3, 4, 6, 8, 17 }) // AVX2: tiles of 4 blocks, and the rest
                QTest::newRow(qPrintable(QStringLiteral("%1 %2 bytes x %3")
                                             .arg(family == Avx512 ? u"avx512" : u"avx2")
                                             .arg(blockBytes)
                                             .arg(blocks)))
                    << family << blockBytes << blocks;
}

void tst_DequantRuns::blockNibbleCounts()
{
    QFETCH(int, family);
    QFETCH(int, blockBytes);
    QFETCH(int, blocks);
    std::mt19937 rng(static_cast<unsigned>(blockBytes * 100 + blocks));
    std::vector<std::uint8_t> codes(static_cast<std::size_t>(blockBytes * blocks));
    // Runs of one code too (a count of 2 a byte, whole blocks of code 7), and of code 15.
    for (std::size_t k = 0; k < codes.size(); ++k)
        codes[k] = k % 97 < 40 ? 0x77 : k % 97 < 50 ? 0xFF : static_cast<std::uint8_t>(rng());
    const std::size_t entries = 16 * static_cast<std::size_t>(blocks);
    std::vector<std::uint32_t> expected(entries, 5), got(entries, 5); // added to
    {
        UseFamily portable(Portable);
        quant::blockNibbleCounts(codes.data(), static_cast<std::size_t>(blockBytes),
            static_cast<std::size_t>(blocks), expected.data());
    }
    UseFamily use(static_cast<Family>(family));
    if (!use.ok)
        QSKIP("this CPU cannot run that family");
    quant::blockNibbleCounts(
        codes.data(), static_cast<std::size_t>(blockBytes), static_cast<std::size_t>(blocks), got.data());
    QCOMPARE(got, expected);
}

void tst_DequantRuns::wordNibbleCounts_data()
{
    QTest::addColumn<int>("family");
    QTest::addColumn<int>("rows");
    QTest::addColumn<int>("columns");
    // Bytes: -1 random with runs along rows, -2 with runs down the columns, else all that byte
    // (one code in every nibble: the counters' largest counts).
    QTest::addColumn<int>("fill");
    for (int family : { Avx512, Avx2 })
        for (int rows : { 1, 130, 300 }) // past 127 and 255: the byte counters' flushes
            for (int columns : { 8, 13, 16, 40 })
                for (int fill : { -1, -2, 0x00, 0xFF, 0x10 })
                    QTest::newRow(qPrintable(QStringLiteral("%1 %2 rows x %3 fill %4")
                                                 .arg(family == Avx512 ? u"avx512" : u"avx2")
                                                 .arg(rows)
                                                 .arg(columns)
                                                 .arg(fill)))
                        << family << rows << columns << fill;
}

// GPTQ's column counts and AWQ's slot counts over rows of 32-bit words, with a stride wider than
// the columns counted and (AWQ) rows longer than them.
void tst_DequantRuns::wordNibbleCounts()
{
    QFETCH(int, family);
    QFETCH(int, rows);
    QFETCH(int, columns);
    QFETCH(int, fill);
    const std::size_t r = static_cast<std::size_t>(rows), c = static_cast<std::size_t>(columns);
    const std::size_t stride = 4 * c + 12, rowWords = c + 3;
    std::mt19937 rng(static_cast<unsigned>(rows * 1000 + columns));
    std::vector<std::byte> words(r * stride);
    for (std::size_t k = 0; k < words.size(); ++k) {
        if (fill >= 0)
            words[k] = static_cast<std::byte>(fill);
        else if (fill == -2)
            words[k] = (k / stride) % 40 < 20 ? std::byte { 0xEE } : static_cast<std::byte>(rng());
        else
            words[k] = k % 89 < 30 ? std::byte { 0xAA } : static_cast<std::byte>(rng());
    }
    std::vector<std::uint32_t> columnExpected(16 * c, 3), slotExpected(8 * rowWords * 16, 3);
    std::vector<std::uint32_t> columnGot = columnExpected, slotGot = slotExpected;
    {
        UseFamily portable(Portable);
        quant::columnNibbleCounts(words.data(), stride, r, c, columnExpected.data());
        quant::slotNibbleCounts(words.data(), stride, r, c, rowWords, slotExpected.data());
    }
    UseFamily use(static_cast<Family>(family));
    if (!use.ok)
        QSKIP("this CPU cannot run that family");
    quant::columnNibbleCounts(words.data(), stride, r, c, columnGot.data());
    quant::slotNibbleCounts(words.data(), stride, r, c, rowWords, slotGot.data());
    QCOMPARE(columnGot, columnExpected);
    QCOMPARE(slotGot, slotExpected);
}

// The AVX2 bin indices against the rule they implement, lane by lane.
void tst_DequantRuns::avx2BinIndices()
{
    if (!kernels::avx2::supported())
        QSKIP("no AVX2");
    std::mt19937 rng(5);
    std::vector<float> values = specialValues(1000, rng);
    const float lo = -0.03f, hi = 0.04f;
    const unsigned bins = 64;
    const float scale = static_cast<float>(bins) / (hi - lo);
    for (int k = 0; k < 40; ++k) // values on and next to edges
        values[static_cast<std::size_t>(k)] = lo
            + static_cast<float>(k % 8) * (hi - lo) / static_cast<float>(bins)
            + (k % 3 == 0        ? 0.0f
                    : k % 3 == 1 ? 1e-9f
                                 : -1e-9f);
    values[40] = lo;
    values[41] = hi;
    std::vector<std::uint32_t> index(values.size()), slow(values.size());
    const std::size_t slowCount = quant::avx2::binIndices(
        values.data(), values.size(), lo, hi, scale, bins, index.data(), slow.data());
    std::size_t s = 0;
    for (std::size_t k = 0; k < values.size(); ++k) {
        const float x = values[k], t = (x - lo) * scale;
        const bool inRange = x >= lo && x <= hi && t < static_cast<float>(bins);
        const float safe = inRange ? t : 0.0f;
        const auto e = static_cast<std::int32_t>(safe);
        const float fraction = safe - static_cast<float>(e);
        const bool ok = inRange && fraction >= 1.0f / 256 && fraction <= 1.0f - 1.0f / 256;
        QCOMPARE(index[k], ok ? static_cast<std::uint32_t>(e) : bins);
        if (!ok) {
            QVERIFY(s < slowCount);
            QCOMPARE(slow[s++], static_cast<std::uint32_t>(k));
        }
    }
    QCOMPARE(s, slowCount);
}

QTEST_GUILESS_MAIN(tst_DequantRuns)
#include "tst_dequantruns.moc"
