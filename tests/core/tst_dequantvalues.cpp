// The value views over dequantized values (core/quant/dequantvalues, dequantexport): rows, planes,
// locate, heatmap cells and .npy export of every scheme, against the fixtures' known floats
// (tests/support/quantfixtures quantizes them independently of core/quant).
#include "core/io/checkpoint.h"
#include "core/quant/dequantexport.h"
#include "core/quant/dequantizer.h"
#include "core/quant/dequantvalues.h"
#include "core/quant/quantconfig.h"
#include "core/quant/quantview.h"
#include "tests/support/quantfixtures.h"

#include <QFile>
#include <QRandomGenerator>
#include <QTemporaryDir>
#include <QTest>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <functional>

using namespace stb;
using namespace stb::test;

using Make = std::function<QuantFixture()>;
Q_DECLARE_METATYPE(Make)

namespace {

bool close(double value, float expected)
{
    return std::fabs(value - double(expected)) <= 1e-6 * std::fabs(double(expected)) + 1e-12;
}

// The brute-force summary of a row-major R×C matrix: each cell's values visited one by one.
HeatmapSummary bruteHeatmap(
    const std::vector<float> &v, std::uint64_t rows, std::uint64_t cols, std::uint32_t h, std::uint32_t w)
{
    HeatmapSummary s = emptyHeatmap(rows, cols, h, w);
    s.specials.resize(s.min.size());
    for (std::uint32_t i = 0; i < s.cellRows; ++i) {
        for (std::uint32_t j = 0; j < s.cellCols; ++j) {
            const std::size_t c = s.cellIndex(i, j);
            double sum = 0;
            std::uint64_t finite = 0;
            for (std::uint64_t r = rows * i / s.cellRows; r < rows * (i + 1) / s.cellRows; ++r) {
                for (std::uint64_t k = cols * j / s.cellCols; k < cols * (j + 1) / s.cellCols; ++k) {
                    const double x = v[r * cols + k];
                    if (std::isnan(x)) {
                        ++s.specials[c].nan;
                    } else if (std::isinf(x)) {
                        ++(x > 0 ? s.specials[c].posInf : s.specials[c].negInf);
                    } else {
                        s.min[c] = std::min(s.min[c], x);
                        s.max[c] = std::max(s.max[c], x);
                        sum += x;
                        ++finite;
                    }
                }
            }
            s.mean[c] = finite ? sum / double(finite) : NAN;
        }
    }
    return s;
}

} // namespace

class tst_DequantValues : public QObject {
    Q_OBJECT

private slots:
    void initTestCase() { QVERIFY(m_dir.isValid()); }
    void scheme_data();
    void scheme();

private:
    QTemporaryDir m_dir;
};

void tst_DequantValues::scheme_data()
{
    QTest::addColumn<Make>("make");
    // Largest |dequantized - original| allowed, as a share of the largest |original| (tst_quant's).
    QTest::addColumn<double>("error");
    QTest::addColumn<QByteArray>("config");

    // Sides that are not multiples of the blocks and groups where the scheme allows it, so that
    // the last rows and columns fall in a partial block.
    QTest::newRow("fp8-block") << Make([] { return fp8Block("l.fp8", 200, 300); }) << 0.04 << QByteArray();
    QTest::newRow("fp8-tensor") << Make([] { return fp8Scaled("l.t", 64, 96, false); }) << 0.04
                                << QByteArray();
    QTest::newRow("fp8-channel") << Make([] { return fp8Scaled("l.c", 63, 97, true); }) << 0.04
                                 << QByteArray();
    QTest::newRow("mxfp4") << Make([] { return mxfp4("l.experts.gate_up_proj", 48, 6); }) << 0.26
                           << QByteArray();
    QTest::newRow("gptq 4-bit") << Make([] { return gptq("l.q", 64, 256, 4, 64); }) << 0.08 << QByteArray();
    QTest::newRow("gptq 8-bit") << Make([] { return gptq("l.q8", 32, 128, 8, 32); }) << 0.01 << QByteArray();
    QTest::newRow("gptq_v2 4-bit")
        << Make([] { return gptq("l.v2", 64, 128, 4, 32, true); }) << 0.08
        << QByteArray(R"({"quantization_config": {"quant_method": "gptq", "checkpoint_format": "gptq_v2"}})");
    QTest::newRow("gptq act-order") << Make([] { return gptq("l.qa", 64, 256, 4, 64, false, true); }) << 0.08
                                    << QByteArray();
    QTest::newRow("awq") << Make([] { return awq("l.a", 64, 256, 64); }) << 0.08 << QByteArray();
    QTest::newRow("bnb-nf4") << Make([] { return bnb4("l.n", 40, 96, true, false); }) << 0.13 << QByteArray();
    QTest::newRow("bnb-nf4 nested") << Make([] { return bnb4("l.nn", 128, 160, true, true); }) << 0.14
                                    << QByteArray();
    QTest::newRow("bnb-fp4 partial block")
        << Make([] { return bnb4("l.fp", 10, 100, false, false); }) << 0.3 << QByteArray();
    QTest::newRow("bnb-int8") << Make([] { return bnbInt8("l.i", 48, 80); }) << 0.005 << QByteArray();
    QTest::newRow("pack-quantized") << Make([] { return packQuantized("l.p", 48, 128, 32); }) << 0.08
                                    << QByteArray();
}

void tst_DequantValues::scheme()
{
    QFETCH(Make, make);
    QFETCH(double, error);
    QFETCH(QByteArray, config);

    const QuantFixture fixture = make();
    const std::string path
        = m_dir.filePath(QStringLiteral("%1.safetensors").arg(QLatin1String(QTest::currentDataTag())))
              .toStdString();
    std::string reason;
    QVERIFY2(writeFixtures(path, { fixture }, reason), reason.c_str());
    const auto checkpoint = Checkpoint::open(path, reason);
    QVERIFY2(checkpoint, reason.c_str());
    const auto parsed = parseQuantConfig(config.toStdString(), reason);
    const QuantView view = QuantView::build(*checkpoint, parsed ? &*parsed : nullptr);
    QCOMPARE(view.weights().size(), std::size_t(1));
    const auto dq = Dequantizer::make(*checkpoint, view.weights().front(), reason);
    QVERIFY2(dq, reason.c_str());
    const std::vector<float> &expected = fixture.expected;
    const std::uint64_t cols = fixture.shape.back(), rows = expected.size() / cols;
    QCOMPARE(dq->columns(), cols);
    QCOMPARE(dq->rows(), rows);
    float amax = 0;
    for (float v : fixture.original)
        amax = std::max(amax, std::fabs(v));

    // decodeRows: random runs of rows, and the last rows (the last partial group or block).
    QRandomGenerator random(13);
    for (int trial = 0; trial < 12; ++trial) {
        const std::uint64_t count = 1 + random.bounded(std::uint32_t(std::min<std::uint64_t>(rows, 5)));
        const std::uint64_t first
            = trial == 0 ? rows - count : random.bounded(std::uint32_t(rows - count + 1));
        std::vector<double> values(count * cols);
        QVERIFY(decodeRows(*dq, first, count, values.data()));
        for (std::uint64_t k = 0; k < values.size(); ++k) {
            const std::uint64_t e = first * cols + k;
            if (!close(values[k], expected[e]))
                QFAIL(qPrintable(QStringLiteral("row %1 col %2: %3, expected %4")
                                     .arg(e / cols)
                                     .arg(e % cols)
                                     .arg(values[k])
                                     .arg(expected[e])));
            QVERIFY(std::fabs(values[k] - fixture.original[e]) <= error * amax);
        }
    }
    std::vector<double> none(cols);
    QVERIFY(!decodeRows(*dq, rows, 1, none.data()));
    QVERIFY(!decodeRows(*dq, rows - 1, 2, none.data()));

    // decodeRect on the transposed plane (a column of the weight is a row of the plane) and
    // on the plane as stored, at a random rectangle touching the far corner.
    std::string planeError;
    const std::vector<std::uint64_t> &shape = fixture.shape;
    const std::size_t last = shape.size() - 1;
    for (bool transposed : { false, true }) {
        const std::size_t rowAxis = transposed ? last : last - 1, colAxis = transposed ? last - 1 : last;
        const auto plane = planeView(shape, rowAxis, colAxis, {}, planeError);
        QVERIFY2(plane, planeError.c_str());
        const auto matrix = asMatrix(*plane);
        const std::uint64_t r0 = matrix->rows / 2, c0 = matrix->cols / 3;
        const std::uint64_t nr = matrix->rows - r0, nc = matrix->cols - c0;
        std::vector<double> rect(nr * nc);
        QVERIFY(decodeRect(*dq, *plane, r0, nr, c0, nc, rect.data()));
        for (std::uint64_t r = 0; r < nr; ++r) {
            for (std::uint64_t c = 0; c < nc; ++c) {
                const std::uint64_t e
                    = plane->base + (r0 + r) * matrix->rowStride + (c0 + c) * matrix->colStride;
                QVERIFY(close(rect[r * nc + c], expected[e]));
            }
        }
        QVERIFY(!decodeRect(*dq, *plane, r0, nr + 1, c0, nc, rect.data()));
    }

    // Locate: against the positions read off the expected values (ties to the lowest index).
    const auto located = locateDequantized(*dq, {}, {}, 2);
    QVERIFY(located);
    QCOMPARE(located->count, quint64(expected.size()));
    const auto minAt = std::size_t(std::min_element(expected.begin(), expected.end()) - expected.begin());
    const auto maxAt = std::size_t(std::max_element(expected.begin(), expected.end()) - expected.begin());
    const auto absAt = std::size_t(std::max_element(expected.begin(), expected.end(), [](float a, float b) {
        return std::fabs(a) < std::fabs(b);
    }) - expected.begin());
    QVERIFY(located->min && located->max && located->absMax);
    QCOMPARE(located->min->index, quint64(minAt));
    QCOMPARE(located->max->index, quint64(maxAt));
    QCOMPARE(located->absMax->index, quint64(absAt));
    QVERIFY(close(located->max->value, expected[maxAt]));
    QVERIFY(!located->firstNaN && !located->firstPosInf && !located->firstNegInf);
    std::stop_source cancelled;
    cancelled.request_stop();
    QVERIFY(!locateDequantized(*dq, cancelled.get_token()));

    // Heatmap: odd cell counts (sides not multiples; more cells than rows clamps) against the
    // brute-force summary of the expected values.
    const auto whole = planeView(shape, last - 1, last, {}, planeError);
    for (const auto &[h, w] : { std::pair<std::uint32_t, std::uint32_t> { 7, 5 }, { 1000, 3 }, { 1, 1 } }) {
        const auto summary = summarizeDequantizedHeatmap(*dq, *whole, h, w, planeError, {}, {}, 2);
        QVERIFY2(summary, planeError.c_str());
        const HeatmapSummary reference
            = bruteHeatmap(expected, shape.size() > 2 ? shape[last - 1] : rows, cols, h, w);
        QCOMPARE(summary->cellRows, reference.cellRows);
        QCOMPARE(summary->cellCols, reference.cellCols);
        for (std::size_t c = 0; c < reference.mean.size(); ++c) {
            QVERIFY(close(summary->min[c], float(reference.min[c])));
            QVERIFY(close(summary->max[c], float(reference.max[c])));
            QVERIFY(std::fabs(summary->mean[c] - reference.mean[c])
                <= 1e-6 * amax); // values within 1e-6 of expected
            QCOMPARE(summary->nanCount(c), reference.nanCount(c));
        }
    }

    // Export: the whole weight as float32 in the logical shape, read back.
    const std::string out
        = m_dir.filePath(QStringLiteral("%1.npy").arg(QLatin1String(QTest::currentDataTag()))).toStdString();
    QVERIFY2(exportDequantizedNpy(out, path, *dq, wholeView(shape), reason), reason.c_str());
    QFile file(QString::fromStdString(out));
    QVERIFY(file.open(QIODevice::ReadOnly));
    const QByteArray npy = file.readAll();
    QVERIFY(npy.startsWith("\x93NUMPY\x01\x00"));
    const int headerLength = quint8(npy[8]) | (quint8(npy[9]) << 8);
    const QByteArray dict = npy.mid(10, headerLength);
    QVERIFY2(dict.contains("'descr': '<f4'"), dict.constData());
    QString shapeText;
    for (std::uint64_t s : shape)
        shapeText += QString::number(s) + (shape.size() == 1 ? QStringLiteral(",") : QStringLiteral(", "));
    shapeText.chop(shape.size() == 1 ? 0 : 2);
    QVERIFY2(dict.contains((QStringLiteral("'shape': (") + shapeText + u')').toLatin1()), dict.constData());
    QCOMPARE(qsizetype(npy.size() - 10 - headerLength), qsizetype(expected.size() * 4));
    std::vector<float> back(expected.size());
    std::memcpy(back.data(), npy.constData() + 10 + headerLength, back.size() * 4);
    for (std::size_t e = 0; e < back.size(); ++e)
        QVERIFY(close(back[e], expected[e]));
    // Never over the source, and a failure leaves nothing.
    QVERIFY(!exportDequantizedNpy(path, path, *dq, wholeView(shape), reason));
    QVERIFY(QFile::exists(QString::fromStdString(path)));
}

QTEST_GUILESS_MAIN(tst_DequantValues)
#include "tst_dequantvalues.moc"
