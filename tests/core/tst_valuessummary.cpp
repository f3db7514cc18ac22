// Locate and the heatmap summary against brute force written here: values planted at the first,
// last and chunk-boundary positions (on one and on several threads), ties, every special value;
// heatmap cells on odd sizes (R, C not multiples of H, W; H > R; cell rows split across tasks),
// strips, transposed planes, cancellation and truncated data.
#include "core/values/colourscale.h"
#include "core/values/heatmap.h"
#include "core/values/locate.h"
#include "core/values/stridedview.h"

#include "tests/support/valuedata.h"

#include <QTest>

#include <cmath>
#include <cstring>
#include <limits>
#include <random>
#include <vector>

using namespace Qt::StringLiterals;
using namespace stb;

namespace {

constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();
constexpr double kInf = std::numeric_limits<double>::infinity();
constexpr std::uint64_t kLocateChunk = std::uint64_t(1) << 20; // locate's chunk, to plant across it

std::vector<float> noise(std::size_t n, unsigned seed)
{
    std::mt19937 rng(seed);
    std::uniform_real_distribution<float> dist(-1.0f, 1.0f);
    std::vector<float> values(n);
    for (float &v : values)
        v = dist(rng);
    return values;
}

// The reference summary of one cell, straight from the definition.
struct Cell {
    double min = kInf, max = -kInf, sum = 0;
    std::uint64_t finite = 0, nan = 0, posInf = 0, negInf = 0;
};

} // namespace

class tst_ValuesSummary : public QObject {
    Q_OBJECT

private slots:
    void locatePlanted_data();
    void locatePlanted();
    void locateTiesAndKinds();
    void locateStopsAndRefusesShortData();
    void heatmapMatchesBruteForce_data();
    void heatmapMatchesBruteForce();
    void heatmapShapes();
    void heatmapStopsAndRefusesShortData();
    void colours();
    void clippedRange_data();
    void clippedRange();
};

void tst_ValuesSummary::locatePlanted_data()
{
    QTest::addColumn<quint64>("position");
    QTest::addColumn<unsigned>("threads");
    const std::uint64_t n = 3 * kLocateChunk + 17;
    const std::pair<const char *, std::uint64_t> places[] = { { "first", 0 }, { "last", n - 1 },
        { "before boundary", kLocateChunk - 1 }, { "at boundary", kLocateChunk },
        { "after boundary", 2 * kLocateChunk + 1 }, { "block boundary", 2048 } };
    for (const auto &[name, position] : places) {
        for (unsigned threads : { 1u, 4u })
            QTest::addRow("%s, %u threads", name, threads) << quint64(position) << threads;
    }
}

void tst_ValuesSummary::locatePlanted()
{
    QFETCH(quint64, position);
    QFETCH(unsigned, threads);
    const std::uint64_t n = 3 * kLocateChunk + 17;
    std::vector<float> values = noise(n, 7);
    // Each kind planted at `position` in a tensor of its own, with a later equal value as a tie.
    struct Plant {
        float value;
        std::optional<LocatedValue> LocateResult::*slot;
    };
    const Plant plants[] = { { 5.0f, &LocateResult::max }, { -5.0f, &LocateResult::min },
        { -7.0f, &LocateResult::absMax }, { float(kNaN), &LocateResult::firstNaN },
        { float(kInf), &LocateResult::firstPosInf }, { float(-kInf), &LocateResult::firstNegInf } };
    for (const Plant &plant : plants) {
        std::vector<float> planted = values;
        planted[position] = plant.value;
        if (position + 5 < n)
            planted[position + 5] = plant.value;
        const auto result = locateValues(DType::F32, test::floatBytes(planted), n, {}, {}, threads);
        QVERIFY(result);
        QCOMPARE(result->count, n);
        const auto &found = (*result).*plant.slot;
        QVERIFY(found);
        QCOMPARE(found->index, position);
        if (std::isnan(plant.value))
            QVERIFY(std::isnan(found->value));
        else
            QCOMPARE(found->value, double(plant.value));
    }
}

void tst_ValuesSummary::locateTiesAndKinds()
{
    // Brute force over a small tensor of every kind of value, several dtypes' worth of them.
    std::vector<float> values { 3, -0.0f, 0.0f, -3, float(kNaN), 3, float(-kInf), float(kInf), -3,
        float(kNaN), 1 };
    const auto result = locateValues(DType::F32, test::floatBytes(values), values.size());
    QVERIFY(result);
    QCOMPARE(result->max->index, 0u); // 3 at 0 and 5
    QCOMPARE(result->min->index, 3u); // -3 at 3 and 8
    QCOMPARE(result->absMax->index, 0u); // |3| at 0, 3, 5, 8: the first
    QCOMPARE(result->absMax->value, 3.0);
    QCOMPARE(result->firstNaN->index, 4u);
    QCOMPARE(result->firstPosInf->index, 7u);
    QCOMPARE(result->firstNegInf->index, 6u);

    const std::vector<float> zeros { -0.0f, 0.0f };
    const auto zero = locateValues(DType::F32, test::floatBytes(zeros), 2);
    QCOMPARE(zero->min->index, 0u);
    QCOMPARE(zero->max->index, 0u); // -0 and +0 are equal: the first wins

    const std::vector<float> nothingFinite { float(kNaN), float(kInf) };
    const auto special = locateValues(DType::F32, test::floatBytes(nothingFinite), 2);
    QVERIFY(!special->min && !special->max && !special->absMax && !special->firstNegInf);

    const std::vector<std::byte> i8 { std::byte(0x05), std::byte(0x80), std::byte(0x7F), std::byte(0x80) };
    const auto ints = locateValues(DType::I8, i8, 4);
    QCOMPARE(ints->min->index, 1u);
    QCOMPARE(ints->min->value, -128.0);
    QCOMPARE(ints->max->index, 2u);
    QCOMPARE(ints->absMax->index, 1u); // |-128| > 127
    QVERIFY(!ints->firstNaN);

    const auto empty = locateValues(DType::F32, {}, 0);
    QVERIFY(empty && empty->count == 0 && !empty->min);
}

void tst_ValuesSummary::locateStopsAndRefusesShortData()
{
    const std::vector<std::byte> bytes = test::floatBytes(noise(1000, 1));
    std::stop_source stop;
    stop.request_stop();
    QVERIFY(!locateValues(DType::F32, bytes, 1000, stop.get_token()));
    QVERIFY(!locateValues(DType::F32, bytes, 1001)); // the data holds only 1000
    QVERIFY(locateValues(DType::F32, bytes, 1000));
}

void tst_ValuesSummary::heatmapMatchesBruteForce_data()
{
    QTest::addColumn<quint64>("rows");
    QTest::addColumn<quint64>("cols");
    QTest::addColumn<unsigned>("cellRows");
    QTest::addColumn<unsigned>("cellCols");
    QTest::addColumn<bool>("transposed");
    QTest::addColumn<bool>("bf16"); // else F32 (both have a column-wise fast path; transposed does not)
    QTest::newRow("37x23 into 5x7") << quint64(37) << quint64(23) << 5u << 7u << false << false;
    QTest::newRow("37x23 into 36x22") << quint64(37) << quint64(23) << 36u << 22u << false << false;
    QTest::newRow("H > R, W > C") << quint64(37) << quint64(23) << 50u << 40u << false << false;
    QTest::newRow("one cell") << quint64(37) << quint64(23) << 1u << 1u << false << false;
    QTest::newRow("transposed 23x37 into 4x9") << quint64(37) << quint64(23) << 4u << 9u << true << false;
    QTest::newRow("cell rows split across tasks")
        << quint64(3001) << quint64(997) << 3u << 5u << false << false;
    QTest::newRow("wide rows across blocks") << quint64(5) << quint64(9001) << 2u << 7u << false << false;
    QTest::newRow("BF16 37x23 into 5x7") << quint64(37) << quint64(23) << 5u << 7u << false << true;
    QTest::newRow("BF16 transposed") << quint64(37) << quint64(23) << 4u << 9u << true << true;
    QTest::newRow("BF16 across tasks") << quint64(3001) << quint64(997) << 3u << 5u << false << true;
}

void tst_ValuesSummary::heatmapMatchesBruteForce()
{
    QFETCH(quint64, rows);
    QFETCH(quint64, cols);
    QFETCH(unsigned, cellRows);
    QFETCH(unsigned, cellCols);
    QFETCH(bool, transposed);
    QFETCH(bool, bf16);
    std::vector<float> values = noise(rows * cols, 3);
    std::mt19937 rng(11);
    for (int k = 0; k < 40; ++k) {
        const float specials[] = { float(kNaN), float(kInf), float(-kInf) };
        values[rng() % values.size()] = specials[k % 3];
    }
    std::vector<std::byte> bytes = test::floatBytes(values);
    if (bf16) { // the upper halves: each value cut to the BF16 it starts with (NaN and ±Inf stay)
        std::vector<std::uint64_t> codes(values.size());
        for (std::size_t i = 0; i < values.size(); ++i) {
            std::uint32_t bits;
            std::memcpy(&bits, &values[i], 4);
            codes[i] = bits >> 16;
            bits &= 0xFFFF0000u;
            std::memcpy(&values[i], &bits, 4);
        }
        bytes = test::packCodes(DType::BF16, codes);
    }
    const std::vector<std::uint64_t> shape { rows, cols };
    std::string error;
    const StridedView view = transposed ? *planeView(shape, 1, 0, {}, error) : wholeView(shape);
    const std::uint64_t R = transposed ? cols : rows, C = transposed ? rows : cols;
    const auto at = [&](std::uint64_t r, std::uint64_t c) {
        return transposed ? values[c * cols + r] : values[r * cols + c];
    };

    const auto summary = summarizeHeatmap(
        bf16 ? DType::BF16 : DType::F32, bytes, view, cellRows, cellCols, error, {}, {}, 3);
    QVERIFY2(summary, error.c_str());
    const std::uint64_t H = std::min<std::uint64_t>(cellRows, R), W = std::min<std::uint64_t>(cellCols, C);
    QCOMPARE(summary->rows, R);
    QCOMPARE(summary->cols, C);
    QCOMPARE(std::uint64_t(summary->cellRows), H);
    QCOMPARE(std::uint64_t(summary->cellCols), W);
    for (std::uint64_t i = 0; i < H; ++i) {
        for (std::uint64_t j = 0; j < W; ++j) {
            Cell cell;
            for (std::uint64_t r = i * R / H; r < (i + 1) * R / H; ++r) {
                for (std::uint64_t c = j * C / W; c < (j + 1) * C / W; ++c) {
                    const double v = at(r, c);
                    if (std::isnan(v))
                        ++cell.nan;
                    else if (std::isinf(v))
                        ++(v > 0 ? cell.posInf : cell.negInf);
                    else {
                        cell.min = std::min(cell.min, v);
                        cell.max = std::max(cell.max, v);
                        cell.sum += v;
                        ++cell.finite;
                    }
                }
            }
            const std::size_t c = summary->cellIndex(i, j);
            QCOMPARE(summary->nan[c], cell.nan);
            QCOMPARE(summary->posInf[c], cell.posInf);
            QCOMPARE(summary->negInf[c], cell.negInf);
            QCOMPARE(summary->finite(i, j), cell.finite);
            if (cell.finite == 0) {
                QVERIFY(std::isnan(summary->mean[c]));
                continue;
            }
            QCOMPARE(summary->min[c], cell.min);
            QCOMPARE(summary->max[c], cell.max);
            const double mean = cell.sum / double(cell.finite);
            QVERIFY2(std::fabs(summary->mean[c] - mean) <= 1e-12 * std::max(1.0, std::fabs(mean)),
                qPrintable(u"cell %1,%2: mean %3 vs %4"_s.arg(i).arg(j).arg(summary->mean[c]).arg(mean)));
        }
    }
    // Each row and column maps back to the cell that covers it.
    for (std::uint64_t r = 0; r < R; ++r) {
        const std::uint32_t i = summary->cellRowOf(r);
        QVERIFY(summary->rowBegin(i) <= r && r < summary->rowBegin(i + 1));
    }
    for (std::uint64_t c = 0; c < C; ++c) {
        const std::uint32_t j = summary->cellColOf(c);
        QVERIFY(summary->colBegin(j) <= c && c < summary->colBegin(j + 1));
    }
}

void tst_ValuesSummary::heatmapShapes()
{
    std::string error;
    // A 1-D tensor is one row: a strip.
    const std::vector<float> line { 1, 2, 3, 4, 5, 6, 7 };
    const std::vector<std::uint64_t> lineShape { 7 };
    auto strip = summarizeHeatmap(DType::F32, test::floatBytes(line), wholeView(lineShape), 4, 3, error);
    QVERIFY(strip);
    QCOMPARE(strip->cellRows, 1u);
    QCOMPARE(strip->cellCols, 3u);
    QCOMPARE(strip->mean[0], 1.5); // columns 0..1
    QCOMPARE(strip->mean[2], 6.0); // columns ⌊2·7/3⌋ = 4 … 6: values 5, 6, 7
    // A slice of a 3-D tensor (the middle plane), and a 3-D view refused.
    std::vector<float> cube(2 * 3 * 4);
    for (std::size_t i = 0; i < cube.size(); ++i)
        cube[i] = float(i);
    const std::vector<std::uint64_t> cubeShape { 2, 3, 4 };
    const std::uint64_t fixed[3] = { 0, 1, 0 };
    const auto plane = summarizeHeatmap(
        DType::F32, test::floatBytes(cube), *planeView(cubeShape, 0, 2, fixed, error), 2, 1, error);
    QVERIFY(plane);
    QCOMPARE(plane->min[0], 4.0); // row 0 of the plane: elements 4..7
    QCOMPARE(plane->max[1], 19.0); // row 1: elements 16..19
    QVERIFY(!summarizeHeatmap(DType::F32, test::floatBytes(cube), wholeView(cubeShape), 2, 2, error));
    QVERIFY(QString::fromStdString(error).contains(u"two axes"_s));
    // An empty tensor has no cells; a scalar one.
    const std::vector<std::uint64_t> emptyShape { 0, 5 };
    const auto empty = summarizeHeatmap(DType::F32, {}, wholeView(emptyShape), 8, 8, error);
    QVERIFY(empty && empty->cellRows == 0 && empty->mean.empty());
    const std::vector<float> one { -2 };
    const auto scalar = summarizeHeatmap(
        DType::F32, test::floatBytes(one), wholeView(std::vector<std::uint64_t> {}), 8, 8, error);
    QVERIFY(scalar && scalar->cellRows == 1 && scalar->cellCols == 1 && scalar->mean[0] == -2);
}

void tst_ValuesSummary::heatmapStopsAndRefusesShortData()
{
    const std::vector<std::uint64_t> shape { 100, 100 };
    const std::vector<std::byte> bytes = test::floatBytes(noise(100 * 100, 2));
    std::string error;
    std::stop_source stop;
    stop.request_stop();
    QVERIFY(!summarizeHeatmap(DType::F32, bytes, wholeView(shape), 10, 10, error, stop.get_token()));
    QVERIFY(!summarizeHeatmap(
        DType::F32, std::span(bytes).first(bytes.size() - 1), wholeView(shape), 10, 10, error));
    QVERIFY(QString::fromStdString(error).contains(u"shorter than its shape"_s));
    std::uint64_t lastDone = 0, lastTotal = 0;
    QVERIFY(summarizeHeatmap(
        DType::F32, bytes, wholeView(shape), 10, 10, error, {}, [&](std::uint64_t d, std::uint64_t t) {
            QVERIFY(d > lastDone);
            lastDone = d;
            lastTotal = t;
        }));
    QCOMPARE(lastDone, 10000u);
    QCOMPARE(lastTotal, 10000u);
}

void tst_ValuesSummary::colours()
{
    const ColourScale signedScale = ColourScale::forRange(-2, 1, true);
    QVERIFY(signedScale.diverging);
    QCOMPARE(signedScale.position(0), 0.5);
    QCOMPARE(signedScale.position(-2), 0.0);
    QCOMPARE(signedScale.position(2), 1.0);
    QCOMPARE(signedScale.colour(0), (Rgb { 221, 221, 221 }));
    QCOMPARE(signedScale.colour(-2), (Rgb { 59, 76, 192 }));
    const ColourScale own = ColourScale::forRange(-2, 1, false);
    QCOMPARE(own.position(1), 1.0); // each side of 0 to its own extreme
    QCOMPARE(own.position(-1), 0.25);
    const ColourScale positive = ColourScale::forRange(1, 3, true);
    QVERIFY(!positive.diverging);
    QCOMPARE(positive.colour(1), (Rgb { 68, 1, 84 }));
    QCOMPARE(positive.colour(3), (Rgb { 253, 231, 37 }));
    QCOMPARE(positive.colour(kNaN), kNaNColour);
    QCOMPARE(positive.colour(-kInf), kNegInfColour);

    std::vector<float> values { 1, float(kNaN), 2, float(kInf), 3, float(-kInf), 1, 2 };
    const std::vector<std::uint64_t> shape { 1, 8 };
    std::string error;
    const auto summary
        = summarizeHeatmap(DType::F32, test::floatBytes(values), wholeView(shape), 1, 4, error);
    QCOMPARE(cellColour(*summary, 0, 0, positive), kNaNColour); // a NaN among finite values shows
    QCOMPARE(cellColour(*summary, 0, 1, positive), kPosInfColour);
    QCOMPARE(cellColour(*summary, 0, 2, positive), kNegInfColour);
    QCOMPARE(cellColour(*summary, 0, 3, positive), positive.colour(1.5));
}

void tst_ValuesSummary::clippedRange_data()
{
    QTest::addColumn<bool>("signedData");
    QTest::addColumn<int>("outliers"); // cells of 1000 (or -1000) among 2000 cells of −1 … 1 (or 0 … 1)
    QTest::addColumn<bool>("washedOut");
    QTest::newRow("signed, none") << true << 0 << false;
    QTest::newRow("signed, one") << true << 1 << true;
    QTest::newRow("positive, one") << false << 1 << true;
    // More outliers than 0.1 % of the cells are the data, not outliers: nothing is clipped.
    QTest::newRow("signed, many") << true << 50 << false;
}

void tst_ValuesSummary::clippedRange()
{
    QFETCH(bool, signedData);
    QFETCH(int, outliers);
    QFETCH(bool, washedOut);
    constexpr std::uint32_t kCells = 2000;
    std::vector<float> values(kCells);
    for (std::uint32_t k = 0; k < kCells; ++k)
        values[k] = signedData ? float(k) / (kCells - 1) * 2 - 1 : float(k) / (kCells - 1);
    for (int k = 0; k < outliers; ++k)
        values[std::size_t(k) * 7 + 3] = signedData && k % 2 ? -1000.0f : 1000.0f;
    std::string error;
    const std::vector<std::uint64_t> shape { 1, kCells };
    const auto summary
        = summarizeHeatmap(DType::F32, test::floatBytes(values), wholeView(shape), 1, kCells, error);
    QVERIFY2(summary, error.c_str());
    QCOMPARE(defaultColourRange(*summary), washedOut ? ColourRange::Clipped : ColourRange::Symmetric);

    const ColourScale full = scaleFor(*summary, ColourRange::Symmetric);
    QVERIFY(!full.clipped);
    const ColourScale clipped = scaleFor(*summary, ColourRange::Clipped);
    QCOMPARE(clipped.diverging, signedData);
    QCOMPARE(clipped.clipped, washedOut);
    if (!washedOut)
        return;
    // The range is the data's own (at most 0.1 % of 2000 cells, the one outlier, falls beyond),
    // and the outlier takes the end colour.
    QVERIFY2(clipped.hi <= 1.0 && clipped.hi > 0.99, qPrintable(QString::number(clipped.hi)));
    if (signedData)
        QCOMPARE(clipped.lo, -clipped.hi);
    else // the 0.1th percentile: at most 2 of the 2,000 cells lie below it
        QVERIFY2(clipped.lo >= 0.0 && clipped.lo < 0.001, qPrintable(QString::number(clipped.lo)));
    QCOMPARE(cellColour(*summary, 0, 3, clipped), clipped.colourAt(1.0));
    QCOMPARE(full.position(1.0), signedData ? 0.5005 : 0.001); // unclipped: the data is a sliver of the bar
    QCOMPARE(clipped.position(1.0), 1.0);
}

QTEST_GUILESS_MAIN(tst_ValuesSummary)
#include "tst_valuessummary.moc"
