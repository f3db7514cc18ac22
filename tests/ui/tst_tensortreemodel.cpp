#include "core/text/naturalorder.h"
#include "ui/document/tensorfiltermodel.h"
#include "ui/document/tensortreemodel.h"

#include "core/format/writer.h"
#include "tests/support/testfiles.h"

#include <QAbstractItemModelTester>
#include <QElapsedTimer>
#include <QTemporaryDir>
#include <QTest>
#include <QTreeView>

#include <thread>

using namespace Qt::StringLiterals;
using namespace stb;

// Model and proxy tests, each run under QAbstractItemModelTester created before the model is filled.
class tst_TensorTreeModel : public QObject {
    Q_OBJECT

private slots:
    void initTestCase();
    void naturalOrder_data();
    void naturalOrder();
    void treeShapeAndOrder();
    void groupSums();
    void flatMode();
    void preparedRows();
    void lookups();
    void filter_data();
    void filter();
    void invalidRegexShowsNothing();
    void sortsNumbersAsNumbers();
    void hundredThousandTensors();

private:
    std::shared_ptr<const Checkpoint> write(const QString &name, const std::vector<TensorSpec> &specs);
    QTemporaryDir m_dir;
    std::shared_ptr<const Checkpoint> m_small;
};

std::shared_ptr<const Checkpoint> tst_TensorTreeModel::write(
    const QString &name, const std::vector<TensorSpec> &specs)
{
    std::vector<std::vector<std::byte>> data;
    for (const auto &spec : specs) {
        TensorInfo info;
        info.dtype = spec.dtype;
        info.shape = spec.shape;
        data.emplace_back(static_cast<std::size_t>(*info.expectedBytes()));
    }
    const std::string path = m_dir.filePath(name).toStdString();
    std::string error;
    if (!writeFile(path, specs, data, {}, error))
        qFatal("writeFile: %s", error.c_str());
    auto checkpoint = Checkpoint::open(path, error);
    if (!checkpoint)
        qFatal("open: %s", error.c_str());
    return checkpoint;
}

void tst_TensorTreeModel::initTestCase()
{
    QVERIFY(m_dir.isValid());
    m_small = write(u"small.safetensors"_s,
        {
            { "model.layers.10.mlp.weight", DType::BF16, { 4, 8 } },
            { "model.layers.2.mlp.weight", DType::BF16, { 4, 8 } },
            { "model.layers.2.norm", DType::F32, { 8 } },
            { "model.layers.1.mlp.weight", DType::BF16, { 4, 8 } },
            { "model.embed", DType::F32, { 16, 8 } },
            { "lm_head.weight", DType::F16, { 16, 8 } },
            { "scalar", DType::I64, {} },
        });
}

void tst_TensorTreeModel::naturalOrder_data()
{
    QTest::addColumn<QString>("a");
    QTest::addColumn<QString>("b");
    QTest::addColumn<int>("expected");
    QTest::newRow("2<10") << u"2"_s << u"10"_s << -1;
    QTest::newRow("layers") << u"layers.9.x"_s << u"layers.10.x"_s << -1;
    QTest::newRow("equal") << u"a1b"_s << u"a1b"_s << 0;
    QTest::newRow("zeros") << u"7"_s << u"007"_s << -1;
    QTest::newRow("prefix") << u"abc"_s << u"abc1"_s << -1;
    QTest::newRow("text") << u"b"_s << u"a"_s << 1;
    QTest::newRow("huge") << u"99999999999999999999999"_s << u"100000000000000000000000"_s << -1;
}

void tst_TensorTreeModel::naturalOrder()
{
    QFETCH(QString, a);
    QFETCH(QString, b);
    QFETCH(int, expected);
    QCOMPARE(naturalCompare(a.toStdString(), b.toStdString()), expected);
    QCOMPARE(naturalCompare(b.toStdString(), a.toStdString()), -expected);
}

void tst_TensorTreeModel::treeShapeAndOrder()
{
    TensorTreeModel model;
    QAbstractItemModelTester tester(&model, QAbstractItemModelTester::FailureReportingMode::QtTest);
    model.setCheckpoint(m_small);

    QCOMPARE(model.rowCount(), 3);
    QCOMPARE(model.index(0, 0).data().toString(), u"lm_head"_s);
    QCOMPARE(model.index(1, 0).data().toString(), u"model"_s);
    QCOMPARE(model.index(2, 0).data().toString(), u"scalar"_s);
    const QModelIndex layers = model.indexOfPath(u"model.layers"_s);
    QVERIFY(layers.isValid());
    QCOMPARE(model.rowCount(layers), 3);
    QCOMPARE(model.index(0, 0, layers).data().toString(), u"1"_s);
    QCOMPARE(model.index(1, 0, layers).data().toString(), u"2"_s);
    QCOMPARE(model.index(2, 0, layers).data().toString(), u"10"_s);
    const QModelIndex leaf = model.indexOfPath(u"model.layers.10.mlp.weight"_s);
    QVERIFY(leaf.isValid());
    QCOMPARE(model.fullPath(leaf), u"model.layers.10.mlp.weight"_s);
    QCOMPARE(model.fullPath(layers), u"model.layers"_s);
    QCOMPARE(leaf.siblingAtColumn(TensorTreeModel::ShapeColumn).data().toString(), u"[4, 8]"_s);
    QCOMPARE(leaf.siblingAtColumn(TensorTreeModel::DTypeColumn).data().toString(), u"BF16"_s);
    QVERIFY(!leaf.data(TensorTreeModel::IsGroupRole).toBool());
    QVERIFY(layers.data(TensorTreeModel::IsGroupRole).toBool());
    QCOMPARE(model.tensorAt(leaf)->info->name, "model.layers.10.mlp.weight");
    QCOMPARE(
        leaf.data(TensorTreeModel::TensorInfoRole).value<const TensorInfo *>(), model.tensorAt(leaf)->info);
    QCOMPARE(model.tensorAt(layers), nullptr);
}

void tst_TensorTreeModel::groupSums()
{
    TensorTreeModel model;
    QAbstractItemModelTester tester(&model, QAbstractItemModelTester::FailureReportingMode::QtTest);
    model.setCheckpoint(m_small);
    const QModelIndex layers = model.indexOfPath(u"model.layers"_s);
    QCOMPARE(model.totals(layers).parameters, 3u * 32u + 8u);
    QCOMPARE(model.totals(layers).bytes, 3u * 64u + 32u);
    QCOMPARE(model.totals(layers).tensors, 4u);
    QCOMPARE(layers.siblingAtColumn(TensorTreeModel::DTypeColumn).data().toString(), u"mixed"_s);
    QCOMPARE(layers.siblingAtColumn(TensorTreeModel::ParametersColumn)
                 .data(TensorTreeModel::ParametersRole)
                 .toULongLong(),
        104u);
    const QModelIndex ten = model.indexOfPath(u"model.layers.10"_s);
    QCOMPARE(ten.siblingAtColumn(TensorTreeModel::DTypeColumn).data().toString(), u"BF16"_s);
    QCOMPARE(model.totals({}).tensors, 7u);
    QCOMPARE(model.totals({}).parameters, 104u + 128u + 128u + 1u);
    const auto breakdown = model.dtypeBreakdown(layers);
    QCOMPARE(breakdown.size(), 2u);
    QCOMPARE(breakdown[0].dtype, DType::BF16);
    QCOMPARE(breakdown[0].totals.bytes, 192u);
    QCOMPARE(breakdown[1].dtype, DType::F32);
}

void tst_TensorTreeModel::flatMode()
{
    TensorTreeModel model;
    QAbstractItemModelTester tester(&model, QAbstractItemModelTester::FailureReportingMode::QtTest);
    model.setCheckpoint(m_small);
    model.setFlat(true);
    QCOMPARE(model.rowCount(), 7);
    QStringList names;
    for (int row = 0; row < model.rowCount(); ++row) {
        QVERIFY(!model.hasChildren(model.index(row, 0)));
        names << model.index(row, 0).data().toString();
    }
    QCOMPARE(names,
        (QStringList { u"lm_head.weight"_s, u"model.embed"_s, u"model.layers.1.mlp.weight"_s,
            u"model.layers.2.mlp.weight"_s, u"model.layers.2.norm"_s, u"model.layers.10.mlp.weight"_s,
            u"scalar"_s }));
    model.setFlat(false);
    QCOMPARE(model.rowCount(), 3);
}

// Rows prepared on another thread (as the opening job does) make the same model; rows of the
// other layout are not taken for this one.
void tst_TensorTreeModel::preparedRows()
{
    std::shared_ptr<const TensorTreeModel::Rows> rows;
    std::thread worker([&] { rows = TensorTreeModel::prepare(*m_small, false); });
    worker.join();
    TensorTreeModel model;
    QAbstractItemModelTester tester(&model, QAbstractItemModelTester::FailureReportingMode::QtTest);
    model.setCheckpoint(m_small, rows);
    QCOMPARE(model.rowCount(), 3);
    QCOMPARE(model.totals(model.indexOfPath(u"model.layers"_s)).tensors, 4u);
    QCOMPARE(model.fullPath(model.indexOfPath(u"model.layers.10.mlp.weight"_s)), u"model.layers.10.mlp.weight"_s);
    TensorTreeModel flat;
    flat.setFlat(true);
    flat.setCheckpoint(m_small, rows); // tree rows for a flat model: built again, flat
    QCOMPARE(flat.rowCount(), 7);
}

void tst_TensorTreeModel::lookups()
{
    const auto checkpoint = write(u"clash.safetensors"_s,
        { { "a.b", DType::F32, { 1 } }, { "a.b.c", DType::F32, { 2 } }, { "x..y", DType::U8, { 3 } } });
    TensorTreeModel model;
    QAbstractItemModelTester tester(&model, QAbstractItemModelTester::FailureReportingMode::QtTest);
    model.setCheckpoint(checkpoint);
    const QModelIndex a = model.indexOfPath(u"a"_s);
    QCOMPARE(model.rowCount(a), 2); // the tensor "a.b" and the group "a.b" side by side
    QVERIFY(!model.index(0, 0, a).data(TensorTreeModel::IsGroupRole).toBool());
    QVERIFY(model.index(1, 0, a).data(TensorTreeModel::IsGroupRole).toBool());
    QCOMPARE(model.indexOfPath(u"a.b.c"_s).data(TensorTreeModel::FullPathRole).toString(), u"a.b.c"_s);
    QCOMPARE(model.indexOfPath(u"x..y"_s).parent().data().toString(), u"(empty)"_s);
    QVERIFY(!model.indexOfPath(u"nothing.here"_s).isValid());
    for (const auto &tensor : checkpoint->tensors())
        QCOMPARE(model.tensorAt(model.indexOfTensor(tensor.info))->info, tensor.info);
}

void tst_TensorTreeModel::filter_data()
{
    QTest::addColumn<int>("mode");
    QTest::addColumn<QString>("pattern");
    QTest::addColumn<QStringList>("expected");
    const int substring = int(TensorFilterModel::Mode::Substring), glob = int(TensorFilterModel::Mode::Glob),
              regex = int(TensorFilterModel::Mode::Regex);
    QTest::newRow("empty") << substring << QString()
                           << QStringList { u"lm_head.weight"_s, u"model.embed"_s,
                                  u"model.layers.1.mlp.weight"_s, u"model.layers.2.mlp.weight"_s,
                                  u"model.layers.2.norm"_s, u"model.layers.10.mlp.weight"_s, u"scalar"_s };
    QTest::newRow("substring") << substring << u"MLP"_s
                               << QStringList { u"model.layers.1.mlp.weight"_s,
                                      u"model.layers.2.mlp.weight"_s, u"model.layers.10.mlp.weight"_s };
    QTest::newRow("substring in group")
        << substring << u"layers.2"_s
        << QStringList { u"model.layers.2.mlp.weight"_s, u"model.layers.2.norm"_s };
    QTest::newRow("glob") << glob << u"*.weight"_s
                          << QStringList { u"lm_head.weight"_s, u"model.layers.1.mlp.weight"_s,
                                 u"model.layers.2.mlp.weight"_s, u"model.layers.10.mlp.weight"_s };
    QTest::newRow("glob anchored") << glob << u"weight"_s << QStringList {};
    QTest::newRow("regex") << regex << u"layers\\.(1|10)\\."_s
                           << QStringList { u"model.layers.1.mlp.weight"_s, u"model.layers.10.mlp.weight"_s };
    QTest::newRow("regex case") << regex << u"^SCALAR$"_s << QStringList { u"scalar"_s };
}

// Collects the full names of the tensors the proxy shows, in display order.
static void collect(const QAbstractItemModel &model, const QModelIndex &parent, QStringList &out)
{
    for (int row = 0; row < model.rowCount(parent); ++row) {
        const QModelIndex index = model.index(row, 0, parent);
        if (index.data(TensorTreeModel::IsGroupRole).toBool()) {
            QVERIFY2(model.rowCount(index) > 0, "a group is shown without any tensor below it");
            collect(model, index, out);
        } else {
            out << index.data(TensorTreeModel::FullPathRole).toString();
        }
    }
}

void tst_TensorTreeModel::filter()
{
    QFETCH(int, mode);
    QFETCH(QString, pattern);
    QFETCH(QStringList, expected);
    TensorTreeModel model;
    TensorFilterModel proxy;
    proxy.setSourceModel(&model);
    QAbstractItemModelTester tester(&model, QAbstractItemModelTester::FailureReportingMode::QtTest);
    QAbstractItemModelTester proxyTester(&proxy, QAbstractItemModelTester::FailureReportingMode::QtTest);
    model.setCheckpoint(m_small);
    proxy.setMode(TensorFilterModel::Mode(mode));
    proxy.setPattern(pattern);
    QStringList shown;
    collect(proxy, {}, shown);
    QCOMPARE(shown, expected);
    // The same filter holds in flat mode, and survives switching.
    model.setFlat(true);
    shown.clear();
    collect(proxy, {}, shown);
    QCOMPARE(shown, expected);
}

// Issue 14: an invalid pattern shows nothing until it is valid, and says where it is wrong.
void tst_TensorTreeModel::invalidRegexShowsNothing()
{
    TensorTreeModel model;
    TensorFilterModel proxy;
    proxy.setSourceModel(&model);
    QAbstractItemModelTester proxyTester(&proxy, QAbstractItemModelTester::FailureReportingMode::QtTest);
    model.setCheckpoint(m_small);
    proxy.setMode(TensorFilterModel::Mode::Regex);
    proxy.setPattern(u"layers.(("_s);
    QVERIFY(!proxy.isPatternValid());
    QVERIFY2(proxy.patternError().endsWith(u"at character 10"_s), qPrintable(proxy.patternError()));
    QCOMPARE(proxy.rowCount(), 0);
    QCOMPARE(proxy.matchCount(), 0u);
    proxy.setPattern(u"layers"_s);
    QVERIFY(proxy.isPatternValid());
    QVERIFY(proxy.rowCount() > 0);
}

void tst_TensorTreeModel::sortsNumbersAsNumbers()
{
    TensorTreeModel model;
    TensorFilterModel proxy;
    proxy.setSourceModel(&model);
    QAbstractItemModelTester proxyTester(&proxy, QAbstractItemModelTester::FailureReportingMode::QtTest);
    model.setCheckpoint(m_small);
    model.setFlat(true);
    proxy.sort(TensorTreeModel::SizeColumn, Qt::DescendingOrder);
    std::uint64_t previous = UINT64_MAX;
    for (int row = 0; row < proxy.rowCount(); ++row) {
        const auto bytes = proxy.index(row, 0).data(TensorTreeModel::BytesRole).toULongLong();
        QVERIFY(bytes <= previous);
        previous = bytes;
    }
    proxy.sort(TensorTreeModel::NameColumn, Qt::AscendingOrder);
    QCOMPARE(proxy.index(5, 0).data().toString(), u"model.layers.10.mlp.weight"_s);
}

void tst_TensorTreeModel::hundredThousandTensors()
{
    // 1,000 layers of 100 tensors: the issue's yardstick for a responsive start.
    std::vector<TensorSpec> specs;
    specs.reserve(100'000);
    for (int layer = 0; layer < 1000; ++layer) {
        for (int t = 0; t < 100; ++t)
            specs.push_back(
                { "model.layers." + std::to_string(layer) + ".block." + std::to_string(t) + ".weight",
                    DType::BF16, { 2 } });
    }
    const auto checkpoint = write(u"big.safetensors"_s, specs);
    QCOMPARE(checkpoint->tensors().size(), 100'000u);

    QElapsedTimer timer;
    timer.start();
    std::string error;
    const auto reopened = Checkpoint::open(m_dir.filePath(u"big.safetensors"_s).toStdString(), error);
    const qint64 parseMs = timer.restart();
    TensorTreeModel model;
    TensorFilterModel proxy;
    proxy.setSourceModel(&model);
    QTreeView view;
    view.setModel(&proxy);
    view.setSortingEnabled(true);
    view.sortByColumn(0, Qt::AscendingOrder);
    view.resize(800, 600);
    model.setCheckpoint(reopened);
    view.show();
    view.expand(proxy.index(0, 0));
    QCoreApplication::processEvents();
    const qint64 modelMs = timer.restart();
    qInfo("100,000 tensors: open + parse %lld ms, model + view populated %lld ms", parseMs, modelMs);
    QCOMPARE(model.totals({}).tensors, 100'000u);
    QCOMPARE(model.rowCount(model.indexOfPath(u"model.layers"_s)), 1000);
    QCOMPARE(model.index(999, 0, model.indexOfPath(u"model.layers"_s)).data().toString(), u"999"_s);
    // Speed is judged by tests/bench/bench_gui, not here (the figure above is informative).

    timer.restart();
    proxy.setPattern(u"layers.500."_s);
    qInfo("filtering 100,000 tensors: %lld ms", timer.elapsed());
    QCOMPARE(proxy.rowCount(), 1);
}

QTEST_MAIN(tst_TensorTreeModel)
#include "tst_tensortreemodel.moc"
