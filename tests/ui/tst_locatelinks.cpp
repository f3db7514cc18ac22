// Locate from the Histogram pane and from the audit table's context menu: each opens the Values
// pane on the element (through the Values pane's own Locate), says what it found, and "Show in
// Hex" then puts the hex cursor on that element's first byte.
#include "core/format/writer.h"
#include "core/io/checkpoint.h"
#include "ui/audit/auditmodel.h"
#include "ui/audit/auditview.h"
#include "ui/document/checkpointview.h"
#include "ui/hex/hexpane.h"
#include "ui/hex/hexview.h"
#include "ui/histogram/histogrampane.h"
#include "ui/values/valuespane.h"
#include "ui/values/valuetablemodel.h"

#include "tests/support/valuedata.h"

#include <QMenu>
#include <QSignalSpy>
#include <QSortFilterProxyModel>
#include <QTableView>
#include <QTemporaryDir>
#include <QTest>
#include <QToolButton>

#include <limits>

using namespace Qt::StringLiterals;
using namespace stb;

namespace {

constexpr float kNaN = std::numeric_limits<float>::quiet_NaN();

// The action of that text in `menu` or its submenus.
QAction *actionNamed(QMenu *menu, const QString &text)
{
    for (QAction *action : menu->actions()) {
        if (action->text() == text)
            return action;
        if (action->menu()) {
            if (QAction *inner = actionNamed(action->menu(), text))
                return inner;
        }
    }
    return nullptr;
}

} // namespace

class tst_LocateLinks : public QObject {
    Q_OBJECT

private slots:
    void initTestCase();
    void fromHistogram_data();
    void fromHistogram();
    void fromAuditRow();
    void showInHex();

private:
    // Waits for the Values pane's Locate to end; the flat index of its current cell.
    static std::optional<std::uint64_t> locatedCell(CheckpointView &view, QSignalSpy &located);

    QTemporaryDir m_dir;
    std::shared_ptr<const Checkpoint> m_checkpoint;
};

void tst_LocateLinks::initTestCase()
{
    QVERIFY(m_dir.isValid());
    // w: [4, 5] F32 with a NaN at flat 13, the maximum (9.1f) at 16, the minimum (and largest |x|) at 4.
    std::vector<float> w(20);
    for (std::size_t i = 0; i < w.size(); ++i)
        w[i] = float(i % 7) * 0.5f;
    w[13] = kNaN;
    w[16] = 9.1f; // printed as the cell shows it, not as the double 9.1000003814697266
    w[4] = -12.0f;
    const std::vector<TensorSpec> specs { { "a", DType::I8, { 3 } }, { "w", DType::F32, { 4, 5 } } };
    const std::vector<std::vector<std::byte>> data { { std::byte(1), std::byte(2), std::byte(3) },
        test::floatBytes(w) };
    const std::string path = m_dir.filePath(u"l.safetensors"_s).toStdString();
    std::string error;
    QVERIFY2(writeFile(path, specs, data, {}, error), error.c_str());
    m_checkpoint = Checkpoint::open(path, error);
    QVERIFY2(m_checkpoint, error.c_str());
}

std::optional<std::uint64_t> tst_LocateLinks::locatedCell(CheckpointView &view, QSignalSpy &located)
{
    if (!QTest::qWaitFor([&] { return !located.isEmpty(); }, 10000) || !located.first().first().toBool())
        return std::nullopt;
    const QModelIndex cell = view.valuesPane()->table()->currentIndex();
    if (!cell.isValid())
        return std::nullopt;
    return cell.data(ValueTableModel::FlatIndexRole).toULongLong();
}

void tst_LocateLinks::fromHistogram_data()
{
    QTest::addColumn<QString>("entry");
    QTest::addColumn<quint64>("flat");
    QTest::addColumn<QString>("message");
    QTest::newRow("first NaN") << u"First NaN"_s << quint64(13)
                               << u"First NaN at [2, 3], flat index 13"_s;
    QTest::newRow("maximum") << u"Maximum"_s << quint64(16) << u"Maximum 9.1 at [3, 1], flat index 16"_s;
    QTest::newRow("minimum") << u"Minimum"_s << quint64(4) << u"Minimum -12 at [0, 4], flat index 4"_s;
    QTest::newRow("largest |x|") << u"Largest |x|"_s << quint64(4)
                                 << u"Largest |x| -12 at [0, 4], flat index 4"_s;
}

void tst_LocateLinks::fromHistogram()
{
    QFETCH(QString, entry);
    QFETCH(quint64, flat);
    QFETCH(QString, message);
    CheckpointView view(m_checkpoint, u"l"_s);
    view.resize(1000, 700);
    view.show();
    QVERIFY(view.selectPath(u"w"_s));
    view.setCurrentPane(CheckpointView::HistogramTab);
    QToolButton *locate = view.histogramPane()->locateButton();
    QVERIFY(locate->isEnabled());
    QAction *action = actionNamed(locate->menu(), entry);
    QVERIFY(action);
    QSignalSpy located(view.valuesPane(), &ValuesPane::located);
    action->trigger();
    QCOMPARE(view.currentPane(), CheckpointView::ValuesTab);
    QCOMPARE(locatedCell(view, located), std::optional<std::uint64_t>(flat));
    QCOMPARE(view.valuesPane()->messageText(), message);

    // A tensor without NaN: the pane says so and selects nothing new.
    QVERIFY(view.selectPath(u"a"_s));
    view.setCurrentPane(CheckpointView::HistogramTab);
    QSignalSpy none(view.valuesPane(), &ValuesPane::located);
    actionNamed(locate->menu(), u"First NaN"_s)->trigger();
    QVERIFY(QTest::qWaitFor([&] { return !none.isEmpty(); }, 10000));
    QCOMPARE(none.first().first().toBool(), false);
    QCOMPARE(view.valuesPane()->messageText(), u"The tensor has no NaN"_s);
}

void tst_LocateLinks::fromAuditRow()
{
    CheckpointView view(m_checkpoint, u"l"_s);
    view.resize(1000, 700);
    view.show();
    QSignalSpy finished(view.auditView(), &AuditView::finished);
    view.startAudit();
    QVERIFY(QTest::qWaitFor([&] { return !finished.isEmpty(); }, 10000));
    QVERIFY(finished.first().first().toBool());
    const QSortFilterProxyModel *proxy = view.auditView()->proxy();
    QModelIndex row;
    for (int r = 0; r < proxy->rowCount(); ++r) {
        if (proxy->index(r, 0).data(AuditModel::NameRole).toString() == u"w"_s)
            row = proxy->index(r, 0);
    }
    QVERIFY(row.isValid());
    std::unique_ptr<QMenu> menu(view.auditView()->contextMenuFor(row));
    QVERIFY(menu);
    QAction *action = actionNamed(menu.get(), u"Maximum"_s);
    QVERIFY(action);
    QSignalSpy located(view.valuesPane(), &ValuesPane::located);
    action->trigger();
    QCOMPARE(view.selectedPath(), u"w"_s);
    QCOMPARE(view.currentPane(), CheckpointView::ValuesTab);
    QCOMPARE(locatedCell(view, located), std::optional<std::uint64_t>(16));
    QVERIFY(!view.auditView()->contextMenuFor(QModelIndex())); // no row: no menu
}

void tst_LocateLinks::showInHex()
{
    CheckpointView view(m_checkpoint, u"l"_s);
    view.resize(1000, 700);
    view.show();
    QVERIFY(view.selectPath(u"w"_s));
    view.setCurrentPane(CheckpointView::ValuesTab);
    QVERIFY(!view.valuesPane()->showCurrentInHex()); // nothing selected yet
    QSignalSpy located(view.valuesPane(), &ValuesPane::located);
    view.valuesPane()->locate(LocateTarget::FirstNaN);
    QCOMPARE(locatedCell(view, located), std::optional<std::uint64_t>(13));
    QVERIFY(view.valuesPane()->showCurrentInHex());
    QCOMPARE(view.currentPane(), CheckpointView::HexTab);
    const Checkpoint::Tensor *w = view.selectedTensor();
    const std::uint64_t expected = m_checkpoint->fileOf(*w)->header().dataStart + w->info->begin + 13 * 4;
    QCOMPARE(view.hexPane()->view()->cursorOffset(), expected);
}

QTEST_MAIN(tst_LocateLinks)
#include "tst_locatelinks.moc"
