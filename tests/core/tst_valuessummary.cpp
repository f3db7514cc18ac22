// Locate and the heatmap summary against brute force written here: values planted at the first,
// last and chunk-boundary positions (on one and on several threads), ties, every special value;
// heatmap cells on odd sizes (R, C not multiples of H, W; H > R; cell rows split across tasks),
// strips, transposed planes, cancellation and truncated data. F32, BF16 and F16 run through both
// kernel families (AVX-512 and portable; only the portable one where the CPU lacks AVX-512),
// which must give identical results; the kernels read every BF16 and F16 code as decodeCode does.
#include "core/stats/kernels/avx512.h"
#include "core/stats/kernels/valuescan.h"
#include "core/values/colourscale.h"
#include "core/values/heatmap.h"
#include "core/values/locate.h"
#include "core/values/stridedview.h"

#include "tests/support/valuedata.h"

#include <QTest>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <limits>
#include <random>
#include <vector>

using namespace Qt::StringLiterals;
using namespace stb;

Q_DECLARE_METATYPE(stb::DType)

namespace {

constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();
constexpr double kInf = std::numeric_limits<double>::infinity();
constexpr std::uint64_t kLocateChunk = std::uint64_t(1) << 20; // locate's chunk, to plant across it

// The AVX-512 kernels are switched off within a test to run the portable ones on the same data;
// this puts them back (STB_KERNELS=portable stays portable).
struct RestoreAvx512 {
    const bool wasEnabled = kernels::avx512::enabled();
    ~RestoreAvx512()
    {
        kernels::avx512::setEnabled(wasEnabled);
        kernels::avx2::setEnabled(true);
    }
};

const char *familyName(bool avx512)
{
    return avx512 ? "AVX-512" : "portable";
}

// The code of a 16-bit float dtype whose value is v (the first NaN code for NaN).
std::uint64_t codeOf(DType dtype, double v)
{
    for (std::uint64_t code = 0; code < 0x10000; ++code) {
        const double d = decodeCode(dtype, code);
        if (d == v || (std::isnan(d) && std::isnan(v)))
            return code;
    }
    qFatal("no code for the value");
}

// Element i of a float tensor's bytes set to v (exact in the dtype).
void plant(DType dtype, std::vector<std::byte> &bytes, std::size_t i, double v)
{
    if (dtype == DType::F32) {
        const float f = float(v);
        std::memcpy(bytes.data() + 4 * i, &f, 4);
        return;
    }
    const auto code = static_cast<std::uint16_t>(codeOf(dtype, v));
    std::memcpy(bytes.data() + 2 * i, &code, 2);
}

std::vector<float> noise(std::size_t n, unsigned seed)
{
    std::mt19937 rng(seed);
    std::uniform_real_distribution<float> dist(-1.0f, 1.0f);
    std::vector<float> values(n);
    for (float &v : values)
        v = dist(rng);
    return values;
}

// n values in (-1, 1) as a tensor of `dtype` (F32, BF16, F16): random codes below 1 in magnitude
// for the 16-bit ones.
std::vector<std::byte> noiseBytes(DType dtype, std::size_t n, unsigned seed)
{
    if (dtype == DType::F32)
        return test::floatBytes(noise(n, seed));
    const std::uint32_t below = dtype == DType::BF16 ? 0x3F80 : 0x3C00; // the code of 1.0
    std::mt19937 rng(seed);
    std::vector<std::byte> bytes(2 * n);
    for (std::size_t i = 0; i < n; ++i) {
        const auto code = static_cast<std::uint16_t>((rng() & 0x8000) | (rng() % below));
        std::memcpy(bytes.data() + 2 * i, &code, 2);
    }
    return bytes;
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
    void kernelsReadEveryCode_data();
    void kernelsReadEveryCode();
    void kernelsAddRowsLikeScalar_data();
    void kernelsAddRowsLikeScalar();
    void kernelsAddRowsFloatSums_data();
    void kernelsAddRowsFloatSums();
    void heatmapStopsAndRefusesShortData();
    void colours();
    void clippedRange_data();
    void clippedRange();
};

void tst_ValuesSummary::locatePlanted_data()
{
    QTest::addColumn<quint64>("position");
    QTest::addColumn<unsigned>("threads");
    QTest::addColumn<DType>("dtype");
    QTest::addColumn<bool>("avx512");
    const std::uint64_t n = 3 * kLocateChunk + 17;
    const std::pair<const char *, std::uint64_t> places[] = { { "first", 0 }, { "last", n - 1 },
        { "before boundary", kLocateChunk - 1 }, { "at boundary", kLocateChunk },
        { "after boundary", 2 * kLocateChunk + 1 }, { "block boundary", 2048 },
        { "end of a block's vectors", 2047 }, { "in the last block's tail", n - 2 } };
    for (const auto &[name, position] : places) {
        for (bool avx512 : { true, false }) {
            for (unsigned threads : { 1u, 4u }) {
                QTest::addRow("F32 %s, %u threads, %s", name, threads, familyName(avx512))
                    << quint64(position) << threads << DType::F32 << avx512;
            }
            for (DType dtype : { DType::BF16, DType::F16 }) {
                QTest::addRow("%s %s, %s", dtypeName(dtype).data(), name, familyName(avx512))
                    << quint64(position) << 4u << dtype << avx512;
            }
        }
    }
}

void tst_ValuesSummary::locatePlanted()
{
    QFETCH(quint64, position);
    QFETCH(unsigned, threads);
    QFETCH(DType, dtype);
    QFETCH(bool, avx512);
    RestoreAvx512 restore;
    kernels::avx512::setEnabled(avx512);
    const std::uint64_t n = 3 * kLocateChunk + 17;
    const std::vector<std::byte> values = noiseBytes(dtype, n, 7);
    // Each kind planted at `position` in a tensor of its own, with a later equal value as a tie.
    struct Plant {
        double value;
        std::optional<LocatedValue> LocateResult::*slot;
    };
    const Plant plants[] = { { 5.0, &LocateResult::max }, { -5.0, &LocateResult::min },
        { -7.0, &LocateResult::absMax }, { kNaN, &LocateResult::firstNaN },
        { kInf, &LocateResult::firstPosInf }, { -kInf, &LocateResult::firstNegInf } };
    for (const Plant &kind : plants) {
        std::vector<std::byte> planted = values;
        plant(dtype, planted, position, kind.value);
        if (position + 5 < n)
            plant(dtype, planted, position + 5, kind.value);
        const auto result = locateValues(dtype, planted, n, {}, {}, threads);
        QVERIFY(result);
        QCOMPARE(result->count, n);
        const auto &found = (*result).*kind.slot;
        QVERIFY(found);
        QCOMPARE(found->index, position);
        if (std::isnan(kind.value))
            QVERIFY(std::isnan(found->value));
        else
            QCOMPARE(found->value, kind.value);
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
    QTest::addColumn<bool>("transposed"); // (the kernels read contiguous rows only)
    QTest::addColumn<DType>("dtype");
    for (DType dtype : { DType::F32, DType::BF16, DType::F16 }) {
        const char *name = dtypeName(dtype).data();
        const auto row = [&](const char *what) -> QTestData & { return QTest::addRow("%s %s", name, what); };
        row("37x23 into 5x7") << quint64(37) << quint64(23) << 5u << 7u << false << dtype;
        row("37x23 into 36x22") << quint64(37) << quint64(23) << 36u << 22u << false << dtype;
        row("H > R, W > C") << quint64(37) << quint64(23) << 50u << 40u << false << dtype;
        row("one cell") << quint64(37) << quint64(23) << 1u << 1u << false << dtype;
        row("transposed 23x37 into 4x9") << quint64(37) << quint64(23) << 4u << 9u << true << dtype;
        row("cell rows split across tasks") << quint64(3001) << quint64(997) << 3u << 5u << false << dtype;
        // 2000×600 values a cell row, over a task's 2^20: two tasks merge into each.
        row("tasks merged into cell rows") << quint64(4000) << quint64(600) << 2u << 3u << false << dtype;
        row("wide rows across tiles") << quint64(5) << quint64(9001) << 2u << 7u << false << dtype;
    }
    QTest::newRow("I16 (decoded to doubles)")
        << quint64(37) << quint64(23) << 5u << 7u << false << DType::I16;
}

void tst_ValuesSummary::heatmapMatchesBruteForce()
{
    QFETCH(quint64, rows);
    QFETCH(quint64, cols);
    QFETCH(unsigned, cellRows);
    QFETCH(unsigned, cellCols);
    QFETCH(bool, transposed);
    QFETCH(DType, dtype);
    std::vector<float> values = noise(rows * cols, 3);
    std::mt19937 rng(11);
    for (int k = 0; k < 40; ++k) {
        const float specials[] = { float(kNaN), float(kInf), float(-kInf) };
        values[rng() % values.size()] = specials[k % 3];
    }
    std::vector<std::byte> bytes = test::floatBytes(values);
    if (dtype != DType::F32) { // each value replaced by one of the dtype (NaN and ±Inf stay)
        std::vector<std::uint64_t> codes(values.size());
        for (std::size_t i = 0; i < values.size(); ++i) {
            std::uint32_t bits;
            std::memcpy(&bits, &values[i], 4);
            if (dtype == DType::BF16) // the upper halves: each value cut to the BF16 it starts with
                codes[i] = bits >> 16;
            else if (dtype == DType::I16)
                codes[i] = std::isfinite(values[i]) ? std::uint16_t(std::int16_t(values[i] * 30000)) : 7;
            else if (std::isnan(values[i]))
                codes[i] = 0x7E00;
            else if (std::isinf(values[i]))
                codes[i] = values[i] > 0 ? 0x7C00 : 0xFC00;
            else // F16: a random code below 1 in magnitude, subnormals among them
                codes[i] = (bits & 0x80000000u ? 0x8000 : 0) | (rng() % 0x3C00);
            values[i] = static_cast<float>(decodeCode(dtype, codes[i]));
        }
        bytes = test::packCodes(dtype, codes);
    }
    const std::vector<std::uint64_t> shape { rows, cols };
    std::string error;
    const StridedView view = transposed ? *planeView(shape, 1, 0, {}, error) : wholeView(shape);
    const std::uint64_t R = transposed ? cols : rows, C = transposed ? rows : cols;
    const auto at = [&](std::uint64_t r, std::uint64_t c) {
        return transposed ? values[c * cols + r] : values[r * cols + c];
    };

    // Both kernel families, which must agree to the bit (means included).
    RestoreAvx512 restore;
    std::optional<HeatmapSummary> first;
    for (bool avx512 : { true, false }) {
        kernels::avx512::setEnabled(avx512);
        const auto summary = summarizeHeatmap(dtype, bytes, view, cellRows, cellCols, error, {}, {}, 3);
        QVERIFY2(summary, error.c_str());
        if (first) {
            QVERIFY(summary->min == first->min && summary->max == first->max);
            // Bitwise (NaN means and -0 included); memcmp is not given the null data() of an
            // empty vector (UBSan: null pointer argument).
            QVERIFY(summary->mean.size() == first->mean.size()
                && (summary->mean.empty()
                    || std::memcmp(summary->mean.data(), first->mean.data(), 8 * summary->mean.size()) == 0));
            QVERIFY(summary->specials.size() == first->specials.size()
                && (summary->specials.empty()
                    || std::memcmp(summary->specials.data(), first->specials.data(), 24 * summary->specials.size())
                        == 0));
            continue;
        }
        first = summary;
        const std::uint64_t H = std::min<std::uint64_t>(cellRows, R),
                            W = std::min<std::uint64_t>(cellCols, C);
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
                QCOMPARE(summary->nanCount(c), cell.nan);
                QCOMPARE(summary->posInfCount(c), cell.posInf);
                QCOMPARE(summary->negInfCount(c), cell.negInf);
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
    }
    // The picture's pixels (cell sizes found a row at a time) are the cells' colours one by one.
    const ColourScale scale = scaleFor(*first, true);
    const std::vector<Rgb> pixels = cellColours(*first, scale);
    QCOMPARE(pixels.size(), first->mean.size());
    for (std::uint32_t i = 0; i < first->cellRows; ++i) {
        for (std::uint32_t j = 0; j < first->cellCols; ++j)
            QVERIFY(pixels[first->cellIndex(i, j)] == cellColour(*first, i, j, scale));
    }

    // A summary for a picture keeps the same means and counts, bit for bit, and no extremes.
    const auto picture
        = summarizeHeatmap(dtype, bytes, view, cellRows, cellCols, error, {}, {}, 3, HeatmapCells::MeansOnly);
    QVERIFY2(picture, error.c_str());
    QVERIFY(picture->min.empty() && picture->max.empty() && !picture->finiteRange());
    QVERIFY(picture->cellRows == first->cellRows && picture->cellCols == first->cellCols);
    QVERIFY(picture->mean.size() == first->mean.size()
        && (picture->mean.empty()
            || std::memcmp(picture->mean.data(), first->mean.data(), 8 * picture->mean.size()) == 0));
    QVERIFY(picture->specials.size() == first->specials.size()
        && (picture->specials.empty()
            || std::memcmp(picture->specials.data(), first->specials.data(), 24 * picture->specials.size())
                == 0));

    // Each row and column maps back to the cell that covers it.
    for (std::uint64_t r = 0; r < R; ++r) {
        const std::uint32_t i = first->cellRowOf(r);
        QVERIFY(first->rowBegin(i) <= r && r < first->rowBegin(i + 1));
    }
    for (std::uint64_t c = 0; c < C; ++c) {
        const std::uint32_t j = first->cellColOf(c);
        QVERIFY(first->colBegin(j) <= c && c < first->colBegin(j + 1));
    }
}

void tst_ValuesSummary::kernelsReadEveryCode_data()
{
    QTest::addColumn<DType>("dtype");
    QTest::addColumn<bool>("avx512");
    for (DType dtype : { DType::BF16, DType::F16 }) {
        for (bool avx512 : { true, false })
            QTest::addRow("%s, %s", dtypeName(dtype).data(), familyName(avx512)) << dtype << avx512;
    }
}

// Every code of a 16-bit float as one row: each column's extremes and sum are its value when it
// is finite and untouched when not; the range of the finite codes is found, and one NaN spoils it.
void tst_ValuesSummary::kernelsReadEveryCode()
{
    QFETCH(DType, dtype);
    QFETCH(bool, avx512);
    RestoreAvx512 restore;
    kernels::avx512::setEnabled(avx512);
    std::vector<std::uint64_t> codes(0x10000);
    for (std::uint64_t code = 0; code < codes.size(); ++code)
        codes[code] = code;
    const std::vector<std::byte> bytes = test::packCodes(dtype, codes);
    std::vector<float> lo(codes.size(), float(kInf)), hi(codes.size(), float(-kInf));
    std::vector<double> sum(codes.size(), 0.0);
    QVERIFY(!kernels::addRowsToColumns(dtype, bytes.data(), 0, 1, codes.size(), lo.data(), hi.data(), sum.data()));
    for (std::uint64_t code = 0; code < codes.size(); ++code) {
        const double v = decodeCode(dtype, code);
        QCOMPARE(double(kernels::floatAt(dtype, bytes.data(), code)), v);
        if (!std::isfinite(v)) {
            QVERIFY2(lo[code] == float(kInf) && hi[code] == float(-kInf) && sum[code] == 0,
                qPrintable(QString::number(code, 16)));
            continue;
        }
        QVERIFY2(double(lo[code]) == v && double(hi[code]) == v && sum[code] == v,
            qPrintable(u"code %1: %2 %3 %4 vs %5"_s.arg(code, 0, 16)
                           .arg(lo[code])
                           .arg(hi[code])
                           .arg(sum[code])
                           .arg(v)));
    }
    // The positive finite codes run from 0 to the largest; a negative run from -0 down.
    const std::uint64_t infCode = codeOf(dtype, kInf);
    float rangeLo, rangeHi;
    QVERIFY(kernels::finiteRange(dtype, bytes.data(), infCode, rangeLo, rangeHi));
    QCOMPARE(double(rangeLo), 0.0);
    QCOMPARE(double(rangeHi), decodeCode(dtype, infCode - 1));
    QVERIFY(kernels::finiteRange(dtype, bytes.data() + 2 * 0x8000, infCode, rangeLo, rangeHi));
    QCOMPARE(double(rangeLo), -decodeCode(dtype, infCode - 1));
    for (std::size_t n : { std::size_t(infCode + 1), std::size_t(17), std::size_t(3) }) {
        // The first non-finite code placed last, after whole vectors and in a tail.
        QVERIFY(!kernels::finiteRange(dtype, bytes.data() + 2 * (infCode + 1 - n), n, rangeLo, rangeHi));
    }
}

void tst_ValuesSummary::kernelsAddRowsLikeScalar_data()
{
    QTest::addColumn<DType>("dtype");
    QTest::addColumn<int>("family"); // 0: AVX-512, 1: AVX2, 2: GCC's generic vectors
    QTest::addColumn<quint64>("rows");
    QTest::addColumn<quint64>("cols");
    QTest::addColumn<quint64>("stride"); // elements from one row to the next (≥ cols)
    QTest::addColumn<bool>("special");   // a NaN, +Inf and -Inf planted
    struct Shape {
        const char *name;
        std::uint64_t rows, cols, stride;
    };
    // Row counts below, at and past a block of rows (kernels::kRowBlock = 8); column counts with
    // and without a tail after the last whole vector; rows with a gap between them.
    const Shape shapes[] = { { "1x17", 1, 17, 17 }, { "8x16", 8, 16, 16 }, { "9x33", 9, 33, 33 },
        { "23x100 stride 103", 23, 100, 103 }, { "17x1030", 17, 1030, 1030 } };
    for (DType dtype : { DType::F32, DType::BF16, DType::F16 }) {
        for (int family : { 0, 1, 2 }) {
            for (const Shape &shape : shapes) {
                for (bool special : { false, true }) {
                    QTest::addRow("%s %s, %s%s", dtypeName(dtype).data(), shape.name,
                        family == 0 ? "AVX-512" : family == 1 ? "AVX2" : "generic vectors",
                        special ? ", NaN and Inf" : "")
                        << dtype << family << quint64(shape.rows) << quint64(shape.cols) << quint64(shape.stride)
                        << special;
                }
            }
        }
    }
}

// The vector kernels carry columns down blocks of rows in registers, unmasked until a sum shows
// a value not finite: lane for lane and row for row they must give the scalar definition's
// extremes and sums, bit for bit, in each family the CPU can run.
void tst_ValuesSummary::kernelsAddRowsLikeScalar()
{
    QFETCH(DType, dtype);
    QFETCH(int, family);
    QFETCH(quint64, rows);
    QFETCH(quint64, cols);
    QFETCH(quint64, stride);
    QFETCH(bool, special);
    if ((family == 0 && !kernels::avx512::supported()) || (family == 1 && !kernels::avx2::supported()))
        QSKIP("this CPU cannot run that family");
    RestoreAvx512 restore;
    kernels::avx512::setEnabled(family == 0);
    kernels::avx2::setEnabled(family == 1);
    std::vector<std::byte> bytes = noiseBytes(dtype, rows * stride, 7);
    if (special) {
        plant(dtype, bytes, 0, kNaN);
        plant(dtype, bytes, (rows - 1) * stride + cols - 1, kInf);
        plant(dtype, bytes, rows / 2 * stride + cols / 2, -kInf);
    }
    const std::size_t size = dtype == DType::F32 ? 4 : 2;
    std::vector<float> lo(cols, 0.25f), hi(cols, -0.25f), wantLo = lo, wantHi = hi;
    std::vector<double> sum(cols, 0.5), wantSum = sum;
    const bool finite = kernels::addRowsToColumns(
        dtype, bytes.data(), stride * size, rows, cols, lo.data(), hi.data(), sum.data());
    const bool wantFinite = kernels::addRowsToColumnsScalar(
        dtype, bytes.data(), stride * size, rows, cols, wantLo.data(), wantHi.data(), wantSum.data());
    QCOMPARE(finite, wantFinite);
    QCOMPARE(finite, !special);
    QVERIFY(std::memcmp(lo.data(), wantLo.data(), cols * sizeof(float)) == 0);
    QVERIFY(std::memcmp(hi.data(), wantHi.data(), cols * sizeof(float)) == 0);
    QVERIFY(std::memcmp(sum.data(), wantSum.data(), cols * sizeof(double)) == 0);
    // A fresh run starts from +Inf, -Inf and +0 whatever the arrays held (NaN here).
    std::fill(lo.begin(), lo.end(), float(kNaN));
    std::fill(hi.begin(), hi.end(), float(kNaN));
    std::fill(sum.begin(), sum.end(), kNaN);
    kernels::startColumns(cols, wantLo.data(), wantHi.data(), wantSum.data());
    QCOMPARE(kernels::addRowsToColumns(
                 dtype, bytes.data(), stride * size, rows, cols, lo.data(), hi.data(), sum.data(), true),
        kernels::addRowsToColumnsScalar(
            dtype, bytes.data(), stride * size, rows, cols, wantLo.data(), wantHi.data(), wantSum.data()));
    QVERIFY(std::memcmp(lo.data(), wantLo.data(), cols * sizeof(float)) == 0);
    QVERIFY(std::memcmp(hi.data(), wantHi.data(), cols * sizeof(float)) == 0);
    QVERIFY(std::memcmp(sum.data(), wantSum.data(), cols * sizeof(double)) == 0);
}

void tst_ValuesSummary::kernelsAddRowsFloatSums_data()
{
    QTest::addColumn<int>("family"); // as in kernelsAddRowsLikeScalar
    // 0: like weights; 1: a block's magnitudes near 2^24 apart; 2: the later rows 2^50 times the
    // first block's; 3: magnitudes 2^40 apart, subnormals and zeros; 4: a first block whose float
    // sum is exact (13 binades apart) or rounds (14)
    QTest::addColumn<int>("kind");
    QTest::addColumn<quint64>("rows");
    QTest::addColumn<quint64>("cols");
    for (int family : { 0, 1, 2 }) {
        for (int kind : { 0, 1, 2, 3, 4 }) {
            for (auto [rows, cols] : { std::pair<quint64, quint64> { 1, 16 }, { 8, 48 }, { 23, 100 },
                     { 148, 4096 }, { 9, 4100 } }) {
                QTest::addRow("%s, kind %d, %llux%llu",
                    family == 0 ? "AVX-512" : family == 1 ? "AVX2" : "generic vectors", kind,
                    static_cast<unsigned long long>(rows), static_cast<unsigned long long>(cols))
                    << family << kind << rows << cols;
            }
        }
    }
}

// The AVX2 kernel adds fresh BF16 runs in float 8 rows at a time where no sum can round
// (valuescanavx2.cpp): on values like a model's weights, on magnitudes just inside and outside
// its limits, and where adding a block's sum at once would round differently from adding its
// values one by one (tiny values first, then huge ones), the sums must stay the scalar ones.
void tst_ValuesSummary::kernelsAddRowsFloatSums()
{
    QFETCH(int, family);
    QFETCH(int, kind);
    QFETCH(quint64, rows);
    QFETCH(quint64, cols);
    if ((family == 0 && !kernels::avx512::supported()) || (family == 1 && !kernels::avx2::supported()))
        QSKIP("this CPU cannot run that family");
    RestoreAvx512 restore;
    kernels::avx512::setEnabled(family == 0);
    kernels::avx2::setEnabled(family == 1);
    std::mt19937 rng(11 + kind);
    std::vector<std::byte> bytes(2 * rows * cols);
    // A BF16 code of magnitude (1 + m/128)·2^(e - 127), or a subnormal for e = 0.
    const auto code = [&](int e) {
        return static_cast<std::uint16_t>((rng() & 0x8000) | (std::clamp(e, 0, 254) << 7) | (rng() & 0x7F));
    };
    for (std::uint64_t r = 0; r < rows; ++r) {
        for (std::uint64_t c = 0; c < cols; ++c) {
            const int base = 121 + int(c % 5); // about 0.02 to 0.5
            int e = base - int(rng() % 8);
            std::uint16_t value = code(e);
            const unsigned pick = rng() % 64;
            if (kind == 0 && pick == 0)
                value = 0;
            if (kind == 1 && pick < 8) // 12 to 19 binades below: around the limit of a float sum
                value = code(base - 12 - int(pick));
            if (kind == 3 && pick < 4) // far below, a subnormal, or zero
                value = pick < 2 ? code(base - 40) : pick == 2 ? code(0) : 0;
            if (kind == 2) // values 2^-50 of the later ones in the first block
                value = code(r < 8 ? base - 50 : base + int(c % 3));
            if (kind == 4 && r < 8) // 7 values just below 2^(e+1), then one with its lowest bit set
                value = static_cast<std::uint16_t>(((r < 7 ? base : base - 13 - int(c % 2)) << 7) | 0x7F);
            std::memcpy(bytes.data() + 2 * (r * cols + c), &value, 2);
        }
    }
    std::vector<float> lo(cols, float(kNaN)), hi(cols, float(kNaN)), wantLo(cols), wantHi(cols);
    std::vector<double> sum(cols, kNaN), wantSum(cols);
    kernels::startColumns(cols, wantLo.data(), wantHi.data(), wantSum.data());
    QVERIFY(kernels::addRowsToColumns(
        DType::BF16, bytes.data(), 2 * cols, rows, cols, lo.data(), hi.data(), sum.data(), true));
    QVERIFY(kernels::addRowsToColumnsScalar(
        DType::BF16, bytes.data(), 2 * cols, rows, cols, wantLo.data(), wantHi.data(), wantSum.data()));
    QVERIFY(std::memcmp(lo.data(), wantLo.data(), cols * sizeof(float)) == 0);
    QVERIFY(std::memcmp(hi.data(), wantHi.data(), cols * sizeof(float)) == 0);
    for (std::uint64_t c = 0; c < cols; ++c)
        QVERIFY2(std::memcmp(&sum[c], &wantSum[c], sizeof(double)) == 0,
            qPrintable(u"column %1: %2 vs %3"_s.arg(c).arg(sum[c], 0, 'g', 17).arg(wantSum[c], 0, 'g', 17)));
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
    QVERIFY(strip->specials.empty()); // no counts kept when every value is finite
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
    QCOMPARE(summary->specials.size(), 4u);
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
    // The one-pass default is that range's scale.
    const ColourScale chosen = scaleFor(*summary, defaultColourRange(*summary)),
                      byDefault = defaultScale(*summary);
    QVERIFY(byDefault.diverging == chosen.diverging && byDefault.lo == chosen.lo && byDefault.hi == chosen.hi
        && byDefault.clipped == chosen.clipped);

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
