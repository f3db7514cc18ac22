// Statistics of 8-bit GPTQ and pack-quantized groups by integer sums and code thresholds
// (analyzeQuantizedByteGroups, bytegroupruns.h):
// - each kernel, in each family this CPU runs, against a plain definition in this file, on
//   odd lengths, thresholds 0, 1, 255 and 256 (and counts of 1 to 29 thresholds, the AVX2
//   kernel's four at a time and the rest), negative scales and edges exactly on values, word
//   transposes of odd sizes;
// - the analysis against the decoded values' F32 statistics (analyzeTensor): counts, zeros,
//   extremes, histogram and outliers exactly, mean and std within rounding, on GPTQ (gptq and
//   gptq_v2 zeros, odd output counts, 2 groups and many, outputs over two transposed tiles) and
//   pack-quantized weights (with and without zero points; a row's scales and zeros as group by
//   group), with scales made negative, 0, ±Inf, NaN and inexact (F32 with a full mantissa: those
//   groups are decoded), 255 bins (every value on an edge) and 16/64 bins; and the families'
//   mean and std bit for bit the same.
#include "core/io/checkpoint.h"
#include "core/quant/bytegroupruns.h"
#include "core/quant/dequantizer.h"
#include "core/quant/quantanalyzer.h"
#include "core/quant/quantview.h"
#include "core/stats/kernels/avx512.h"
#include "core/stats/kernels/valuescan.h"
#include "core/stats/tensoranalyzer.h"
#include "tests/support/quantfixtures.h"
#include "tests/support/statscompare.h"

#include <QTemporaryDir>
#include <QTest>

#include <bit>
#include <cmath>
#include <cstring>
#include <functional>
#include <random>
#include <vector>

using namespace stb;
using namespace stb::test;
using quant::ByteRunFamily;

using Make = std::function<QuantFixture()>;
Q_DECLARE_METATYPE(Make)

namespace {

std::vector<ByteRunFamily> families()
{
    std::vector<ByteRunFamily> f { ByteRunFamily::Portable };
    if (kernels::avx2::supported())
        f.push_back(ByteRunFamily::Avx2);
    if (kernels::avx512::supported())
        f.push_back(ByteRunFamily::Avx512);
    return f;
}

bool sameDouble(double a, double b)
{
    return (std::isnan(a) && std::isnan(b)) || a == b;
}

// The first q in [lo, hi + 1] where the rule holds (scale > 0) or fails (scale < 0), by trying
// every code.
std::int32_t plainThreshold(
    double scale, std::int32_t zero, double unit, double edge, unsigned lo, unsigned hi)
{
    for (unsigned q = lo; q <= hi; ++q) {
        const bool above = (scale * (double(q) - zero)) * unit >= edge;
        if (scale > 0 ? above : !above)
            return static_cast<std::int32_t>(q);
    }
    return static_cast<std::int32_t>(hi) + 1;
}

// The scale tensor's F16 scales: some negated, and (poison) the first ones +Inf, NaN, 0 and -Inf.
void editScales(QuantFixture &f, bool negate, bool poison)
{
    for (std::size_t k = 0; k < f.specs.size(); ++k) {
        const std::string &name = f.specs[k].name;
        if (name.find("scale") == std::string::npos || f.specs[k].dtype != DType::F16)
            continue;
        std::vector<std::byte> &d = f.data[k];
        for (std::size_t i = 0; negate && i + 1 < d.size(); i += 6) // every third scale
            d[i + 1] ^= std::byte { 0x80 };
        if (poison) {
            const std::uint16_t values[4] = { 0x7C00, 0x7E00, 0x0000, 0xFC00 };
            std::memcpy(d.data(), values, std::min<std::size_t>(d.size(), sizeof values));
        }
    }
}

// The scales as F32 with a full mantissa (inexact products: those groups are decoded).
// Codes as heavy-tailed weights give them: nearly all at the middle code, one in 40 at an end,
// so that many groups reach beyond 6σ of the mean and pass 2 counts outliers (at 0 bins too).
// The codes tensor is the first one (.qweight, .weight_packed); `bits` 8 or 4 (two a byte).
QuantFixture heavyTails(QuantFixture f, unsigned bits)
{
    std::mt19937 rng(7);
    const auto code = [&](unsigned top) {
        const unsigned r = rng() % 40;
        return r == 0 ? 0u : r == 1 ? top : top / 2 + rng() % 3 - 1;
    };
    for (std::byte &b : f.data.front())
        b = static_cast<std::byte>(bits == 8 ? code(255) : code(15) | code(15) << 4);
    return f;
}

void inexactScales(QuantFixture &f)
{
    for (std::size_t k = 0; k < f.specs.size(); ++k) {
        if (f.specs[k].name.find("scale") == std::string::npos || f.specs[k].dtype != DType::F16)
            continue;
        const std::vector<std::byte> &d = f.data[k];
        std::vector<std::byte> out(d.size() * 2);
        for (std::size_t i = 0; i < d.size() / 2; ++i) {
            const float v
                = 0.001f + 0.0001f * static_cast<float>(i % 97) + 0x1p-20f * static_cast<float>(i % 7);
            float w = v;
            if (i % 2) { // every other scale exact: both ways in one weight
                std::uint32_t b = std::bit_cast<std::uint32_t>(v) & ~0x1FFFu;
                w = std::bit_cast<float>(b);
            }
            std::memcpy(out.data() + 4 * i, &w, 4);
        }
        f.specs[k].dtype = DType::F32;
        f.data[k] = std::move(out);
    }
}

} // namespace

class tst_ByteGroups : public QObject {
    Q_OBJECT

private slots:
    void initTestCase() { QVERIFY(m_dir.isValid()); }
    void kernels();
    void thresholds();
    void analysis_data();
    void analysis();

private:
    QTemporaryDir m_dir;
};

void tst_ByteGroups::kernels()
{
    std::mt19937 rng(13);
    for (std::size_t n : { 1u, 4u, 31u, 60u, 64u, 100u, 128u, 132u, 255u, 256u, 300u, 4096u }) {
        for (int kind = 0; kind < 3; ++kind) {
            std::vector<std::uint8_t> codes(n);
            for (auto &c : codes) // random; narrow around 128; only 0 and 255
                c = static_cast<std::uint8_t>(kind == 0 ? rng()
                        : kind == 1                     ? 120 + rng() % 16
                                                        : (rng() % 2) * 255);
            for (unsigned zero : { 0u, 128u, 255u, 256u }) {
                quant::ByteColumnStats e;
                e.lo = 255;
                for (std::uint8_t c : codes) {
                    e.sum += c;
                    e.squares += std::uint32_t(c) * c;
                    e.zeros += c == zero;
                    e.lo = std::min(e.lo, c);
                    e.hi = std::max(e.hi, c);
                }
                for (ByteRunFamily family : families()) {
                    quant::ByteColumnStats a;
                    quant::byteColumnStatsIn(family, codes.data(), n, zero, a);
                    QCOMPARE(a.sum, e.sum);
                    QCOMPARE(a.squares, e.squares);
                    QCOMPARE(a.zeros, e.zeros);
                    QCOMPARE(a.lo, e.lo);
                    QCOMPARE(a.hi, e.hi);
                }
            }
            std::vector<std::int32_t> thresholds { 0, 1, 2, 127, 128, 129, 254, 255, 256 };
            for (int k = 0; k < 20; ++k)
                thresholds.push_back(static_cast<std::int32_t>(rng() % 257));
            std::vector<std::uint32_t> expected(thresholds.size());
            for (std::size_t j = 0; j < thresholds.size(); ++j)
                for (std::uint8_t c : codes)
                    expected[j] += std::int32_t(c) >= thresholds[j];
            for (ByteRunFamily family : families()) {
                for (std::size_t k = 1; k <= thresholds.size(); k += k < 9 ? 1 : 5) {
                    std::vector<std::uint32_t> counts(k, 7);
                    quant::countAtLeastIn(family, codes.data(), n, thresholds.data(), k, counts.data());
                    QCOMPARE(counts, std::vector<std::uint32_t>(expected.begin(), expected.begin() + k));
                }
            }
        }
    }
    // GPTQ's word transpose, blocks of 8 × 8 words and the edges around them.
    for (std::size_t rows : { 1u, 2u, 4u, 8u, 9u, 16u, 32u, 33u }) {
        for (std::size_t columns : { 1u, 7u, 8u, 9u, 16u, 17u }) {
            const std::size_t rowBytes = 4 * columns + 12;
            std::vector<std::uint8_t> src(rows * rowBytes);
            for (auto &b : src)
                b = static_cast<std::uint8_t>(rng());
            std::vector<std::uint8_t> expected(4 * rows * columns);
            for (std::size_t r = 0; r < rows; ++r)
                for (std::size_t c = 0; c < columns; ++c)
                    std::memcpy(expected.data() + c * 4 * rows + 4 * r, src.data() + r * rowBytes + 4 * c, 4);
            for (ByteRunFamily family : families()) {
                std::vector<std::uint8_t> dst(expected.size(), 0xA5);
                quant::transposeWordsIn(family, src.data(), rowBytes, rows, columns, dst.data());
                QCOMPARE(dst, expected);
            }
        }
    }
    // GPTQ's columns summed without a transpose: each output's statistics as byteColumnStats
    // gives them on its transposed codes; widths around the 16 outputs of a vector, rows past the
    // 255 of the byte counters, zeros out of range, every byte the zero.
    for (std::size_t rows : { 1u, 2u, 32u, 255u, 256u, 600u }) {
        for (std::size_t columns : { 1u, 5u, 16u, 17u, 40u }) {
            const std::size_t rowBytes = 4 * columns + 20;
            for (int kind = 0; kind < 2; ++kind) {
                std::vector<std::uint8_t> src(rows * rowBytes);
                for (auto &b : src)
                    b = static_cast<std::uint8_t>(kind == 0 ? rng() : 7);
                std::vector<unsigned> zeros(columns);
                for (std::size_t c = 0; c < columns; ++c)
                    zeros[c] = kind == 1 ? (c % 3 ? 7u : 256u) : static_cast<unsigned>(rng() % 257);
                std::vector<quant::ByteColumnStats> expected(columns);
                std::vector<std::uint8_t> column(4 * rows);
                for (std::size_t c = 0; c < columns; ++c) {
                    for (std::size_t r = 0; r < rows; ++r)
                        std::memcpy(column.data() + 4 * r, src.data() + r * rowBytes + 4 * c, 4);
                    quant::byteColumnStatsIn(
                        ByteRunFamily::Portable, column.data(), column.size(), zeros[c], expected[c]);
                }
                for (ByteRunFamily family : families()) {
                    std::vector<quant::ByteColumnStats> got(columns);
                    quant::columnWordStatsIn(
                        family, src.data(), rowBytes, rows, columns, zeros.data(), got.data());
                    for (std::size_t c = 0; c < columns; ++c) {
                        const QString where = QStringLiteral("rows %1, columns %2, column %3, family %4")
                                                  .arg(rows)
                                                  .arg(columns)
                                                  .arg(c)
                                                  .arg(int(family));
                        QVERIFY2(got[c].sum == expected[c].sum, qPrintable(where));
                        QVERIFY2(got[c].squares == expected[c].squares, qPrintable(where));
                        QVERIFY2(got[c].zeros == expected[c].zeros, qPrintable(where));
                        QVERIFY2(got[c].lo == expected[c].lo, qPrintable(where));
                        QVERIFY2(got[c].hi == expected[c].hi, qPrintable(where));
                    }
                }
            }
        }
    }
    // Level bins: the differences of counts of values at or above each edge.
    for (bool up : { true, false }) {
        for (std::size_t levels : { 1u, 3u, 8u, 9u, 63u }) {
            const std::uint32_t n = 128;
            std::vector<std::uint32_t> atLeast(levels);
            for (std::size_t j = 0; j < levels; ++j) // codes at or above t_j: non-increasing (up)
                atLeast[j] = up ? n - static_cast<std::uint32_t>(j * n / (levels + 1))
                                : static_cast<std::uint32_t>((j + 1) * n / (levels + 1));
            std::vector<std::uint64_t> expected(levels + 1, 5);
            std::vector<std::uint32_t> c(levels);
            for (std::size_t j = 0; j < levels; ++j)
                c[j] = up ? atLeast[j] : n - atLeast[j];
            expected[0] += n - c[0];
            for (std::size_t j = 1; j < levels; ++j)
                expected[j] += c[j - 1] - c[j];
            expected[levels] += c[levels - 1];
            for (ByteRunFamily family : families()) {
                std::vector<std::uint32_t> counts = atLeast;
                std::vector<std::uint64_t> bins(levels + 1, 5);
                quant::addLevelBinsIn(family, counts.data(), levels, n, up, bins.data());
                QCOMPARE(bins, expected);
            }
        }
    }
}

void tst_ByteGroups::thresholds()
{
    std::mt19937 rng(7);
    int refused = 0, rounds = 0;
    for (int round = 0; round < 400; ++round) {
        // F16-like scales (11 significant bits), either sign, and zeros 0 … 256.
        const double magnitude = std::ldexp(1024.0 + double(rng() % 1024), -int(rng() % 20) - 10);
        const double scale = round % 2 ? -magnitude : magnitude;
        const auto zero = static_cast<std::int32_t>(rng() % 257);
        const double unit = std::ldexp(1.0, int(rng() % 5) - 2);
        unsigned lo = rng() % 256, hi = rng() % 256;
        if (lo > hi)
            std::swap(lo, hi);
        // Edges exactly on values, next to them, and between; ascending.
        std::vector<double> edges;
        for (int k = 0; k < 21; ++k) {
            const double d = double(int(rng() % 512) - 256);
            const double on = (scale * d) * unit;
            // A step of rounding above a value only in every fourth round.
            const bool step = k % 3 == 1 && round % 4 == 0;
            edges.push_back(step ? std::nextafter(on, INFINITY)
                    : k % 3 == 2 ? on + 0.37 * magnitude * unit
                                 : on);
        }
        std::sort(edges.begin(), edges.end());
        const std::size_t k = edges.size();
        edges.resize(k + 8, edges.back());
        for (ByteRunFamily family : families()) {
            ++rounds;
            std::vector<std::int32_t> t(k + 8, -1);
            // False (the caller decodes that group) only where a quotient rounds across an
            // integer: here, next to edges placed a step of rounding above a value.
            if (!quant::codeThresholdsIn(family, scale, zero, unit, edges.data(), k, lo, hi, t.data())) {
                QVERIFY2(round % 4 == 0, qPrintable(QStringLiteral("round %1 refused").arg(round)));
                ++refused;
                continue;
            }
            for (std::size_t j = 0; j < k; ++j)
                QVERIFY2(t[j] == plainThreshold(scale, zero, unit, edges[j], lo, hi),
                    qPrintable(QStringLiteral("family %1 scale %2 zero %3 unit %4 lo %5 hi %6 edge %7 t %8")
                                   .arg(int(family))
                                   .arg(scale, 0, 'g', 17)
                                   .arg(zero)
                                   .arg(unit)
                                   .arg(lo)
                                   .arg(hi)
                                   .arg(edges[j], 0, 'g', 17)
                                   .arg(t[j])));
            // The whole group's bins in one call (the AVX-512 family folds the counts of a group of
            // 128 into the bins as it goes): the same as counting, then adding the level bins.
            for (std::size_t n : { std::size_t(128), std::size_t(77) }) {
                std::vector<std::uint8_t> codes(n);
                for (auto &c : codes)
                    c = static_cast<std::uint8_t>(lo + rng() % (hi - lo + 1));
                std::vector<std::uint32_t> counts(k + 8);
                std::vector<std::uint64_t> expected(k + 1, 5), got(k + 1, 5);
                quant::countAtLeastIn(ByteRunFamily::Portable, codes.data(), n, t.data(), k, counts.data());
                quant::addLevelBinsIn(
                    ByteRunFamily::Portable, counts.data(), k, std::uint32_t(n), scale > 0, expected.data());
                std::vector<std::int32_t> scratch(k + 8);
                QVERIFY(quant::binGroupCodesIn(family, codes.data(), n, scale, zero, unit, edges.data(), k,
                    lo, hi, scratch.data(), counts.data(), got.data()));
                QVERIFY2(got == expected,
                    qPrintable(QStringLiteral("family %1, %2 codes").arg(int(family)).arg(n)));
            }
        }
    }
    QVERIFY2(refused < rounds / 4, qPrintable(QStringLiteral("%1 of %2 refused").arg(refused).arg(rounds)));
    qInfo("%d of %d rounds refused", refused, rounds);
}

void tst_ByteGroups::analysis_data()
{
    QTest::addColumn<Make>("make");
    QTest::addColumn<int>("edit"); // 0 none, 1 negated scales, 2 and poisoned, 3 inexact F32 scales
    struct Row {
        const char *tag;
        Make make;
    };
    const std::vector<Row> rows = {
        { "gptq g32", [] { return gptq("l.q", 32, 128, 8, 32); } },
        { "gptq g128 two groups", [] { return gptq("l.q", 48, 256, 8, 128); } },
        { "gptq_v2 g16 odd outputs", [] { return gptq("l.q", 36, 64, 8, 16, true); } },
        { "gptq g8 many groups", [] { return gptq("l.q", 20, 512, 8, 8); } },
        { "gptq act-order", [] { return gptq("l.q", 32, 128, 8, 32, false, true); } },
        { "gptq g128 two tiles", [] { return gptq("l.q", 300, 256, 8, 128); } }, // 256 + 44 outputs
        { "gptq 4-bit g128 two tiles", [] { return gptq("l.q", 296, 256, 4, 128); } }, // 256 + 40 outputs
        { "gptq g128 heavy tails", [] { return heavyTails(gptq("l.q", 48, 256, 8, 128), 8); } },
        { "gptq 4-bit g32 heavy tails", [] { return heavyTails(gptq("l.q", 40, 128, 4, 32), 4); } },
        { "pack g64 heavy tails", [] { return heavyTails(packQuantized("l.p", 16, 128, 64, 8), 8); } },
        { "gptq 4-bit g32", [] { return gptq("l.q", 40, 128, 4, 32); } },
        { "gptq_v2 4-bit g8 40 outputs", [] { return gptq("l.q", 40, 64, 4, 8, true); } },
        { "pack g64", [] { return packQuantized("l.p", 16, 128, 64, 8); } },
        { "pack g32 odd outputs", [] { return packQuantized("l.p", 13, 96, 32, 8); } },
        { "pack one group", [] { return packQuantized("l.p", 9, 64, 64, 8); } },
        { "pack g32 zero points",
            [] { return withZeroPoints(packQuantized("l.p", 13, 96, 32, 8), "l.p", 13, 3, 8); } },
    };
    for (const Row &row : rows) {
        for (int edit = 0; edit < 4; ++edit)
            QTest::newRow(qPrintable(QStringLiteral("%1 %2").arg(QLatin1String(row.tag)).arg(edit)))
                << row.make << edit;
    }
}

void tst_ByteGroups::analysis()
{
    QFETCH(Make, make);
    QFETCH(int, edit);
    QuantFixture fixture = make();
    if (edit == 3)
        inexactScales(fixture);
    else
        editScales(fixture, edit >= 1, edit == 2);
    std::string error;
    const std::string path
        = m_dir.filePath(QStringLiteral("%1.safetensors").arg(QLatin1String(QTest::currentDataTag())))
              .toStdString();
    QVERIFY2(writeFixtures(path, { fixture }, error), error.c_str());
    const auto checkpoint = Checkpoint::open(path, error);
    QVERIFY2(checkpoint, error.c_str());
    const QuantView view = QuantView::build(*checkpoint, nullptr);
    QCOMPARE(view.weights().size(), std::size_t(1));
    const auto dq = Dequantizer::make(*checkpoint, view.weights().front(), error);
    QVERIFY2(dq, error.c_str());
    const bool actOrder = QByteArray(QTest::currentDataTag()).contains("act-order");
    QCOMPARE(bool(dq->byteGroups()), !actOrder);
    if (const auto g = dq->byteGroups()) { // a row's parameters as group by group
        bool ownZeros = false; // pack-quantized zeros other than the symmetric 128
        std::vector<float> rowScales(g->groups);
        std::vector<std::int32_t> rowZeros(g->groups);
        for (std::uint64_t o = 0; o < g->outputs; ++o) {
            dq->byteRowParams(o, 0, g->groups, rowScales.data(), rowZeros.data());
            for (std::uint64_t group = 0; group < g->groups; ++group) {
                float scale = 0;
                std::int32_t zero = 0;
                dq->byteGroupParams(group, o, 1, &scale, &zero);
                QCOMPARE(std::bit_cast<std::uint32_t>(rowScales[group]), std::bit_cast<std::uint32_t>(scale));
                QCOMPARE(rowZeros[group], zero);
                ownZeros = ownZeros || zero != 128;
            }
        }
        if (QByteArray(QTest::currentDataTag()).contains("zero points"))
            QVERIFY(ownZeros);
    }

    std::vector<float> values(dq->elements());
    QVERIFY(dq->decodeGuarded(0, values.size(), values.data()));
    for (unsigned bins : { 0u, 16u, 64u, 255u }) { // 0: no histogram (the CLI audit table)
        const auto reference = analyzeTensor(DType::F32, std::as_bytes(std::span<const float>(values)),
            values.size(), AnalysisOptions { bins, 1, false });
        QVERIFY(reference);
        if (QByteArray(QTest::currentDataTag()).contains("heavy tails") && edit < 2)
            QVERIFY2(reference->outliers > 0, "the fixture has no outliers to count");
        std::optional<TensorAnalysis> first;
        for (int family = 0; family < 3; ++family) {
            kernels::avx512::setEnabled(family == 0);
            kernels::avx2::setEnabled(family == 1);
            for (unsigned threads : { 1u, 3u }) {
                // By byte groups (4-bit GPTQ too, which analyzeQuantized counts when there are
                // bins), or (act order) analyzeQuantized by decoded values.
                const AnalysisOptions options { bins, threads, false };
                const auto a
                    = actOrder ? analyzeQuantized(*dq, options) : analyzeQuantizedByteGroups(*dq, options);
                QVERIFY(a);
                const TensorStats &s = a->stats, &e = reference->stats;
                compareCountsAndExtremes(s, e);
                if (QTest::currentTestFailed())
                    return;
                QVERIFY(sameDouble(s.min, e.min));
                QVERIFY(sameDouble(s.max, e.max));
                QVERIFY(sameDouble(s.absMax, e.absMax));
                // Sums in another order: equal to within rounding.
                const double scale = std::isfinite(e.absMax) ? e.absMax : 1.0;
                QVERIFY2(
                    std::isnan(e.mean) ? std::isnan(s.mean) : std::fabs(s.mean - e.mean) <= 1e-12 * scale,
                    qPrintable(
                        QStringLiteral("mean %1 vs %2").arg(s.mean, 0, 'g', 17).arg(e.mean, 0, 'g', 17)));
                QVERIFY2(std::isnan(e.std) ? std::isnan(s.std) : std::fabs(s.std - e.std) <= 1e-12 * scale,
                    qPrintable(QStringLiteral("std %1 vs %2").arg(s.std, 0, 'g', 17).arg(e.std, 0, 'g', 17)));
                QCOMPARE(a->histogram.lo, reference->histogram.lo);
                QCOMPARE(a->histogram.hi, reference->histogram.hi);
                QCOMPARE(a->histogram.counts, reference->histogram.counts);
                QCOMPARE(a->outliers, reference->outliers);
                // One thread: the same sums in the same order in every family (the groups' sums
                // are integers; poisoned or inexact groups go through the F32 kernels).
                if (threads == 1 && edit < 2 && !actOrder) {
                    if (!first) {
                        first = a;
                    } else {
                        QVERIFY(sameDouble(a->stats.mean, first->stats.mean));
                        QVERIFY(sameDouble(a->stats.std, first->stats.std));
                    }
                }
            }
        }
        kernels::avx512::setEnabled(true);
        kernels::avx2::setEnabled(true);
    }
}

QTEST_GUILESS_MAIN(tst_ByteGroups)
#include "tst_bytegroups.moc"
