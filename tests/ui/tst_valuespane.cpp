// The Values and Heatmap panes: the value model under QAbstractItemModelTester (planes of a 3-D
// tensor, NaN/Inf/zero kinds, precision, element lookup), go-to and Locate selecting the element,
// copy as TSV, the heatmap widget drawing the expected colours for a known tensor, and a click on
// the heatmap naming the element under it.
#include "core/format/writer.h"
#include "core/io/checkpoint.h"
#include "core/values/colourscale.h"
#include "ui/values/heatmappane.h"
#include "ui/values/heatmapview.h"
#include "ui/values/planeselector.h"
#include "ui/values/valuespane.h"
#include "ui/values/valuetablemodel.h"

#include "tests/support/valuedata.h"

#include <QAbstractItemModelTester>
#include <QItemSelectionModel>
#include <QSignalSpy>
#include <QTableView>
#include <QTemporaryDir>
#include <QTest>

#include <cmath>
#include <cstring>
#include <limits>

using namespace Qt::StringLiterals;
using namespace stb;

namespace {

constexpr float kNaN = std::numeric_limits<float>::quiet_NaN();
constexpr float kInf = std::numeric_limits<float>::infinity();

} // namespace

class tst_ValuesPane : public QObject {
    Q_OBJECT

private slots:
    void initTestCase();
    void modelShowsPlanes();
    void goToAndLocate();
    void copyAsTsv();
    void heatmapDrawsKnownColours();
    void heatmapClickNamesElement();

private:
    const Checkpoint::Tensor *tensor(const std::string &name) const;

    QTemporaryDir m_dir;
    std::shared_ptr<const Checkpoint> m_checkpoint;
};

void tst_ValuesPane::initTestCase()
{
    QVERIFY(m_dir.isValid());
    std::vector<float> cube(2 * 3 * 4);
    for (std::size_t i = 0; i < cube.size(); ++i)
        cube[i] = float(i);
    cube[5] = kNaN;
    cube[6] = kInf;
    cube[7] = 0.0f;
    cube[0] = 0.25f;
    const std::vector<TensorSpec> specs { { "cube", DType::F32, { 2, 3, 4 } },
        { "grid", DType::F32, { 2, 2 } }, { "line", DType::I8, { 5 } } };
    const std::vector<std::vector<std::byte>> data { test::floatBytes(cube),
        test::floatBytes({ -1, kNaN, 1, 0.5f }),
        { std::byte(1), std::byte(0x80), std::byte(3), std::byte(0), std::byte(0x7F) } };
    const std::string path = m_dir.filePath(u"v.safetensors"_s).toStdString();
    std::string error;
    QVERIFY2(writeFile(path, specs, data, {}, error), error.c_str());
    m_checkpoint = Checkpoint::open(path, error);
    QVERIFY2(m_checkpoint, error.c_str());
}

const Checkpoint::Tensor *tst_ValuesPane::tensor(const std::string &name) const
{
    for (const auto &t : m_checkpoint->tensors()) {
        if (t.info->name == name)
            return &t;
    }
    return nullptr;
}

void tst_ValuesPane::modelShowsPlanes()
{
    ValueTableModel model;
    QAbstractItemModelTester tester(&model, QAbstractItemModelTester::FailureReportingMode::QtTest);
    const auto *cube = tensor("cube");
    const auto file = m_checkpoint->shards()[cube->shard];
    std::string error;
    const std::uint64_t fixed[3] = { 1, 0, 0 };
    model.setPlane(file, cube->info, *planeView(cube->info->shape, 1, 2, fixed, error));
    QCOMPARE(model.rowCount(), 3);
    QCOMPARE(model.columnCount(), 4);
    QCOMPARE(model.index(2, 3).data().toString(), u"23"_s); // element (1, 2, 3)
    QCOMPARE(model.index(0, 0).data(ValueTableModel::FlatIndexRole).toULongLong(), 12u);
    // The first plane holds the special values; transposed, rows walk the last axis.
    model.setPlane(
        file, cube->info, *planeView(cube->info->shape, 2, 1, std::vector<std::uint64_t> {}, error));
    QCOMPARE(model.rowCount(), 4);
    QCOMPARE(model.columnCount(), 3);
    QCOMPARE(model.index(1, 1).data().toString(), u"nan"_s); // element (0, 1, 1) = 5
    QCOMPARE(model.index(1, 1).data(ValueTableModel::KindRole).toInt(), int(ValueTableModel::NaN));
    QCOMPARE(model.index(2, 1).data(ValueTableModel::KindRole).toInt(), int(ValueTableModel::PosInf));
    QCOMPARE(model.index(3, 1).data(ValueTableModel::KindRole).toInt(), int(ValueTableModel::Zero));
    QVERIFY(model.index(1, 1).data(Qt::BackgroundRole).isValid());
    QVERIFY(model.index(3, 1).data(Qt::ForegroundRole).isValid());
    QVERIFY(!model.index(2, 2).data(Qt::BackgroundRole).isValid()); // an ordinary value
    QCOMPARE(model.indexOfElement(5), model.index(1, 1));
    QVERIFY(!model.indexOfElement(12).isValid()); // in the other plane
    QCOMPARE(model.index(0, 0).data().toString(), u"0.25"_s);
    model.setPrecision(1);
    QCOMPARE(model.index(0, 0).data().toString(), u"0.2"_s);
    // A 1-D tensor is one column of exact integers.
    const auto *line = tensor("line");
    model.setPlane(m_checkpoint->shards()[line->shard], line->info, wholeView(line->info->shape));
    QCOMPARE(model.rowCount(), 5);
    QCOMPARE(model.columnCount(), 1);
    QCOMPARE(model.index(1, 0).data().toString(), u"-128"_s);
    model.clear();
    QCOMPARE(model.rowCount(), 0);
}

void tst_ValuesPane::goToAndLocate()
{
    ValuesPane pane(m_checkpoint);
    pane.resize(800, 500);
    pane.show();
    pane.showTensor(tensor("cube"));
    QCOMPARE(pane.model()->rowCount(), 3); // rows = axis 1, columns = axis 2, axis 0 at 0
    QVERIFY(pane.goToText(u"1, 2, 1"_s));
    QCOMPARE(pane.planeSelector()->fixedIndices()[0], 1u);
    QCOMPARE(pane.table()->currentIndex().data(ValueTableModel::FlatIndexRole).toULongLong(), 21u);
    QVERIFY(pane.goToText(u"6"_s));
    QCOMPARE(pane.table()->currentIndex().data().toString(), u"inf"_s);
    QVERIFY(!pane.goToText(u"0, 9, 0"_s));
    QVERIFY(pane.messageText().contains(u"out of range for axis 1"_s));
    QVERIFY(!pane.goToText(u"abc"_s));

    QSignalSpy located(&pane, &ValuesPane::located);
    pane.locate(LocateTarget::Max);
    QVERIFY(located.wait(10000));
    QCOMPARE(located.takeFirst().at(0).toBool(), true);
    QCOMPARE(pane.table()->currentIndex().data(ValueTableModel::FlatIndexRole).toULongLong(), 23u);
    pane.locate(LocateTarget::FirstNaN); // from the cached scan: at once
    QCOMPARE(located.size(), 1);
    QCOMPARE(pane.table()->currentIndex().data(ValueTableModel::FlatIndexRole).toULongLong(), 5u);
    QCOMPARE(pane.planeSelector()->fixedIndices()[0], 0u);

    pane.showTensor(tensor("line"));
    located.clear();
    pane.locate(LocateTarget::FirstNaN);
    QVERIFY(located.wait(10000));
    QCOMPARE(located.takeFirst().at(0).toBool(), false);
    QVERIFY(pane.messageText().contains(u"no NaN"_s));
}

void tst_ValuesPane::copyAsTsv()
{
    ValuesPane pane(m_checkpoint);
    pane.showTensor(tensor("grid"));
    pane.table()->selectAll();
    QCOMPARE(pane.selectionText(), u"-1\tnan\n1\t0.5\n"_s);
}

void tst_ValuesPane::heatmapDrawsKnownColours()
{
    // The grid [[-1, nan], [1, 0.5]] at one cell per element.
    const auto *grid = tensor("grid");
    std::string error;
    auto summary = summarizeHeatmap(DType::F32, m_checkpoint->fileOf(*grid)->tensorBytes(*grid->info),
        wholeView(grid->info->shape), 2, 2, error);
    QVERIFY(summary);
    HeatmapView view;
    view.resize(300, 200);
    view.setSummary(std::make_shared<const HeatmapSummary>(*summary), true);
    const QImage image = view.grab().toImage();
    const QRect area = view.cellArea();
    const auto centre = [&](int i, int j) {
        return image.pixelColor(
            area.left() + area.width() * (2 * j + 1) / 4, area.top() + area.height() * (2 * i + 1) / 4);
    };
    const auto qcolour = [](Rgb rgb) { return QColor(rgb.r, rgb.g, rgb.b); };
    QCOMPARE(centre(0, 0), QColor(59, 76, 192)); // -1: the blue end of a symmetric ±1 scale
    QCOMPARE(centre(0, 1), qcolour(kNaNColour));
    QCOMPARE(centre(1, 0), QColor(180, 4, 38)); // 1: the red end
    QCOMPARE(centre(1, 1), qcolour(view.scale().colour(0.5)));
    QVERIFY(view.cellText(0, 1).contains(u"no finite values"_s));
    QVERIFY(view.cellText(0, 1).contains(u"NaN 1"_s));
}

void tst_ValuesPane::heatmapClickNamesElement()
{
    HeatmapPane pane(m_checkpoint);
    pane.resize(400, 300);
    static_cast<QWidget &>(pane).show(); // HeatmapPane::show(summary) hides QWidget::show
    QSignalSpy shown(&pane, &HeatmapPane::summaryShown);
    pane.showTensor(tensor("cube"));
    QVERIFY(shown.wait(10000));
    const HeatmapSummary *summary = pane.view()->summary();
    QCOMPARE(summary->rows, 3u); // the plane of axes 1 and 2 at axis 0 = 0
    QCOMPARE(summary->cellCols, 4u);
    QSignalSpy activated(&pane, &HeatmapPane::elementActivated);
    const QRect area = pane.view()->cellArea();
    QTest::mouseClick(pane.view(), Qt::LeftButton, {},
        QPoint(area.left() + area.width() * 7 / 8, area.top() + area.height() / 2));
    QCOMPARE(activated.size(), 1);
    QCOMPARE(activated.takeFirst().at(0).toULongLong(), 7u); // row 1, column 3
}

QTEST_MAIN(tst_ValuesPane)
#include "tst_valuespane.moc"
