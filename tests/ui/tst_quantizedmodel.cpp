// The GUI on quantized checkpoints: the tree shows a quantized weight's scheme, logical shape and
// effective parameters (companions count none, and are its children); the Overview lists the schemes with their bits
// per weight and share; the histogram shows dequantized values unless "Raw codes" is ticked.
#include "ui/common/qtformat.h"
#include "ui/document/checkpointview.h"
#include "ui/document/overviewpane.h"
#include "ui/document/tensorfiltermodel.h"
#include "ui/document/tensortreemodel.h"
#include "ui/histogram/histogrampane.h"

#include "core/io/checkpoint.h"
#include "core/quant/quantview.h"
#include "tests/support/quantfixtures.h"

#include <QAbstractItemModelTester>
#include <QDir>
#include <QFile>
#include <QCheckBox>
#include <QStandardPaths>
#include <QTemporaryDir>
#include <QTest>
#include <QTreeView>

#include <algorithm>

using namespace Qt::StringLiterals;
using namespace stb;
using namespace stb::test;

class tst_QuantizedModel : public QObject {
    Q_OBJECT

private slots:
    void initTestCase();
    void treeShowsLogicalWeights();
    void companionsAreChildren();
    void companionsSelectable();
    void overviewListsSchemes();
    void overviewSaysNotRecognised();
    void histogramDequantizes();
    void screenshots();

private:
    std::shared_ptr<const Checkpoint> open(const QString &name) const;

    QTemporaryDir m_dir;
    QuantFixture m_down;
};

void tst_QuantizedModel::initTestCase()
{
    QStandardPaths::setTestModeEnabled(true);
    QVERIFY(m_dir.isValid());
    std::string error;
    // A 4-bit GPTQ model and an FP8 block-quantized one: quantized linear layers, BF16 norms.
    std::vector<QuantFixture> gptqModel, fp8Model;
    for (int layer = 0; layer < 2; ++layer) {
        const std::string prefix = "model.layers." + std::to_string(layer) + ".";
        gptqModel.push_back(gptq(prefix + "mlp.down_proj", 64, 256, 4, 64));
        gptqModel.push_back(gptq(prefix + "mlp.up_proj", 256, 64, 4, 32));
        gptqModel.push_back(plainBf16(prefix + "input_layernorm.weight", { 64 }));
        fp8Model.push_back(fp8Block(prefix + "mlp.down_proj", 256, 384));
        fp8Model.push_back(fp8Block(prefix + "mlp.up_proj", 384, 256));
        fp8Model.push_back(plainBf16(prefix + "input_layernorm.weight", { 256 }));
    }
    gptqModel.push_back(plainBf16("model.norm.weight", { 64 }));
    fp8Model.push_back(plainBf16("model.norm.weight", { 256 }));
    m_down = gptqModel.front();
    QVERIFY(writeFixtures(m_dir.filePath(u"gptq.safetensors"_s).toStdString(), gptqModel, error));
    QVERIFY(writeFixtures(m_dir.filePath(u"fp8.safetensors"_s).toStdString(), fp8Model, error));
}

std::shared_ptr<const Checkpoint> tst_QuantizedModel::open(const QString &name) const
{
    std::string error;
    auto checkpoint = Checkpoint::open(m_dir.filePath(name).toStdString(), error);
    if (!checkpoint)
        qFatal("%s", error.c_str());
    return checkpoint;
}

void tst_QuantizedModel::treeShowsLogicalWeights()
{
    const auto checkpoint = open(u"gptq.safetensors"_s);
    const auto view = std::make_shared<const QuantView>(QuantView::build(*checkpoint));
    TensorTreeModel model;
    QAbstractItemModelTester tester(&model, QAbstractItemModelTester::FailureReportingMode::QtTest);
    model.setCheckpoint(checkpoint);
    const std::uint64_t raw = model.totals({}).parameters;
    model.setQuantView(view);

    const QModelIndex codes = model.indexOfPath(u"model.layers.0.mlp.down_proj.qweight"_s);
    QVERIFY(codes.isValid());
    QCOMPARE(model.index(codes.row(), TensorTreeModel::DTypeColumn, codes.parent()).data().toString(),
        u"gptq 4-bit"_s);
    QCOMPARE(model.index(codes.row(), TensorTreeModel::ShapeColumn, codes.parent()).data().toString(),
        shapeText({ 64, 256 }));
    QCOMPARE(codes.data(TensorTreeModel::ParametersRole).toULongLong(), 64ull * 256);
    const QModelIndex scales = model.indexOfPath(u"model.layers.0.mlp.down_proj.scales"_s);
    QCOMPARE(scales.data(TensorTreeModel::ParametersRole).toULongLong(), 0ull);
    // Groups and the model count effective parameters, no longer packed words and scales.
    QCOMPARE(model.totals({}).parameters, view->effectiveParameters());
    QVERIFY(model.totals({}).parameters != raw);
    QCOMPARE(model.totals(model.indexOfPath(u"model.layers.0.mlp.down_proj"_s)).parameters, 64ull * 256);
}

void tst_QuantizedModel::companionsAreChildren()
{
    const auto checkpoint = open(u"gptq.safetensors"_s);
    const auto view = std::make_shared<const QuantView>(QuantView::build(*checkpoint));
    TensorTreeModel model;
    QAbstractItemModelTester tester(&model, QAbstractItemModelTester::FailureReportingMode::QtTest);
    TensorFilterModel filter;
    filter.setSourceModel(&model);
    QAbstractItemModelTester filterTester(&filter, QAbstractItemModelTester::FailureReportingMode::QtTest);
    model.setCheckpoint(checkpoint);
    const TensorTreeModel::Totals stored = model.totals({});
    const QModelIndex storedGroup = model.indexOfPath(u"model.layers.0.mlp.down_proj"_s);
    QCOMPARE(model.rowCount(storedGroup), 4); // g_idx, qweight, qzeros, scales side by side
    model.setQuantView(view);

    for (bool flat : { false, true }) {
        model.setFlat(flat);
        const QModelIndex codes = model.indexOfPath(u"model.layers.0.mlp.down_proj.qweight"_s);
        QVERIFY(codes.isValid());
        QVERIFY(!(model.flags(codes) & Qt::ItemNeverHasChildren));
        QCOMPARE(model.rowCount(codes), 3);
        QStringList children;
        for (int row = 0; row < 3; ++row) {
            const QModelIndex child = model.index(row, 0, codes);
            QCOMPARE(child.parent(), codes);
            QVERIFY(model.flags(child) & Qt::ItemNeverHasChildren);
            QVERIFY(model.tensorAt(child)); // a tensor row: selectable, shown like any tensor
            children << child.data(TensorTreeModel::FullPathRole).toString();
            QCOMPARE(child.data(TensorTreeModel::ParametersRole).toULongLong(), 0ull);
            QCOMPARE(model.indexOfPath(children.back()), child);
        }
        QCOMPARE(children,
            (QStringList { u"model.layers.0.mlp.down_proj.g_idx"_s, u"model.layers.0.mlp.down_proj.qzeros"_s,
                u"model.layers.0.mlp.down_proj.scales"_s }));
        if (!flat) {
            // Named by what follows the weight's group; the group holds the weight alone.
            QCOMPARE(model.index(2, 0, codes).data().toString(), u"scales"_s);
            QCOMPARE(model.rowCount(codes.parent()), 1);
        } else {
            // One root row per tensor that is not a companion: 4 weights, 3 norms.
            QCOMPARE(model.rowCount(), 7);
        }
        // Totals: the model's counts every tensor once, effective parameters; the weight's row
        // sums its companions like a group.
        QCOMPARE(model.totals({}).tensors, stored.tensors);
        QCOMPARE(model.totals({}).bytes, stored.bytes);
        QCOMPARE(model.totals({}).parameters, view->effectiveParameters());
        const TensorTreeModel::Totals weight = model.totals(codes);
        QCOMPARE(weight.tensors, 4u);
        QCOMPARE(weight.parameters, 64ull * 256);
        QCOMPARE(weight.bytes, m_down.bytes);
        QCOMPARE(codes.data(TensorTreeModel::TensorIndexRole).toInt() >= 0, true);

        // A filter on a companion's name shows it under its weight, and counts only what matches.
        filter.setPattern(u"down_proj.scales"_s);
        QCOMPARE(filter.matchCount(), 2u);
        const QModelIndex shownScales = filter.mapFromSource(model.indexOfPath(u"model.layers.0.mlp.down_proj.scales"_s));
        QVERIFY(shownScales.isValid());
        QCOMPARE(filter.mapToSource(shownScales.parent()), codes);
        QCOMPARE(filter.rowCount(shownScales.parent()), 1);
        filter.setPattern(u"down_proj.qweight"_s);
        QCOMPARE(filter.matchCount(), 2u);
        QCOMPARE(filter.rowCount(filter.mapFromSource(codes)), 0); // its companions do not match
        QCOMPARE(filter.totals({}).parameters, 2 * 64ull * 256);
        filter.setPattern({});
    }
}

void tst_QuantizedModel::companionsSelectable()
{
    CheckpointView view(open(u"gptq.safetensors"_s), u"gptq.safetensors"_s);
    QVERIFY(view.selectPath(u"model.layers.1.mlp.up_proj.qzeros"_s));
    QVERIFY(view.overviewPane()->plainText().contains(u"Companion of"_s));
    QVERIFY(view.selectPath(u"model.layers.1.mlp.up_proj.qweight"_s));
    QVERIFY(view.overviewPane()->plainText().contains(u"Logical shape"_s));
}

void tst_QuantizedModel::overviewListsSchemes()
{
    CheckpointView view(open(u"gptq.safetensors"_s), u"gptq.safetensors"_s);
    QString text = view.overviewPane()->plainText();
    QVERIFY2(text.contains(u"Quantization"_s), qPrintable(text));
    QVERIFY(text.contains(u"Effective parameters"_s));
    QVERIFY(text.contains(u"Bits/weight"_s));
    QVERIFY(text.contains(u"gptq"_s));
    QVERIFY(text.contains(u"Share"_s));
    QVERIFY(view.selectPath(u"model.layers.0.mlp.down_proj.qweight"_s));
    text = view.overviewPane()->plainText();
    QVERIFY2(text.contains(u"gptq, 4-bit, group 64"_s), qPrintable(text));
    QVERIFY(text.contains(u"Logical shape"_s));
    QVERIFY(text.contains(u"model.layers.0.mlp.down_proj.scales"_s));
    QVERIFY(view.selectPath(u"model.layers.0.mlp.down_proj.scales"_s));
    QVERIFY(view.overviewPane()->plainText().contains(u"Companion of"_s));
    // A group's overview is not the model's: no quantization section.
    QVERIFY(view.selectPath(u"model.layers.0"_s));
    QVERIFY(!view.overviewPane()->plainText().contains(u"Effective parameters"_s));
}

void tst_QuantizedModel::overviewSaysNotRecognised()
{
    // A config.json naming a method whose tensors match no layout read here.
    QVERIFY(QDir(m_dir.path()).mkpath(u"hqq"_s));
    QFile config(m_dir.filePath(u"hqq/config.json"_s));
    QVERIFY(config.open(QIODevice::WriteOnly));
    config.write(R"({"quantization_config": {"quant_method": "hqq<b>", "nbits": 4}})");
    config.close();
    std::string error;
    QVERIFY(writeFixtures(m_dir.filePath(u"hqq/model.safetensors"_s).toStdString(),
        { plainBf16("model.norm.weight", { 64 }) }, error));
    CheckpointView view(open(u"hqq/model.safetensors"_s), u"model.safetensors"_s);
    const QString text = view.overviewPane()->plainText();
    QVERIFY2(text.contains(u"Not recognised: config.json says quant_method “hqq<b>”"_s), qPrintable(text));
    QVERIFY(!text.contains(u"Effective parameters"_s));
}

void tst_QuantizedModel::histogramDequantizes()
{
    CheckpointView view(open(u"gptq.safetensors"_s), u"gptq.safetensors"_s);
    view.resize(1000, 600);
    view.setCurrentPane(CheckpointView::HistogramTab);
    view.show();
    HistogramPane *pane = view.histogramPane();
    QVERIFY(view.selectPath(u"model.layers.0.mlp.down_proj.qweight"_s));
    QTRY_VERIFY_WITH_TIMEOUT(pane->analysis() && !pane->isComputing(), 20'000);
    QVERIFY(pane->showsDequantized());
    QVERIFY(pane->rawCodesToggle()->isVisible());
    QCOMPARE(pane->analysis()->stats.count, quint64(64 * 256));
    const auto [lo, hi] = std::minmax_element(m_down.expected.begin(), m_down.expected.end());
    QCOMPARE(pane->analysis()->stats.min, double(*lo));
    QCOMPARE(pane->analysis()->stats.max, double(*hi));

    pane->rawCodesToggle()->setChecked(true);
    QTRY_VERIFY_WITH_TIMEOUT(pane->analysis() && !pane->isComputing(), 20'000);
    QVERIFY(!pane->showsDequantized());
    QCOMPARE(pane->analysis()->stats.count, quint64(256 / 8 * 64)); // the packed I32 words
    pane->rawCodesToggle()->setChecked(false);
    QTRY_VERIFY_WITH_TIMEOUT(pane->analysis() && !pane->isComputing(), 20'000);
    QCOMPARE(pane->analysis()->stats.count, quint64(64 * 256)); // from the cache

    // An ordinary tensor has no toggle.
    QVERIFY(view.selectPath(u"model.norm.weight"_s));
    QTRY_VERIFY_WITH_TIMEOUT(pane->analysis() && !pane->isComputing(), 20'000);
    QVERIFY(!pane->rawCodesToggle()->isVisible());
    QVERIFY(!pane->showsDequantized());
}

// Set STB_SCREENSHOT_DIR to write the README's pictures: each model's tree and overview, and a
// dequantized histogram.
void tst_QuantizedModel::screenshots()
{
    const QString dir = qEnvironmentVariable("STB_SCREENSHOT_DIR");
    if (dir.isEmpty())
        QSKIP("set STB_SCREENSHOT_DIR to save screenshots");
    for (const QString &name : { u"fp8"_s, u"gptq"_s }) {
        CheckpointView view(open(name + u".safetensors"_s), name + u".safetensors"_s);
        view.resize(1280, 800);
        view.show();
        view.treeView()->expandAll();
        QTest::qWait(100);
        QVERIFY(view.grab().save(dir + u"/quant-%1-overview.png"_s.arg(name)));
        view.setCurrentPane(CheckpointView::HistogramTab);
        QVERIFY(view.selectPath(name == u"fp8"_s ? u"model.layers.0.mlp.down_proj.weight"_s
                                                 : u"model.layers.0.mlp.down_proj.qweight"_s));
        QTRY_VERIFY_WITH_TIMEOUT(
            view.histogramPane()->analysis() && !view.histogramPane()->isComputing(), 20'000);
        QTest::qWait(100); // the chart lays its axes out on the next event loop pass
        QVERIFY(view.grab().save(dir + u"/quant-%1-histogram.png"_s.arg(name)));
    }
}

QTEST_MAIN(tst_QuantizedModel)
#include "tst_quantizedmodel.moc"
