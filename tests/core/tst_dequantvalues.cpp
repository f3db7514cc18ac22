// The value views over dequantized values (core/quant/dequantvalues, dequantexport): rows, planes,
// locate, heatmap cells and .npy and CSV export of every scheme, against the fixtures' known floats
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
#include <cstdlib>
#include <cstring>
#include <functional>

using namespace Qt::StringLiterals;
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

// Every dequantized value of the one weight in the file `bytes` (written to `path`), or empty
// when it does not open or decode.
std::vector<float> decodeAll(const QByteArray &bytes, const std::string &path, const QByteArray &config)
{
    QFile file(QString::fromStdString(path));
    if (!file.open(QIODevice::WriteOnly) || file.write(bytes) != bytes.size())
        return {};
    file.close();
    std::string error;
    const auto checkpoint = Checkpoint::open(path, error);
    if (!checkpoint)
        return {};
    const auto parsed = parseQuantConfig(config.toStdString(), error);
    const QuantView view = QuantView::build(*checkpoint, parsed ? &*parsed : nullptr);
    if (view.weights().size() != 1)
        return {};
    const auto dq = Dequantizer::make(*checkpoint, view.weights().front(), error);
    std::vector<float> values(dq ? dq->elements() : 0);
    if (dq && !dq->decodeGuarded(0, values.size(), values.data()))
        return {};
    return values;
}

// The elements whose values differ bit for bit.
std::vector<std::uint64_t> changed(const std::vector<float> &a, const std::vector<float> &b)
{
    std::vector<std::uint64_t> out;
    for (std::size_t e = 0; e < std::min(a.size(), b.size()); ++e)
        if (std::memcmp(&a[e], &b[e], 4) != 0)
            out.push_back(e);
    return out;
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
    QTest::newRow("gptq_v2 2-bit") // v1 cannot store a zero-point of 0 (tst_quant)
        << Make([] { return gptq("l.q2", 32, 128, 2, 32, true); }) << 0.35
        << QByteArray(R"({"quantization_config": {"quant_method": "gptq", "checkpoint_format": "gptq_v2"}})");
    QTest::newRow("gptq 3-bit") << Make([] { return gptq("l.q3", 64, 256, 3, 64); }) << 0.15 << QByteArray();
    QTest::newRow("gptq 3-bit act-order")
        << Make([] { return gptq("l.q3a", 96, 128, 3, 32, false, true); }) << 0.15 << QByteArray();
    QTest::newRow("gptq_v2 3-bit")
        << Make([] { return gptq("l.v3", 32, 96, 3, 32, true); }) << 0.15
        << QByteArray(R"({"quantization_config": {"quant_method": "gptq", "checkpoint_format": "gptq_v2"}})");
    QTest::newRow("gptq_v2 4-bit")
        << Make([] { return gptq("l.v2", 64, 128, 4, 32, true); }) << 0.08
        << QByteArray(R"({"quantization_config": {"quant_method": "gptq", "checkpoint_format": "gptq_v2"}})");
    QTest::newRow("gptq act-order") << Make([] { return gptq("l.qa", 64, 256, 4, 64, false, true); }) << 0.08
                                    << QByteArray();
    QTest::newRow("awq") << Make([] { return awq("l.a", 64, 256, 64); }) << 0.08 << QByteArray();
    QTest::newRow("bnb-nf4") << Make([] { return bnb4("l.n", 40, 96, true, false); }) << 0.13 << QByteArray();
    QTest::newRow("bnb-fp4 bf16 storage")
        << Make([] { return bnb4("l.fb", 40, 96, false, false, DType::BF16); }) << 0.17 << QByteArray();
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

    // CSV: the plane as stored and transposed, a line per row; every value reads back to the very
    // float32 the decoder gives (shortest float32 text), and the refusals of stored CSV hold.
    for (bool transposed : { false, true }) {
        const auto plane = planeView(shape, transposed ? last : last - 1, transposed ? last - 1 : last, {},
            planeError);
        const auto matrix = asMatrix(*plane);
        const std::string csv = m_dir.filePath(QStringLiteral("%1-%2.csv")
                                                    .arg(QLatin1String(QTest::currentDataTag()))
                                                    .arg(transposed))
                                    .toStdString();
        QVERIFY2(exportDequantizedCsv(csv, path, *dq, *plane, reason), reason.c_str());
        QFile text(QString::fromStdString(csv));
        QVERIFY(text.open(QIODevice::ReadOnly));
        const QList<QByteArray> lines = text.readAll().split('\n');
        QCOMPARE(qsizetype(lines.size()), qsizetype(matrix->rows + 1)); // the last line ends in '\n'
        QVERIFY(lines.back().isEmpty());
        for (std::uint64_t r = 0; r < matrix->rows; ++r) {
            const QList<QByteArray> cells = lines[qsizetype(r)].split(',');
            QCOMPARE(qsizetype(cells.size()), qsizetype(matrix->cols));
            for (std::uint64_t c = 0; c < matrix->cols; ++c) {
                const float read = std::strtof(cells[qsizetype(c)].constData(), nullptr);
                float decoded = 0;
                QVERIFY(dq->decodeGuarded(plane->base + r * matrix->rowStride + c * matrix->colStride, 1, &decoded));
                if (std::memcmp(&read, &decoded, 4) != 0)
                    QFAIL(qPrintable(QStringLiteral("CSV (%1, %2) reads back %3, decoded %4 (%5)")
                                         .arg(r)
                                         .arg(c)
                                         .arg(double(read))
                                         .arg(double(decoded))
                                         .arg(QString::fromLatin1(cells[qsizetype(c)]))));
                QVERIFY(cells[qsizetype(c)].size() <= 15); // float32 text, not a double's 17 digits
            }
        }
    }
    QVERIFY(!exportDequantizedCsv(path, path, *dq, *whole, reason));

    // codeBytes ("Show in Hex" from a dequantized value): flipping the code's bits in the file
    // changes that value alone; flipping the whole byte(s) changes exactly `sharing` values.
    {
        QFile source(QString::fromStdString(path));
        QVERIFY(source.open(QIODevice::ReadOnly));
        const QByteArray original = source.readAll();
        const auto &codesTensor = checkpoint->tensors()[view.weights().front().tensor];
        const std::uint64_t start
            = checkpoint->fileOf(codesTensor)->header().dataStart + codesTensor.info->begin;
        const std::string flippedPath = m_dir.filePath(u"flipped.safetensors"_s).toStdString();
        const std::vector<float> before = decodeAll(original, flippedPath, config);
        QCOMPARE(before.size(), std::size_t(dq->elements()));
        const std::uint64_t n = dq->elements();
        for (const std::uint64_t e : { std::uint64_t(0), n - 1, n / 3 + 1, n / 2 + 10 }) {
            const CodeBytes code = dq->codeBytes(e);
            QVERIFY(code.length >= 1 && code.length <= 4 && code.shift < 8 && code.bits >= 2);
            QVERIFY(start + code.offset + code.length <= std::uint64_t(original.size()));
            // The code's bits inside the bytes given (a straddling code: the first word's part).
            QByteArray bits = original;
            for (unsigned b = 0; b < code.bits && code.shift + b < 8 * code.length; ++b) {
                const std::uint64_t bit = code.shift + b;
                bits[qsizetype(start + code.offset + bit / 8)] ^= char(1 << (bit % 8));
            }
            const auto one = changed(before, decodeAll(bits, flippedPath, config));
            if (one != std::vector<std::uint64_t> { e })
                QFAIL(qPrintable(QStringLiteral("element %1: flipping its code's bits changed %2 values, first %3")
                                     .arg(e)
                                     .arg(one.size())
                                     .arg(one.empty() ? -1 : qint64(one.front()))));
            QByteArray whole = original;
            for (std::uint64_t k = 0; k < code.length; ++k)
                whole[qsizetype(start + code.offset + k)] ^= char(0xFF);
            const auto all = changed(before, decodeAll(whole, flippedPath, config));
            QCOMPARE(std::uint64_t(all.size()), code.sharing);
            QVERIFY(std::find(all.begin(), all.end(), e) != all.end());
        }
    }
    const std::string refused = m_dir.filePath(u"refused.csv"_s).toStdString();
    QVERIFY(!exportDequantizedCsv(refused, path, *dq, wholeView(std::vector<std::uint64_t> { 2, 2, 2 }), reason));
    QVERIFY2(QString::fromStdString(reason).contains(u"one or two axes"_s), reason.c_str());
    const StridedView beyond { 1, { ViewAxis { dq->elements(), 1, 0 } } }; // one element past the end
    QVERIFY(!exportDequantizedCsv(refused, path, *dq, beyond, reason));
    QCOMPARE(QString::fromStdString(reason), u"the view leaves the weight's logical shape"_s);
    QVERIFY(!QFile::exists(QString::fromStdString(refused)));
}

QTEST_GUILESS_MAIN(tst_DequantValues)
#include "tst_dequantvalues.moc"
