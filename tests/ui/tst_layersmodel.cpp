// The Layers mode of the tensor tree and the Depth pane: rows of a mixture-of-experts model
// (repeats, roles, nested experts collapsed per layer, blocks, tensors outside any repeat),
// deviations marked with their list in a tooltip, all under QAbstractItemModelTester; the
// pane's profile computed in the background with outliers marked and a click selecting a tensor.
#include "ui/charts/depthchart.h"
#include "ui/compare/comparedepthpane.h"
#include "ui/document/checkpointview.h"
#include "ui/layers/depthpane.h"
#include "ui/layers/depthview.h"
#include "ui/layers/layersmodel.h"

#include "core/compare/compareresult.h"
#include "core/format/writer.h"
#include "tests/support/testfiles.h"

#include <QAbstractItemModelTester>
#include <QSignalSpy>
#include <QTabWidget>
#include <QTemporaryDir>
#include <QTest>
#include <QTreeView>

#include <random>

using namespace Qt::StringLiterals;
using namespace stb;

class tst_LayersModel : public QObject {
    Q_OBJECT

private slots:
    void rows();
    void deviationsAreMarked();
    void tensorLookup();
    void depthPaneProfile();
    void compareDepth();
    void checkpointViewLayersMode();

private:
    std::shared_ptr<const Checkpoint> write(const std::vector<TensorSpec> &specs,
        const std::function<float(std::size_t, std::size_t)> &value = {});
    QTemporaryDir m_dir;
    int m_files = 0;
};

std::shared_ptr<const Checkpoint> tst_LayersModel::write(
    const std::vector<TensorSpec> &specs, const std::function<float(std::size_t, std::size_t)> &value)
{
    return test::writeCheckpoint(
        m_dir.filePath(u"m%1.safetensors"_s.arg(++m_files)).toStdString(), specs, value);
}

namespace {

std::vector<TensorSpec> moeSpecs(int layers, int experts)
{
    std::vector<TensorSpec> specs { { "model.embed_tokens.weight", DType::F32, { 8, 4 } },
        { "lm_head.weight", DType::F32, { 8, 4 } } };
    for (int l = 0; l < layers; ++l) {
        const std::string layer = "model.layers." + std::to_string(l) + ".";
        specs.push_back({ layer + "input_layernorm.weight", DType::F32, { 4 } });
        specs.push_back({ layer + "self_attn.q_proj.weight", DType::F32, { 4, 4 } });
        specs.push_back({ layer + "mlp.gate.weight", DType::F32, { 2, 4 } });
        for (int e = 0; e < experts; ++e) {
            specs.push_back(
                { layer + "mlp.experts." + std::to_string(e) + ".up_proj.weight", DType::F32, { 4, 4 } });
            specs.push_back(
                { layer + "mlp.experts." + std::to_string(e) + ".down_proj.weight", DType::F32, { 4, 4 } });
        }
    }
    return specs;
}

QModelIndex child(const QAbstractItemModel &model, const QModelIndex &parent, const QString &text)
{
    for (int row = 0; row < model.rowCount(parent); ++row) {
        const QModelIndex index = model.index(row, 0, parent);
        if (index.data().toString() == text)
            return index;
    }
    return {};
}

QStringList texts(const QAbstractItemModel &model, const QModelIndex &parent)
{
    QStringList out;
    for (int row = 0; row < model.rowCount(parent); ++row)
        out << model.index(row, 0, parent).data().toString();
    return out;
}

} // namespace

void tst_LayersModel::rows()
{
    LayersModel model;
    QAbstractItemModelTester tester(&model, QAbstractItemModelTester::FailureReportingMode::QtTest);
    model.setCheckpoint(write(moeSpecs(3, 4)));

    QCOMPARE(texts(model, {}),
        (QStringList {
            u"model.layers.{0\u20132} \u00d7 3"_s, u"lm_head.weight"_s, u"model.embed_tokens.weight"_s }));
    const QModelIndex layers = model.index(0, 0);
    QCOMPARE(model.kind(layers), LayersModel::Kind::Repeat);
    QCOMPARE(model.index(0, LayersModel::BlocksColumn).data().toString(), u"3"_s);
    QCOMPARE(texts(model, layers),
        (QStringList { u"input_layernorm.weight"_s, u"mlp.gate.weight"_s, u"self_attn.q_proj.weight"_s,
            u"mlp.experts.{0\u20133} \u00d7 4 in 3 blocks"_s, u"layers.0"_s, u"layers.1"_s, u"layers.2"_s }));
    const QModelIndex role = model.index(2, 0, layers);
    QCOMPARE(model.kind(role), LayersModel::Kind::Role);
    QCOMPARE(model.index(2, LayersModel::ShapeColumn, layers).data().toString(), u"[4, 4]"_s);
    QCOMPARE(model.index(2, LayersModel::BlocksColumn, layers).data().toString(), u"3"_s);

    // A block: its tensors, then its experts collapsed like a repeat.
    const QModelIndex block = child(model, layers, u"layers.1"_s);
    QCOMPARE(texts(model, block),
        (QStringList { u"input_layernorm.weight"_s, u"mlp.gate.weight"_s, u"self_attn.q_proj.weight"_s,
            u"mlp.experts.{0\u20133} \u00d7 4"_s }));
    const QModelIndex experts = child(model, block, u"mlp.experts.{0\u20133} \u00d7 4"_s);
    QCOMPARE(model.kind(experts), LayersModel::Kind::Group);
    QCOMPARE(texts(model, experts),
        (QStringList { u"experts.0"_s, u"experts.1"_s, u"experts.2"_s, u"experts.3"_s }));
    const QModelIndex expert = model.index(2, 0, experts);
    QCOMPARE(texts(model, expert), (QStringList { u"down_proj.weight"_s, u"up_proj.weight"_s }));
    const QModelIndex tensor = model.index(1, 0, expert);
    const int t = tensor.data(LayersModel::TensorIndexRole).toInt();
    QVERIFY(t >= 0);
    QCOMPARE(model.tensorAt(tensor), static_cast<std::size_t>(t));

    // The nested summary row: the experts' roles over every layer.
    const QModelIndex summary = child(model, layers, u"mlp.experts.{0\u20133} \u00d7 4 in 3 blocks"_s);
    QCOMPARE(model.repeatAt(summary)->prefix, "model.layers.{N}.mlp.experts");
    QCOMPARE(texts(model, summary), (QStringList { u"down_proj.weight"_s, u"up_proj.weight"_s }));
    QCOMPARE(model.index(0, LayersModel::BlocksColumn, summary).data().toString(), u"12"_s);

    model.setCheckpoint(write(moeSpecs(1, 1)));
    QCOMPARE(model.repeats().size(), 0u);
    QCOMPARE(model.rowCount(), static_cast<int>(moeSpecs(1, 1).size()));
}

void tst_LayersModel::deviationsAreMarked()
{
    auto specs = moeSpecs(4, 2);
    for (auto &spec : specs) {
        if (spec.name == "model.layers.2.self_attn.q_proj.weight")
            spec.shape = { 4, 2 };
    }
    std::erase_if(
        specs, [](const TensorSpec &s) { return s.name == "model.layers.3.mlp.experts.1.up_proj.weight"; });
    LayersModel model;
    QAbstractItemModelTester tester(&model, QAbstractItemModelTester::FailureReportingMode::QtTest);
    model.setCheckpoint(write(specs));
    const QModelIndex layers = model.index(0, 0);
    QCOMPARE(model.index(0, LayersModel::DeviationsColumn).data().toString(), u"2"_s); // with the experts'
    QVERIFY(!layers.data(Qt::DecorationRole).isNull());
    QVERIFY(layers.data(Qt::ToolTipRole)
                .toString()
                .contains(u"2 self_attn.q_proj.weight: shape ([4, 2] where 3 of 4"_s));

    const QModelIndex role = child(model, layers, u"self_attn.q_proj.weight"_s);
    QCOMPARE(model.index(role.row(), LayersModel::DeviationsColumn, layers).data().toString(), u"1"_s);
    const QModelIndex fine = child(model, layers, u"input_layernorm.weight"_s);
    QVERIFY(fine.data(Qt::DecorationRole).isNull());
    const QModelIndex block2 = child(model, layers, u"layers.2"_s);
    QVERIFY(!block2.data(Qt::DecorationRole).isNull());
    QVERIFY(child(model, layers, u"layers.1"_s).data(Qt::DecorationRole).isNull());
    QVERIFY(!child(model, block2, u"self_attn.q_proj.weight"_s).data(Qt::DecorationRole).isNull());

    // The missing expert role: on the summary row, on layer 3's experts and on expert 1.
    const QModelIndex summary = child(model, layers, u"mlp.experts.{0\u20131} \u00d7 2 in 4 blocks"_s);
    QVERIFY(
        summary.data(Qt::ToolTipRole).toString().contains(u"mlp.experts 3/1 up_proj.weight: missing_role"_s));
    QVERIFY(
        layers.data(Qt::ToolTipRole).toString().contains(u"mlp.experts 3/1 up_proj.weight: missing_role"_s));
    const QModelIndex group
        = child(model, child(model, layers, u"layers.3"_s), u"mlp.experts.{0\u20131} \u00d7 2"_s);
    QVERIFY(!group.data(Qt::DecorationRole).isNull());
    QVERIFY(!child(model, group, u"experts.1"_s).data(Qt::DecorationRole).isNull());
    QVERIFY(child(model, group, u"experts.0"_s).data(Qt::DecorationRole).isNull());
}

void tst_LayersModel::tensorLookup()
{
    const auto checkpoint = write(moeSpecs(2, 2));
    LayersModel model;
    model.setCheckpoint(checkpoint);
    for (std::size_t t = 0; t < checkpoint->tensors().size(); ++t) {
        const QModelIndex index = model.indexOfTensor(t);
        QVERIFY(index.isValid());
        QCOMPARE(model.tensorAt(index), t);
    }
    QVERIFY(model.indexOfRepeat(&model.repeats()[0]).isValid());
    QVERIFY(model.indexOfRepeat(&model.repeats()[0].repeats[0]).isValid());
}

// Eight layers of q_proj with values around 1, layer 5 around 50: the rms line has an outlier
// at 5; clicking a point asks for that layer's tensor.
void tst_LayersModel::depthPaneProfile()
{
    std::vector<TensorSpec> specs;
    for (int l = 0; l < 8; ++l) {
        specs.push_back(
            { "model.layers." + std::to_string(l) + ".self_attn.q_proj.weight", DType::F32, { 8, 8 } });
        specs.push_back(
            { "model.layers." + std::to_string(l) + ".mlp.up_proj.weight", DType::F32, { 8, 8 } });
    }
    std::mt19937 rng(3);
    std::normal_distribution<float> normal(1.0f, 0.1f);
    const auto checkpoint = write(specs, [&](std::size_t s, std::size_t) {
        return normal(rng) * (specs[s].name == "model.layers.5.self_attn.q_proj.weight" ? 50.0f : 1.0f);
    });
    LayersModel model;
    model.setCheckpoint(checkpoint);
    QCOMPARE(model.repeats().size(), 1u);
    DepthPane pane(checkpoint);
    QSignalSpy ready(&pane, &DepthPane::profileReady);
    pane.setRepeat(&model.repeats()[0]);
    QVERIFY(ready.wait(10000));
    QVERIFY(pane.profile());
    pane.setStat(DepthStat::Rms);
    QCOMPARE(pane.chart()->lineCount(), 2);
    QCOMPARE(pane.chart()->markerCount(), 1);
    QVERIFY(pane.chart()->pointText(1, 5).startsWith(u"self_attn.q_proj.weight @ 5: "_s));

    QSignalSpy activated(&pane, &DepthPane::tensorActivated);
    emit pane.chart()->pointClicked(1, 5);
    QCOMPARE(activated.size(), 1);
    const auto tensor = activated.first().first().value<std::size_t>();
    QCOMPARE(checkpoint->tensors()[tensor].info->name, "model.layers.5.self_attn.q_proj.weight");

    // Known statistics are used instead of a scan: a planted mean shows up.
    TensorStats planted;
    planted.count = 64;
    planted.mean = 7;
    planted.std = 0;
    DepthPane cached(checkpoint);
    cached.setKnownStats([&](std::size_t t) -> const TensorStats * {
        return checkpoint->tensors()[t].info->name == "model.layers.0.mlp.up_proj.weight" ? &planted
                                                                                          : nullptr;
    });
    QSignalSpy cachedReady(&cached, &DepthPane::profileReady);
    cached.setRepeat(&model.repeats()[0]);
    QVERIFY(cachedReady.wait(10000));
    QCOMPARE(cached.profile()->roles[0][static_cast<std::size_t>(DepthStat::Mean)][0], 7.0);
}

// B is A with layer 2's q_proj negated: rel-L2 2 there and 0 elsewhere; a click names the tensor.
void tst_LayersModel::compareDepth()
{
    std::vector<TensorSpec> specs;
    for (int l = 0; l < 4; ++l) {
        specs.push_back(
            { "model.layers." + std::to_string(l) + ".self_attn.q_proj.weight", DType::F32, { 4, 4 } });
        specs.push_back(
            { "model.layers." + std::to_string(l) + ".mlp.up_proj.weight", DType::F32, { 4, 4 } });
    }
    const auto a = write(specs, [](std::size_t s, std::size_t e) { return static_cast<float>(s + e + 1); });
    const auto b = write(specs, [&](std::size_t s, std::size_t e) {
        const float v = static_cast<float>(s + e + 1);
        return specs[s].name == "model.layers.2.self_attn.q_proj.weight" ? -v : v;
    });
    auto comparison = compareCheckpoints(*a, *b, {});
    QVERIFY(comparison);
    const auto result = std::make_shared<const CompareResult>(a, b, CompareOptions {}, std::move(*comparison));

    CompareDepthPane pane;
    pane.setResult(result);
    QCOMPARE(pane.repeatCount(), 1);
    DepthChart *chart = pane.view()->chart();
    QCOMPARE(chart->lineCount(), 2);
    QCOMPARE(chart->pointText(1, 2), u"self_attn.q_proj.weight @ 2: 2"_s);
    QCOMPARE(chart->pointText(1, 1), u"self_attn.q_proj.weight @ 1: 0"_s);
    QCOMPARE(chart->pointText(0, 2), u"mlp.up_proj.weight @ 2: 0"_s);
    pane.view()->setMetric(static_cast<int>(DiffMetric::Cosine));
    QCOMPARE(chart->pointText(1, 2), u"self_attn.q_proj.weight @ 2: -1"_s);

    QSignalSpy activated(&pane, &CompareDepthPane::pathActivated);
    emit chart->pointClicked(1, 2);
    QCOMPARE(activated.size(), 1);
    QCOMPARE(activated.first().first().toString(), u"model.layers.2.self_attn.q_proj.weight"_s);

    pane.setResult(nullptr);
    QCOMPARE(pane.repeatCount(), 0);
}

// The Layers toggle swaps the trees; a role row shows the Depth tab, a tensor row selects the
// tensor for every pane, a click on the chart selects the block's tensor in the Layers tree.
void tst_LayersModel::checkpointViewLayersMode()
{
    const auto checkpoint
        = write(moeSpecs(3, 2), [](std::size_t s, std::size_t e) { return float(s % 5 + e % 3); });
    CheckpointView view(checkpoint, u"moe"_s);
    view.resize(1000, 600);
    view.show();
    QVERIFY(QTest::qWaitForWindowExposed(&view));
    QVERIFY(!view.isLayersMode());
    view.setLayersMode(true);
    QVERIFY(view.isLayersMode());
    QVERIFY(view.layersTree()->isVisible());
    QVERIFY(!view.treeView()->isVisible());
    LayersModel *model = view.layersModel();
    QVERIFY(model);
    QCOMPARE(model->repeats().size(), 1u);

    const QModelIndex layers = model->index(0, 0);
    view.layersTree()->setCurrentIndex(model->index(2, 0, layers)); // self_attn.q_proj.weight
    QCOMPARE(view.currentPane(), CheckpointView::DepthTab);
    QCOMPARE(view.depthPane()->repeat(), &model->repeats()[0]);
    QSignalSpy ready(view.depthPane(), &DepthPane::profileReady);
    QVERIFY(view.depthPane()->profile() || ready.wait(10000));

    const QModelIndex tensor = model->indexOfTensor(5);
    view.layersTree()->setCurrentIndex(tensor);
    QCOMPARE(view.selectedPath().toStdString(), checkpoint->tensors()[5].info->name);

    emit view.depthPane()->chart()->pointClicked(2, 1); // q_proj of layer 1
    QCOMPARE(view.selectedPath(), u"model.layers.1.self_attn.q_proj.weight"_s);
    QCOMPARE(model->tensorAt(view.layersTree()->currentIndex()),
        static_cast<std::size_t>(model->repeats()[0].tensorAt(0, 1, 2)));

    view.setLayersMode(false);
    QVERIFY(view.treeView()->isVisible());
}

QTEST_MAIN(tst_LayersModel)
#include "tst_layersmodel.moc"
