// The Values and Heatmap panes on quantized weights: the grid shows the dequantized values in the
// logical shape (tiles of visible cells decoded on demand) and matches the fixtures' known floats
// for every scheme family; Locate and the heatmap work on dequantized values; "Raw codes" is one
// setting per document that the Histogram, Values and Heatmap panes all follow.
#include "core/io/checkpoint.h"
#include "core/quant/quantview.h"
#include "tests/support/quantfixtures.h"
#include "ui/document/checkpointview.h"
#include "ui/document/tensortreemodel.h"
#include "ui/hex/hexpane.h"
#include "ui/hex/hexview.h"
#include "ui/histogram/histogrampane.h"
#include "ui/values/exportdialog.h"
#include "ui/values/heatmappane.h"
#include "ui/values/heatmapview.h"
#include "ui/values/valuespane.h"
#include "ui/values/valuetablemodel.h"

#include <QAbstractItemModelTester>
#include <QCheckBox>
#include <QFile>
#include <QRandomGenerator>
#include <QSignalSpy>
#include <QSpinBox>
#include <QStandardPaths>
#include <QTableView>
#include <QTemporaryDir>
#include <QTest>
#include <QTreeView>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <optional>

using namespace Qt::StringLiterals;
using namespace stb;
using namespace stb::test;

namespace {

// Runs the dialog's export to `out` and waits for it: the file's bytes, nullopt when it failed.
std::optional<QByteArray> exportedBytes(ExportDialog &dialog, const QString &out)
{
    dialog.setTarget(out);
    QSignalSpy exported(&dialog, &ExportDialog::exported);
    QSignalSpy failed(&dialog, &ExportDialog::failed);
    if (!dialog.startExport()
        || !QTest::qWaitFor([&] { return exported.count() + failed.count() > 0; }, 20000)
        || exported.count() != 1)
        return std::nullopt;
    QFile file(out);
    if (!file.open(QIODevice::ReadOnly))
        return std::nullopt;
    return file.readAll();
}

} // namespace

class tst_QuantValues : public QObject {
    Q_OBJECT

private slots:
    void initTestCase();
    void gridShowsDequantized_data();
    void gridShowsDequantized();
    void locateFindsDequantizedMax();
    void heatmapSummarisesDequantized();
    void rawCodesIsOneSetting();
    void exportDialogDequantizes();
    void showCodeInHex_data();
    void showCodeInHex();
    void treeBadges_data();
    void treeBadges();
    void screenshots();

private:
    const Checkpoint::Tensor *tensor(const std::string &name) const;
    const QuantFixture &fixture(const std::string &weight) const;

    QTemporaryDir m_dir;
    std::vector<QuantFixture> m_fixtures;
    std::shared_ptr<const Checkpoint> m_checkpoint;
    std::shared_ptr<const QuantView> m_quant;
};

void tst_QuantValues::initTestCase()
{
    QStandardPaths::setTestModeEnabled(true);
    QVERIFY(m_dir.isValid());
    m_fixtures = { gptq("model.layers.0.mlp.down_proj", 64, 256, 4, 64), fp8Block("l.fp8", 200, 300),
        mxfp4("l.experts.gate_up_proj", 48, 6), bnb4("l.n", 40, 96, true, false), awq("l.a", 64, 256, 64),
        plainBf16("model.norm.weight", { 64 }) };
    std::string error;
    const std::string path = m_dir.filePath(u"quant.safetensors"_s).toStdString();
    QVERIFY2(writeFixtures(path, m_fixtures, error), error.c_str());
    m_checkpoint = Checkpoint::open(path, error);
    QVERIFY2(m_checkpoint, error.c_str());
    m_quant = std::make_shared<const QuantView>(QuantView::build(*m_checkpoint));
    QCOMPARE(m_quant->weights().size(), std::size_t(5));
}

const Checkpoint::Tensor *tst_QuantValues::tensor(const std::string &name) const
{
    for (const auto &t : m_checkpoint->tensors()) {
        if (t.info->name == name)
            return &t;
    }
    return nullptr;
}

const QuantFixture &tst_QuantValues::fixture(const std::string &weight) const
{
    return *std::find_if(
        m_fixtures.begin(), m_fixtures.end(), [&](const QuantFixture &f) { return f.weight == weight; });
}

void tst_QuantValues::gridShowsDequantized_data()
{
    QTest::addColumn<QString>("codes"); // the stored tensor selected in the tree
    QTest::addColumn<QString>("weight"); // its logical name
    QTest::newRow("gptq") << u"model.layers.0.mlp.down_proj.qweight"_s
                          << u"model.layers.0.mlp.down_proj.weight"_s;
    QTest::newRow("fp8-block") << u"l.fp8.weight"_s << u"l.fp8.weight"_s;
    QTest::newRow("mxfp4") << u"l.experts.gate_up_proj_blocks"_s << u"l.experts.gate_up_proj"_s;
    QTest::newRow("bnb-nf4") << u"l.n.weight"_s << u"l.n.weight"_s;
    QTest::newRow("awq") << u"l.a.qweight"_s << u"l.a.weight"_s;
}

void tst_QuantValues::gridShowsDequantized()
{
    QFETCH(QString, codes);
    QFETCH(QString, weight);
    const QuantFixture &f = fixture(weight.toStdString());
    const Checkpoint::Tensor *t = tensor(codes.toStdString());
    QVERIFY(t);

    ValuesPane pane(m_checkpoint);
    QAbstractItemModelTester tester(pane.model(), QAbstractItemModelTester::FailureReportingMode::QtTest);
    pane.setQuantView(m_quant);
    pane.resize(900, 600);
    pane.show();
    pane.showTensor(t);
    QVERIFY(pane.showsDequantized());
    QVERIFY(pane.rawCodesToggle()->isVisible());
    const ValueTableModel *model = pane.model();
    const std::uint64_t cols = f.shape.back(), rows = f.expected.size() / cols;
    QCOMPARE(std::uint64_t(model->rowCount()), rows);
    QCOMPARE(std::uint64_t(model->columnCount()), cols);
    QCOMPARE(model->shape(), f.shape);
    // Random cells and the last one (the last partial group or block), as the tool dequantizes.
    QRandomGenerator random(7);
    for (int k = 0; k < 40; ++k) {
        const int row = k == 0 ? int(rows) - 1 : int(random.bounded(quint32(rows)));
        const int col = k == 0 ? int(cols) - 1 : int(random.bounded(quint32(cols)));
        const double value = model->index(row, col).data(ValueTableModel::ValueRole).toDouble();
        const float expected = f.expected[std::size_t(row) * cols + std::size_t(col)];
        QVERIFY2(std::fabs(value - expected) <= 1e-6 * std::fabs(expected) + 1e-12,
            qPrintable(u"[%1, %2]: %3, expected %4"_s.arg(row).arg(col).arg(value).arg(expected)));
        QCOMPARE(model->index(row, col).data(ValueTableModel::FlatIndexRole).toULongLong(),
            quint64(row) * cols + quint64(col));
    }
    QVERIFY(pane.goToText(u"%1"_s.arg(rows * cols - 1)));
    QCOMPARE(pane.table()->currentIndex(), model->index(int(rows) - 1, int(cols) - 1));

    // Raw codes: the stored tensor as it is.
    pane.rawCodesToggle()->setChecked(true);
    QVERIFY(!pane.showsDequantized());
    QCOMPARE(model->shape(), t->info->shape);
    pane.rawCodesToggle()->setChecked(false);
    QVERIFY(pane.showsDequantized());

    // An ordinary tensor: no toggle.
    pane.showTensor(tensor("model.norm.weight"));
    QVERIFY(!pane.showsDequantized());
    QVERIFY(!pane.rawCodesToggle()->isVisible());
}

void tst_QuantValues::locateFindsDequantizedMax()
{
    const QuantFixture &f = fixture("model.layers.0.mlp.down_proj.weight");
    ValuesPane pane(m_checkpoint);
    pane.setQuantView(m_quant);
    pane.showTensor(tensor("model.layers.0.mlp.down_proj.qweight"));
    QSignalSpy located(&pane, &ValuesPane::located);
    pane.locate(LocateTarget::Max);
    QVERIFY(located.wait(10000));
    QCOMPARE(located.takeFirst().at(0).toBool(), true);
    const auto maxAt = quint64(std::max_element(f.expected.begin(), f.expected.end()) - f.expected.begin());
    QCOMPARE(pane.table()->currentIndex().data(ValueTableModel::FlatIndexRole).toULongLong(), maxAt);
    QVERIFY2(pane.messageText().startsWith(u"Maximum"_s), qPrintable(pane.messageText()));
}

void tst_QuantValues::heatmapSummarisesDequantized()
{
    const QuantFixture &f = fixture("l.fp8.weight");
    HeatmapPane pane(m_checkpoint);
    pane.setQuantView(m_quant);
    pane.resize(500, 400);
    pane.show();
    QSignalSpy shown(&pane, &HeatmapPane::summaryShown);
    pane.showTensor(tensor("l.fp8.weight"));
    QVERIFY(shown.wait(10000));
    QVERIFY(pane.showsDequantized());
    QVERIFY(pane.titleText().contains(u"dequantized"_s) || pane.titleText().contains(u"…"_s));
    const HeatmapSummary *s = pane.view()->summary();
    QCOMPARE(s->rows, quint64(200));
    QCOMPARE(s->cols, quint64(300));
    // The first and last cells against their values summed one by one.
    for (const auto &[i, j] :
        { std::pair<std::uint32_t, std::uint32_t> { 0, 0 }, { s->cellRows - 1, s->cellCols - 1 } }) {
        double lo = INFINITY, hi = -INFINITY, sum = 0;
        std::uint64_t n = 0;
        for (std::uint64_t r = s->rowBegin(i); r < s->rowBegin(i + 1); ++r) {
            for (std::uint64_t c = s->colBegin(j); c < s->colBegin(j + 1); ++c) {
                const double v = f.expected[r * 300 + c];
                lo = std::min(lo, v), hi = std::max(hi, v), sum += v, ++n;
            }
        }
        const std::size_t cell = s->cellIndex(i, j);
        QCOMPARE(s->min[cell], lo);
        QCOMPARE(s->max[cell], hi);
        QVERIFY(std::fabs(s->mean[cell] - sum / double(n)) <= 1e-12);
    }
    pane.rawCodesToggle()->setChecked(true);
    QVERIFY(shown.wait(10000));
    QVERIFY(!pane.showsDequantized());
}

void tst_QuantValues::rawCodesIsOneSetting()
{
    CheckpointView view(m_checkpoint, u"quant.safetensors"_s);
    view.resize(1000, 600);
    view.show();
    QVERIFY(view.selectPath(u"model.layers.0.mlp.down_proj.qweight"_s));
    QCheckBox *histogram = view.histogramPane()->rawCodesToggle();
    QCheckBox *values = view.valuesPane()->rawCodesToggle();
    QCheckBox *heatmap = view.heatmapPane()->rawCodesToggle();
    view.setCurrentPane(CheckpointView::ValuesTab);
    QTRY_VERIFY(view.valuesPane()->showsDequantized());
    values->setChecked(true);
    QVERIFY(histogram->isChecked());
    QVERIFY(heatmap->isChecked());
    QVERIFY(!view.valuesPane()->showsDequantized());
    QVERIFY(!view.heatmapPane()->showsDequantized());
    histogram->setChecked(false);
    QVERIFY(!values->isChecked());
    QVERIFY(!heatmap->isChecked());
    QVERIFY(view.valuesPane()->showsDequantized());
}

void tst_QuantValues::exportDialogDequantizes()
{
    const QuantFixture &f = fixture("model.layers.0.mlp.down_proj.weight");
    const Checkpoint::Tensor *codes = tensor("model.layers.0.mlp.down_proj.qweight");
    const auto index = std::size_t(codes - m_checkpoint->tensors().data());
    for (bool raw : { false, true }) {
        ExportDialog dialog(m_checkpoint, *codes, std::nullopt, nullptr,
            dequantizedTensor(*m_checkpoint, *m_quant, index), raw);
        QCOMPARE(dialog.dequantizing(), !raw);
        QCOMPARE(dialog.conversionText().contains(u"dequantized and written as float32"_s), !raw);
        const auto written = exportedBytes(dialog, m_dir.filePath(raw ? u"raw.npy"_s : u"dq.npy"_s));
        QVERIFY(written);
        const QByteArray &npy = *written;
        const int length = quint8(npy[8]) | (quint8(npy[9]) << 8);
        const QByteArray dict = npy.mid(10, length);
        if (raw) {
            QVERIFY2(dict.contains("'descr': '<i4'") && dict.contains("(32, 64)"), dict.constData());
            continue;
        }
        QVERIFY2(dict.contains("'descr': '<f4'") && dict.contains("(64, 256)"), dict.constData());
        QCOMPARE(npy.size() - 10 - length, qsizetype(f.expected.size() * 4));
        std::vector<float> back(f.expected.size());
        std::memcpy(back.data(), npy.constData() + 10 + length, back.size() * 4);
        for (std::size_t e = 0; e < back.size(); ++e)
            QVERIFY(std::fabs(back[e] - f.expected[e]) <= 1e-6f * std::fabs(f.expected[e]));
    }
    // CSV of the dequantized values: offered, described, and written in the logical shape.
    ExportDialog dialog(m_checkpoint, *codes, std::nullopt, nullptr,
        dequantizedTensor(*m_checkpoint, *m_quant, index), false);
    dialog.setFormat(ExportDialog::Format::Csv);
    QVERIFY2(dialog.messageText().contains(u"16,384 values"_s), qPrintable(dialog.messageText()));
    QVERIFY2(dialog.conversionText().contains(u"Dequantized values as text"_s), qPrintable(dialog.conversionText()));
    const auto csv = exportedBytes(dialog, m_dir.filePath(u"dq.csv"_s));
    QVERIFY(csv);
    const QList<QByteArray> lines = csv->trimmed().split('\n');
    QCOMPARE(lines.size(), qsizetype(64));
    for (qsizetype r = 0; r < lines.size(); ++r) {
        const QList<QByteArray> cells = lines[r].split(',');
        QCOMPARE(cells.size(), qsizetype(256));
        for (qsizetype c = 0; c < cells.size(); ++c) {
            const float expected = f.expected[std::size_t(r * 256 + c)];
            QVERIFY(std::fabs(cells[c].toFloat() - expected) <= 1e-6f * std::fabs(expected));
        }
    }
}

void tst_QuantValues::showCodeInHex_data()
{
    QTest::addColumn<QString>("codes");
    QTest::addColumn<quint64>("element"); // logical flat index
    QTest::addColumn<quint64>("byte"); // of the codes tensor, worked out from the layout by hand
    QTest::addColumn<QString>("note");
    // GPTQ [64, 256]: (3, 9) is input 9 of output 3: word (9 / 8, 3) = 67, nibble 1 = byte 0's high.
    QTest::newRow("gptq") << u"model.layers.0.mlp.down_proj.qweight"_s << quint64(3 * 256 + 9) << quint64(4 * 67)
                          << u"4-bit code is bits 4–7 of this byte; 2 values share the byte"_s;
    // AWQ [64, 256]: (5, 7) is in word (7, 0) = 56, nibble slot 6 (order 0 2 4 6 1 3 5 7) = byte 3's low.
    QTest::newRow("awq") << u"l.a.qweight"_s << quint64(5 * 256 + 7) << quint64(4 * 56 + 3)
                         << u"4-bit code is bits 0–3 of this byte; 2 values share the byte"_s;
    // FP8: one byte per value, nobody shares it.
    QTest::newRow("fp8-block") << u"l.fp8.weight"_s << quint64(1234) << quint64(1234)
                               << u"8-bit code is bits 0–7 of this byte."_s;
}

void tst_QuantValues::showCodeInHex()
{
    QFETCH(QString, codes);
    QFETCH(quint64, element);
    QFETCH(quint64, byte);
    QFETCH(QString, note);
    CheckpointView view(m_checkpoint, u"quant"_s);
    view.resize(1000, 700);
    view.show();
    QVERIFY(view.selectPath(codes));
    view.setCurrentPane(CheckpointView::ValuesTab);
    QVERIFY(view.valuesPane()->showsDequantized());
    QVERIFY(view.valuesPane()->goToElement(element));
    QVERIFY(view.valuesPane()->showCurrentInHex());
    QCOMPARE(view.currentPane(), CheckpointView::HexTab);
    const Checkpoint::Tensor *t = tensor(codes.toStdString());
    QCOMPARE(view.hexPane()->view()->cursorOffset(), m_checkpoint->fileOf(*t)->header().dataStart + t->info->begin + byte);
    QVERIFY2(view.hexPane()->elementText().contains(note), qPrintable(view.hexPane()->elementText()));
    if (const QString dir = qEnvironmentVariable("STB_SCREENSHOT_DIR"); !dir.isEmpty() && QTest::currentDataTag() == "gptq"_ba)
        QVERIFY(view.grab().save(dir + u"/quant-gptq-hex.png"_s));
}

void tst_QuantValues::treeBadges_data()
{
    QTest::addColumn<QString>("codes");
    QTest::addColumn<QString>("badge");
    QTest::addColumn<QString>("described"); // a fragment of the tooltip's full description
    QTest::newRow("gptq") << u"model.layers.0.mlp.down_proj.qweight"_s << u"gptq 4-bit"_s
                          << u"GPTQ 4-bit, groups of 64"_s;
    QTest::newRow("fp8-block") << u"l.fp8.weight"_s << u"fp8 block"_s << u"128×128 block"_s;
    QTest::newRow("mxfp4") << u"l.experts.gate_up_proj_blocks"_s << u"mxfp4"_s << u"E8M0"_s;
    QTest::newRow("bnb-nf4") << u"l.n.weight"_s << u"nf4"_s << u"bitsandbytes NF4, blocks of 64"_s;
    QTest::newRow("awq") << u"l.a.qweight"_s << u"awq 4-bit"_s << u"AWQ 4-bit"_s;
}

void tst_QuantValues::treeBadges()
{
    QFETCH(QString, codes);
    QFETCH(QString, badge);
    QFETCH(QString, described);
    TensorTreeModel model;
    model.setCheckpoint(m_checkpoint);
    model.setQuantView(m_quant);
    const QModelIndex row = model.indexOfPath(codes);
    QVERIFY(row.isValid());
    const QModelIndex dtype = model.index(row.row(), TensorTreeModel::DTypeColumn, row.parent());
    QCOMPARE(dtype.data().toString(), badge);
    QVERIFY(badge.size() <= 11); // fits the column beside "mixed" and "F8_E4M3"
    const QString tip = dtype.data(Qt::ToolTipRole).toString();
    QVERIFY2(tip.contains(described), qPrintable(tip));
}

void tst_QuantValues::screenshots()
{
    const QString dir = qEnvironmentVariable("STB_SCREENSHOT_DIR");
    if (dir.isEmpty())
        QSKIP("set STB_SCREENSHOT_DIR to save screenshots");
    // Models shaped like a small transformer's layers: an FP8 block-quantized one and a 4-bit GPTQ one.
    std::vector<QuantFixture> fp8Model, gptqModel;
    for (int layer = 0; layer < 2; ++layer) {
        const std::string prefix = "model.layers." + std::to_string(layer) + ".";
        fp8Model.push_back(fp8Block(prefix + "mlp.down_proj", 512, 1376));
        fp8Model.push_back(fp8Block(prefix + "mlp.up_proj", 1376, 512));
        fp8Model.push_back(plainBf16(prefix + "input_layernorm.weight", { 512 }));
        gptqModel.push_back(gptq(prefix + "mlp.down_proj", 512, 1376, 4, 128));
        gptqModel.push_back(gptq(prefix + "mlp.up_proj", 1376, 512, 4, 128));
        gptqModel.push_back(plainBf16(prefix + "input_layernorm.weight", { 512 }));
    }
    std::string error;
    for (const auto &[name, model] :
        { std::pair { u"fp8"_s, &fp8Model }, std::pair { u"gptq"_s, &gptqModel } }) {
        const QString file = m_dir.filePath(name + u"-shots.safetensors"_s);
        QVERIFY(writeFixtures(file.toStdString(), *model, error));
        CheckpointView view(Checkpoint::open(file.toStdString(), error), name + u".safetensors"_s);
        view.resize(1600, 1000);
        view.show();
        view.treeView()->expandAll();
        const bool fp8 = name == u"fp8"_s;
        view.setCurrentPane(fp8 ? CheckpointView::ValuesTab : CheckpointView::HeatmapTab);
        QVERIFY(view.selectPath(
            fp8 ? u"model.layers.0.mlp.down_proj.weight"_s : u"model.layers.0.mlp.down_proj.qweight"_s));
        if (fp8) {
            QTRY_VERIFY(view.valuesPane()->showsDequantized());
            view.valuesPane()->precisionBox()->setValue(5);
        } else {
            QTRY_VERIFY_WITH_TIMEOUT(
                view.heatmapPane()->view()->summary() && !view.heatmapPane()->isComputing(), 20'000);
        }
        QTest::qWait(200);
        QVERIFY(view.grab().save(dir + (fp8 ? u"/quant-fp8-values.png"_s : u"/quant-gptq-heatmap.png"_s)));
    }
}

QTEST_MAIN(tst_QuantValues)
#include "tst_quantvalues.moc"
