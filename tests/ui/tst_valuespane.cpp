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
#include <QComboBox>
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
    void heatmapZoomNamesMatrixIndices();
    void heatmapClipsOutliers();
    void heatmapTitleFits_data();
    void heatmapTitleFits();

private:
    const Checkpoint::Tensor *tensor(const std::string &name) const;
    // Shows the pane at `size` on that tensor and waits for its summary; false if none came.
    bool showHeatmap(HeatmapPane &pane, QSize size, const std::string &name) const;

    QTemporaryDir m_dir;
    std::shared_ptr<const Checkpoint> m_checkpoint;
    std::string m_hostileName;
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
    // spiky: 2,000 values from -1 to 1 and one outlier of 1000, which would wash the rest out.
    std::vector<float> spiky(40 * 50);
    for (std::size_t i = 0; i < spiky.size(); ++i)
        spiky[i] = float(i) / float(spiky.size() - 1) * 2 - 1;
    spiky[777] = 1000.0f;
    // A hostile name: 2,000 characters with control and bidi characters among them.
    std::string hostile;
    for (int i = 0; i < 200; ++i)
        hostile += std::string("ab\x1b[2J\xe2\x80\xae\n", 10);
    m_hostileName = hostile;
    const std::vector<TensorSpec> specs { { "cube", DType::F32, { 2, 3, 4 } },
        { "grid", DType::F32, { 2, 2 } }, { "line", DType::I8, { 5 } },
        { "model.layers.17.self_attn.q_proj.weight.spiky", DType::F32, { 40, 50 } },
        { hostile, DType::F32, { 2, 2 } } };
    const std::vector<std::vector<std::byte>> data { test::floatBytes(cube),
        test::floatBytes({ -1, kNaN, 1, 0.5f }),
        { std::byte(1), std::byte(0x80), std::byte(3), std::byte(0), std::byte(0x7F) },
        test::floatBytes(spiky), test::floatBytes({ 1, 2, 3, 4 }) };
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
    view.setSummary(std::make_shared<const HeatmapSummary>(*summary), ColourRange::Symmetric);
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

bool tst_ValuesPane::showHeatmap(HeatmapPane &pane, QSize size, const std::string &name) const
{
    pane.resize(size);
    pane.show();
    QSignalSpy shown(&pane, &HeatmapPane::summaryShown);
    pane.showTensor(tensor(name));
    return shown.wait(10000);
}

void tst_ValuesPane::heatmapClickNamesElement()
{
    HeatmapPane pane(m_checkpoint);
    QVERIFY(showHeatmap(pane, { 400, 300 }, "cube"));
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

void tst_ValuesPane::heatmapZoomNamesMatrixIndices()
{
    HeatmapPane pane(m_checkpoint);
    QVERIFY(showHeatmap(pane, { 900, 600 }, "model.layers.17.self_attn.q_proj.weight.spiky"));
    QVERIFY(pane.view()->cellText(0, 0).startsWith(u"row 0, column 0\n"_s));
    QSignalSpy shown(&pane, &HeatmapPane::summaryShown);
    pane.zoomTo(10, 20, 30, 40); // rows 10–19, columns 30–39: one cell per element
    QVERIFY(shown.wait(10000));
    QCOMPARE(pane.view()->summary()->rows, 10u);
    // The hover text names the matrix's own rows and columns, not the region's.
    QVERIFY2(pane.view()->cellText(0, 0).startsWith(u"row 10, column 30\n"_s),
        qPrintable(pane.view()->cellText(0, 0)));
    QVERIFY(pane.view()->cellText(9, 9).startsWith(u"row 19, column 39\n"_s));
    // Element (12, 33) of the 40×50 matrix is flat index 633: its value -1 + 633/1999·2.
    QVERIFY(pane.view()->cellText(2, 3).contains(QString::number(double(float(633) / 1999 * 2 - 1), 'g', 6)));
    const qsizetype before = shown.count();
    pane.zoomOut(); // the whole matrix again (from the cache: possibly shown at once)
    QVERIFY(shown.count() > before || shown.wait(10000));
    QCOMPARE(pane.view()->summary()->rows, 40u);
    QVERIFY(pane.view()->cellText(0, 0).startsWith(u"row 0, column 0\n"_s));
}

void tst_ValuesPane::heatmapClipsOutliers()
{
    HeatmapPane pane(m_checkpoint);
    QVERIFY(showHeatmap(pane, { 900, 600 }, "model.layers.17.self_attn.q_proj.weight.spiky"));
    // Auto: the one outlier would squeeze the rest into the bar's middle, so the range is clipped.
    QCOMPARE(pane.shownRange(), ColourRange::Clipped);
    QVERIFY(pane.view()->scale().clipped);
    QVERIFY2(pane.view()->scale().hi <= 1.0, qPrintable(QString::number(pane.view()->scale().hi)));
    // The colour bar says so: "≥" at its top (the bar's labels are drawn, so look at the pixels
    // of the full-range picture too: the two must differ).
    const QImage clipped = pane.view()->grab().toImage();
    pane.rangeBox()->setCurrentIndex(pane.rangeBox()->findText(u"Symmetric"_s));
    QCOMPARE(pane.shownRange(), ColourRange::Symmetric);
    QVERIFY(!pane.view()->scale().clipped);
    QCOMPARE(pane.view()->scale().hi, 1000.0);
    QVERIFY(pane.view()->grab().toImage() != clipped);
    // A tensor without outliers stays symmetric under Auto.
    pane.rangeBox()->setCurrentIndex(0);
    QVERIFY(showHeatmap(pane, { 900, 600 }, "grid"));
    QCOMPARE(pane.shownRange(), ColourRange::Symmetric);
}

void tst_ValuesPane::heatmapTitleFits_data()
{
    QTest::addColumn<int>("width");
    QTest::addColumn<bool>("hostile");
    QTest::newRow("1200 px") << 1200 << false;
    QTest::newRow("1024 px") << 1024 << false;
    QTest::newRow("600 px") << 600 << false;
    QTest::newRow("hostile name") << 1200 << true;
}

void tst_ValuesPane::heatmapTitleFits()
{
    QFETCH(int, width);
    QFETCH(bool, hostile);
    HeatmapPane pane(m_checkpoint);
    QVERIFY(showHeatmap(
        pane, { width, 600 }, hostile ? m_hostileName : "model.layers.17.self_attn.q_proj.weight.spiky"));
    const QString title = pane.titleText();
    const QFontMetrics metrics(QFont(pane.font().family(), pane.font().pointSize(), QFont::Bold));
    // Every label fits its line: nothing is cut, a long name is elided in the middle instead.
    QVERIFY2(metrics.horizontalAdvance(title) <= width, qPrintable(title));
    QVERIFY2(pane.fontMetrics().horizontalAdvance(pane.messageText()) < width - 250,
        qPrintable(pane.messageText()));
    if (width >= 1024 && !hostile)
        QCOMPARE(title, u"model.layers.17.self_attn.q_proj.weight.spiky  F32 [40, 50]"_s);
    if (hostile) {
        QVERIFY(title.contains(u'…'));
        for (QChar c : title)
            QVERIFY2(c.unicode() >= 0x20 && c.unicode() != 0x7F && c.unicode() != 0x202E, qPrintable(title));
    }
}

QTEST_MAIN(tst_ValuesPane)
#include "tst_valuespane.moc"
