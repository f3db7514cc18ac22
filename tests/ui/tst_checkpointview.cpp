#include "ui/common/qtformat.h"
#include "ui/document/checkpointview.h"
#include "ui/document/diagnosticspane.h"
#include "ui/document/metadatapane.h"
#include "ui/document/overviewpane.h"
#include "ui/document/shardpicker.h"
#include "ui/document/tensorfiltermodel.h"
#include "ui/document/tensortreemodel.h"
#include "ui/hex/hexpane.h"
#include "ui/hex/hexview.h"
#include "ui/layoutmap/layoutmapview.h"
#include "ui/shell/documentarea.h"
#include "ui/shell/filewatcher.h"
#include "ui/shell/messagebar.h"

#include "core/format/writer.h"
#include "core/io/checkpoint.h"
#include "tests/support/testfiles.h"

#include <QClipboard>
#include <QComboBox>
#include <QDir>
#include <QFile>
#include <QElapsedTimer>
#include <QGuiApplication>
#include <QHeaderView>
#include <QIcon>
#include <QLabel>
#include <QLineEdit>
#include <QSignalSpy>
#include <QStandardPaths>
#include <QTabWidget>
#include <QTemporaryDir>
#include <QTest>
#include <QToolButton>
#include <QTreeView>
#include <QTreeWidget>

using namespace Qt::StringLiterals;
using namespace stb;

// One document: selection to panes, filter, broken files, files changing under the view.
class tst_CheckpointView : public QObject {
    Q_OBJECT

private slots:
    void initTestCase();
    void tensorSelectionShowsOverview();
    void groupSelectionShowsTotals();
    void panesComputeOnlyWhenShown();
    void filterKeepsParents();
    void flatToggleKeepsSelection();
    void filterCountsAndTotalsWhatMatches();
    void invalidRegexShowsNothing();
    void escapeClearsTheFilter();
    void flatRoundTripKeepsExpansion();
    void goToOffsetSelectsTheTensor();
    void copyName();
    void invalidFileOpensOnDiagnostics();
    void diagnosticJumpsToOffset();
    void problemsPastTheCapAreCounted();
    void truncatedWhileOpenMarksStale();
    void unreadablePathShowsMessage();
    void hundredThousandTensorsOpenQuickly();
    void treeNamesElideInTheMiddle_data();
    void treeNamesElideInTheMiddle();
    void compactCounts_data();
    void compactCounts();
    void sizesAreLabelled();
    void missingBytesAreMarked();
    void shardPickerPicksTheFilePanesShard();

private:
    QString writeSample(const QString &name);
    std::shared_ptr<const Checkpoint> open(const QString &path);
    QTemporaryDir m_dir;
    QString m_sample;
    QString m_broken;
};

QString tst_CheckpointView::writeSample(const QString &name)
{
    const auto model = test::makeSampleModel(12, 16);
    const QString path = m_dir.filePath(name);
    std::string error;
    if (!writeFile(path.toStdString(), model.specs, model.data, model.metadata, error))
        qFatal("writeFile: %s", error.c_str());
    return path;
}

std::shared_ptr<const Checkpoint> tst_CheckpointView::open(const QString &path)
{
    std::string error;
    auto checkpoint = Checkpoint::open(path.toStdString(), error);
    if (!checkpoint)
        qFatal("open: %s", error.c_str());
    return checkpoint;
}

void tst_CheckpointView::initTestCase()
{
    QStandardPaths::setTestModeEnabled(true);
    QVERIFY(m_dir.isValid());
    m_sample = writeSample(u"sample.safetensors"_s);
    // Two tensors whose bytes overlap: the reference rejects it ("offsets"), but both are shown.
    m_broken = m_dir.filePath(u"broken.safetensors"_s);
    QVERIFY(test::writeBytes(m_broken.toStdString(),
        test::rawFile(R"({"a.w":{"dtype":"F32","shape":[4],"data_offsets":[0,16]},)"
                      R"("a.b":{"dtype":"F32","shape":[4],"data_offsets":[8,24]}})",
            24)));
}

void tst_CheckpointView::tensorSelectionShowsOverview()
{
    CheckpointView view(open(m_sample), u"sample.safetensors"_s);
    QCOMPARE(view.currentPane(), CheckpointView::OverviewTab);
    QVERIFY(view.overviewPane()->plainText().contains(u"whole model"_s));
    QVERIFY(view.selectPath(u"model.layers.10.mlp.up_proj.weight"_s));
    const QString text = view.overviewPane()->plainText();
    QVERIFY2(text.contains(u"model.layers.10.mlp.up_proj.weight"_s), qPrintable(text));
    QVERIFY(text.contains(u"BF16"_s));
    QVERIFY(text.contains(u"[64, 16]"_s));
    QVERIFY(text.contains(u"1,024"_s)); // elements, with the locale's separator
    QVERIFY(text.contains(u"data_offsets"_s));
    QVERIFY(text.contains(u"Aligned to"_s));
    QCOMPARE(view.selectedTensor()->info->name, "model.layers.10.mlp.up_proj.weight");
    QVERIFY(view.validityText() == u"valid"_s);
    QVERIFY(view.summaryText().startsWith(u"%1 tensors · "_s.arg(view.checkpoint()->tensors().size())));
}

void tst_CheckpointView::groupSelectionShowsTotals()
{
    CheckpointView view(open(m_sample), u"sample.safetensors"_s);
    QVERIFY(view.selectPath(u"model.layers.2"_s));
    QCOMPARE(view.selectedTensor(), nullptr);
    const QString text = view.overviewPane()->plainText();
    QVERIFY2(text.contains(u"model.layers.2"_s), qPrintable(text));
    QVERIFY(text.contains(u"By dtype"_s));
    QVERIFY(text.contains(u"BF16"_s));
    QVERIFY(text.contains(u"F32"_s));
}

void tst_CheckpointView::panesComputeOnlyWhenShown()
{
    CheckpointView view(open(m_sample), u"sample.safetensors"_s);
    view.selectPath(u"model.norm.weight"_s);
    QCOMPARE(view.metadataPane()->tree()->topLevelItemCount(), 0);
    QCOMPARE(view.diagnosticsPane()->count(), 0);
    QVERIFY(!view.hexPane()->view()->file());
    view.setCurrentPane(CheckpointView::MetadataTab);
    QVERIFY(view.metadataPane()->tree()->topLevelItemCount() >= 2); // File, __metadata__
    QVERIFY(!view.hexPane()->view()->file());
    view.setCurrentPane(CheckpointView::HexTab);
    QVERIFY(view.hexPane()->view()->file());
    QCOMPARE(view.hexPane()->view()->tensor(), view.selectedTensor()->info);
    // While Hex is shown, a new selection reaches it and leaves the overview for later.
    const QString before = view.overviewPane()->plainText();
    view.selectPath(u"lm_head.weight"_s);
    QCOMPARE(view.hexPane()->view()->tensor()->name, "lm_head.weight");
    QCOMPARE(view.overviewPane()->plainText(), before);
    view.setCurrentPane(CheckpointView::OverviewTab);
    QVERIFY(view.overviewPane()->plainText().contains(u"lm_head.weight"_s));
}

void tst_CheckpointView::filterKeepsParents()
{
    CheckpointView view(open(m_sample), u"sample.safetensors"_s);
    QTest::keyClicks(view.filterEdit(), u"layers.11.mlp.down"_s);
    const QAbstractItemModel *model = view.treeView()->model();
    QCOMPARE(model->rowCount(), 1); // model
    QModelIndex index = model->index(0, 0);
    QStringList path;
    while (index.isValid()) {
        path << index.data().toString();
        QCOMPARE(model->rowCount(index) > 0 || index.data().toString() == u"weight"_s, true);
        index = model->index(0, 0, index);
    }
    QCOMPARE(path, (QStringList { u"model"_s, u"layers"_s, u"11"_s, u"mlp"_s, u"down_proj"_s, u"weight"_s }));
    view.filterEdit()->clear();
    QCOMPARE(model->rowCount(), 2);
}

void tst_CheckpointView::flatToggleKeepsSelection()
{
    CheckpointView view(open(m_sample), u"sample.safetensors"_s);
    view.selectPath(u"model.layers.3.self_attn.k_proj.weight"_s);
    auto *flat = view.findChild<QToolButton *>(u"flatToggle"_s);
    QVERIFY(flat);
    flat->toggle();
    QCOMPARE(std::size_t(view.treeView()->model()->rowCount()), view.checkpoint()->tensors().size());
    QCOMPARE(view.selectedPath(), u"model.layers.3.self_attn.k_proj.weight"_s);
    QCOMPARE(view.treeView()->currentIndex().data().toString(), u"model.layers.3.self_attn.k_proj.weight"_s);
}

// "N of M tensors match" under the filter, and each group's count, parameters and size are
// those of its matching tensors, not of everything below it.
void tst_CheckpointView::filterCountsAndTotalsWhatMatches()
{
    CheckpointView view(open(m_sample), u"sample.safetensors"_s);
    const std::size_t all = view.checkpoint()->tensors().size();
    QVERIFY(view.filterStatus()->isHidden());
    view.treeView()->setCurrentIndex(view.treeView()->model()->index(0, 0)); // lm_head, hidden by the filter
    view.treeView()->selectionModel()->clearSelection();
    view.filterEdit()->setText(u"mlp.up_proj"_s);
    QCOMPARE(view.selectedPath(), QString()); // typing selects nothing
    QVERIFY(!view.filterStatus()->isHidden());
    QCOMPARE(view.filterStatus()->text(), u"12 of %1 tensors match"_s.arg(all));
    QCOMPARE(view.filterModel()->matchCount(), 12u);

    const QAbstractItemModel *model = view.treeView()->model();
    const auto child = [model](const QModelIndex &parent, const QString &name) {
        for (int row = 0; row < model->rowCount(parent); ++row) {
            if (model->index(row, 0, parent).data().toString() == name)
                return model->index(row, 0, parent);
        }
        return QModelIndex();
    };
    const QModelIndex mlp = child(child(child(child({}, u"model"_s), u"layers"_s), u"3"_s), u"mlp"_s);
    QVERIFY(mlp.isValid());
    QCOMPARE(model->rowCount(mlp), 1);
    const QModelIndex up = child(child(mlp, u"up_proj"_s), u"weight"_s);
    QVERIFY(up.isValid());
    const auto cell = [model](const QModelIndex &index, int column) {
        return model->index(index.row(), column, index.parent()).data().toString();
    };
    // One tensor in the group: its totals are that tensor's (mlp holds three unfiltered).
    QCOMPARE(cell(mlp, TensorTreeModel::ShapeColumn), u"1 tensor"_s);
    QCOMPARE(cell(mlp, TensorTreeModel::ParametersColumn), cell(up, TensorTreeModel::ParametersColumn));
    QCOMPARE(cell(mlp, TensorTreeModel::SizeColumn), cell(up, TensorTreeModel::SizeColumn));
    QCOMPARE(cell(mlp, TensorTreeModel::DTypeColumn), u"BF16"_s);
    QCOMPARE(cell(child({}, u"model"_s), TensorTreeModel::ShapeColumn), u"12 tensors"_s);
    QVERIFY(model->index(mlp.row(), TensorTreeModel::ShapeColumn, mlp.parent())
                .data(Qt::ToolTipRole)
                .toString()
                .contains(u"1 of 3 tensors"_s));

    view.filterEdit()->setText(u"no such tensor"_s);
    QCOMPARE(view.filterStatus()->text().contains(u"0 of %1 tensors match"_s.arg(all)), true);
    QCOMPARE(model->rowCount(), 0);
    view.filterEdit()->clear();
    QVERIFY(view.filterStatus()->isHidden());
    const QModelIndex wholeMlp = child(child(child(child({}, u"model"_s), u"layers"_s), u"3"_s), u"mlp"_s);
    QCOMPARE(cell(wholeMlp, TensorTreeModel::ShapeColumn), u"3 tensors"_s);
}

// A regular expression that does not compile shows no tensor, and says what is wrong and where.
void tst_CheckpointView::invalidRegexShowsNothing()
{
    CheckpointView view(open(m_sample), u"sample.safetensors"_s);
    auto *mode = view.findChild<QComboBox *>(u"filterMode"_s);
    QVERIFY(mode);
    mode->setCurrentIndex(mode->findData(QVariant::fromValue(TensorFilterModel::Mode::Regex)));
    view.filterEdit()->setText(u"layers.(1"_s);
    QVERIFY(!view.filterModel()->isPatternValid());
    QCOMPARE(view.treeView()->model()->rowCount(), 0);
    const QString status = view.filterStatus()->text();
    QVERIFY2(status.contains(u"Invalid regular expression: missing closing parenthesis at character 10"_s),
        qPrintable(status));
    view.filterEdit()->setText(u"layers.(1)\\.mlp.up"_s);
    QVERIFY(view.filterModel()->isPatternValid());
    QVERIFY2(view.filterStatus()->text().startsWith(u"1 of"_s), qPrintable(view.filterStatus()->text()));
}

void tst_CheckpointView::escapeClearsTheFilter()
{
    CheckpointView view(open(m_sample), u"sample.safetensors"_s);
    view.show();
    QVERIFY(QTest::qWaitForWindowExposed(&view));
    view.activateWindow();
    QVERIFY(QTest::qWaitForWindowActive(&view));
    view.focusFilter();
    QTRY_VERIFY(view.filterEdit()->hasFocus());
    QTest::keyClicks(view.filterEdit(), u"k_proj"_s);
    QCOMPARE(view.filterModel()->matchCount(), 12u);
    QTest::keyClick(view.filterEdit(), Qt::Key_Escape);
    QCOMPARE(view.filterEdit()->text(), QString());
    QCOMPARE(view.treeView()->model()->rowCount(), 2);
}

// Flat and back: the groups that were open are open again, and the selection is the same tensor.
void tst_CheckpointView::flatRoundTripKeepsExpansion()
{
    CheckpointView view(open(m_sample), u"sample.safetensors"_s);
    QVERIFY(view.selectPath(u"model.layers.7.self_attn.v_proj.weight"_s)); // expands its parents
    QTreeView *tree = view.treeView();
    const auto proxyOf = [&view](const QString &path) {
        return view.filterModel()->mapFromSource(
            static_cast<TensorTreeModel *>(view.filterModel()->sourceModel())->indexOfPath(path));
    };
    tree->expand(proxyOf(u"model.layers.2.mlp"_s));
    tree->expand(proxyOf(u"model.layers.2"_s));
    tree->collapse(proxyOf(u"lm_head"_s));
    view.setFlat(true);
    QVERIFY(view.isFlat());
    QCOMPARE(view.selectedPath(), u"model.layers.7.self_attn.v_proj.weight"_s);
    view.setFlat(false);
    QVERIFY(!view.isFlat());
    QCOMPARE(view.selectedPath(), u"model.layers.7.self_attn.v_proj.weight"_s);
    for (const QString &open : { u"model"_s, u"model.layers"_s, u"model.layers.7"_s, u"model.layers.7.self_attn"_s,
             u"model.layers.2"_s, u"model.layers.2.mlp"_s })
        QVERIFY2(tree->isExpanded(proxyOf(open)), qPrintable(open));
    QVERIFY(!tree->isExpanded(proxyOf(u"model.layers.3"_s)));
    // The button says so too.
    QVERIFY(!view.findChild<QToolButton *>(u"flatToggle"_s)->isChecked());
}

// Typing an offset that lies in another tensor selects that tensor; the Hex pane stays there.
void tst_CheckpointView::goToOffsetSelectsTheTensor()
{
    CheckpointView view(open(m_sample), u"sample.safetensors"_s);
    view.resize(1000, 700);
    view.show();
    QVERIFY(QTest::qWaitForWindowExposed(&view));
    QVERIFY(view.selectPath(u"model.embed_tokens.weight"_s));
    view.setCurrentPane(CheckpointView::HexTab);
    const auto &header = view.checkpoint()->shards()[0]->header();
    const TensorInfo *target = nullptr;
    for (const auto &t : header.tensors) {
        if (t.name == "model.layers.5.mlp.down_proj.weight")
            target = &t;
    }
    QVERIFY(target);
    const quint64 offset = header.fileOffset(*target) + 10;
    auto *field = view.hexPane()->findChild<QLineEdit *>();
    QVERIFY(field);
    field->setText(QString::number(offset));
    QTest::keyClick(field, Qt::Key_Return);
    QCOMPARE(view.selectedPath(), u"model.layers.5.mlp.down_proj.weight"_s);
    QCOMPARE(view.hexPane()->view()->cursorOffset(), offset);
    QCOMPARE(view.hexPane()->view()->tensor(), target);
    // Within the selected tensor, the selection stays.
    field->setText(QString::number(offset + 4));
    QTest::keyClick(field, Qt::Key_Return);
    QCOMPARE(view.selectedPath(), u"model.layers.5.mlp.down_proj.weight"_s);
    QCOMPARE(view.hexPane()->view()->cursorOffset(), offset + 4);
}

void tst_CheckpointView::copyName()
{
    CheckpointView view(open(m_sample), u"sample.safetensors"_s);
    view.show();
    QVERIFY(QTest::qWaitForWindowExposed(&view));
    view.selectPath(u"model.embed_tokens.weight"_s);
    view.treeView()->setFocus();
    QTest::keySequence(view.treeView(), QKeySequence::Copy);
    QCOMPARE(QGuiApplication::clipboard()->text(), u"model.embed_tokens.weight"_s);
}

void tst_CheckpointView::invalidFileOpensOnDiagnostics()
{
    CheckpointView view(open(m_broken), u"broken.safetensors"_s);
    QCOMPARE(view.currentPane(), CheckpointView::DiagnosticsTab);
    QVERIFY(view.diagnosticsPane()->count() >= 1);
    const QTreeWidgetItem *first = view.diagnosticsPane()->table()->topLevelItem(0);
    QCOMPARE(first->text(DiagnosticsPane::RuleColumn), u"offsets"_s);
    QCOMPARE(first->text(DiagnosticsPane::SeverityColumn), u"error"_s);
    QVERIFY2(view.validityText().startsWith(u"invalid: offsets at byte "_s), qPrintable(view.validityText()));
    // Everything salvageable is still there.
    QVERIFY(view.selectPath(u"a.w"_s));
    QVERIFY(view.selectPath(u"a.b"_s));
}

void tst_CheckpointView::diagnosticJumpsToOffset()
{
    CheckpointView view(open(m_broken), u"broken.safetensors"_s);
    auto *table = view.diagnosticsPane()->table();
    QTreeWidgetItem *first = table->topLevelItem(0);
    const quint64 offset
        = first->text(DiagnosticsPane::OffsetColumn).remove(QLocale().groupSeparator()).toULongLong();
    emit table->itemActivated(first, 0);
    QCOMPARE(view.currentPane(), CheckpointView::HexTab);
    QCOMPARE(view.hexPane()->view()->cursorOffset(), offset);
    QCOMPARE(view.selectedPath(), u"a.b"_s);
}

// An index naming 10,005 tensors no shard holds: 10,000 are listed, the rest counted, and the
// tab and the summary give the whole number rather than the cap.
void tst_CheckpointView::problemsPastTheCapAreCounted()
{
    QDir folder(m_dir.filePath(u"capped"_s));
    QVERIFY(folder.mkpath(u"."_s));
    QVERIFY(test::writeBytes(folder.filePath(u"model-00001-of-00001.safetensors"_s).toStdString(),
        test::rawFile(R"({"a.w":{"dtype":"F32","shape":[1],"data_offsets":[0,4]}})", 4)));
    std::string index = R"({"weight_map":{"a.w":"model-00001-of-00001.safetensors")";
    for (int i = 0; i < 10'005; ++i)
        index += ",\"missing." + std::to_string(i) + R"(":"model-00001-of-00001.safetensors")";
    index += "}}";
    const QString indexPath = folder.filePath(u"model.safetensors.index.json"_s);
    QFile indexFile(indexPath);
    QVERIFY(indexFile.open(QIODevice::WriteOnly) && indexFile.write(index.data(), qint64(index.size())) > 0);
    indexFile.close();
    CheckpointView view(open(indexPath), u"capped"_s);
    QCOMPARE(view.diagnosticsPane()->table()->topLevelItemCount(), 10'000);
    const auto *tabs = view.diagnosticsPane()->parentWidget()->parentWidget();
    const auto *panes = qobject_cast<const QTabWidget *>(tabs);
    QVERIFY(panes);
    QCOMPARE(panes->tabText(panes->indexOf(view.diagnosticsPane())), u"Diagnostics (%1)"_s.arg(countText(10'005)));
    QVERIFY2(view.diagnosticsPane()->summaryText().contains(u"listed, and 5 more problems not listed"_s),
        qPrintable(view.diagnosticsPane()->summaryText()));
}

void tst_CheckpointView::truncatedWhileOpenMarksStale()
{
    const QString path = writeSample(u"shrinking.safetensors"_s);
    DocumentArea area;
    area.watcher()->setDelay(50);
    area.resize(1000, 700);
    area.show();
    area.openFile(path);
    QTRY_COMPARE_WITH_TIMEOUT(area.openingCount(), 0, 60000);
    CheckpointView *view = area.currentView();
    QVERIFY(view);
    view->selectPath(u"lm_head.weight"_s); // the last tensors in the file
    view->setCurrentPane(CheckpointView::HexTab);
    QVERIFY(QTest::qWaitForWindowExposed(&area));
    // Keep the header and a few data bytes: the mapped pages of the later tensors vanish.
    const auto dataStart = view->checkpoint()->shards()[0]->header().dataStart;
    QVERIFY(QFile::resize(path, qint64(dataStart) + 100));
    view->grab(); // before the watcher reports: the hex view reads vanished pages (guarded)
    QTRY_VERIFY(view->isStale());
    QVERIFY(view->messageBar()->isVisible());
    // The tab says so too (a tab not in front has no other sign), and a reload clears it.
    QVERIFY(!area.tabs()->tabIcon(0).isNull());
    QVERIFY(area.tabs()->tabToolTip(0).contains(u"changed on disk"_s));
    QVERIFY(view->hexPane()->view()->isStale());
    // Painting and moving through the vanished bytes must not end the program.
    view->hexPane()->goToOffset(100'000);
    view->grab();
    view->setCurrentPane(CheckpointView::LayoutTab);
    view->grab();
    // Reload sees the file as it is now: broken, so its diagnostics come first.
    // It runs off the GUI thread: the old document stays until the new one is in.
    area.reload(view);
    QCOMPARE(area.currentView(), view);
    QCOMPARE(area.reloadingCount(), 1);
    QTRY_COMPARE_WITH_TIMEOUT(area.reloadingCount(), 0, 60000);
    CheckpointView *reloaded = area.currentView();
    QVERIFY(reloaded && reloaded != view);
    QVERIFY(!reloaded->isStale());
    QVERIFY(!area.tabs()->tabToolTip(0).contains(u"changed on disk"_s));
    QVERIFY(!reloaded->checkpoint()->valid());
    QCOMPARE(reloaded->currentPane(), CheckpointView::DiagnosticsTab);
    QCOMPARE(reloaded->selectedPath(), u"lm_head.weight"_s);
}

void tst_CheckpointView::unreadablePathShowsMessage()
{
    DocumentArea area;
    QString error;
    const QString missing = m_dir.filePath(u"no-such-file.safetensors"_s);
    QSignalSpy failed(&area, &DocumentArea::openFailed);
    area.openFile(missing);
    QVERIFY(failed.wait());
    QCOMPARE(failed.first().first().toString(), missing);
    error = failed.first().at(1).toString();
    QVERIFY(!error.isEmpty());
    QCOMPARE(area.count(), 1);
    auto *label = area.tabs()->currentWidget()->findChild<QLabel *>(u"errorText"_s);
    QVERIFY(label);
    QVERIFY(label->text().contains(missing));
    QVERIFY(label->text().contains(error.toHtmlEscaped()));
    // A directory is not a checkpoint either; the area keeps working.
    area.openFile(m_dir.path());
    QVERIFY(failed.wait());
    area.openFile(m_sample);
    QTRY_COMPARE_WITH_TIMEOUT(area.openingCount(), 0, 60000);
    QCOMPARE(area.count(), 3);
    QVERIFY(area.currentView());
}

void tst_CheckpointView::hundredThousandTensorsOpenQuickly()
{
    std::vector<TensorSpec> specs;
    for (int layer = 0; layer < 1000; ++layer) {
        for (int t = 0; t < 100; ++t)
            specs.push_back(
                { "model.layers." + std::to_string(layer) + ".block." + std::to_string(t) + ".weight",
                    DType::F16, { 2 } });
    }
    std::vector<std::vector<std::byte>> data(specs.size(), std::vector<std::byte>(4));
    const QString path = m_dir.filePath(u"big.safetensors"_s);
    std::string error;
    QVERIFY(writeFile(path.toStdString(), specs, data, {}, error));

    // What a user waits for: open and parse, build the tree, show the window with its panes.
    QElapsedTimer timer;
    timer.start();
    CheckpointView view(open(path), u"big.safetensors"_s);
    view.resize(1200, 760);
    view.show();
    QVERIFY(QTest::qWaitForWindowExposed(&view));
    const qint64 ms = timer.elapsed();
    qInfo("100,000 tensors: open, parse, tree and first paint in %lld ms", ms);
    // Speed is judged by tests/bench/bench_gui, not here: this checks the 100,000 rows work.
    QVERIFY(view.selectPath(u"model.layers.999.block.99.weight"_s));
}

// Names are cut in the middle (".k_proj." and ".v_proj." stay apart), the name column takes the
// width the other columns leave, which every one of them fits into, and the whole name is the
// tooltip, in the tree and in the flat list.
void tst_CheckpointView::treeNamesElideInTheMiddle_data()
{
    QTest::addColumn<bool>("flat");
    QTest::newRow("tree") << false;
    QTest::newRow("flat") << true;
}

void tst_CheckpointView::treeNamesElideInTheMiddle()
{
    QFETCH(bool, flat);
    CheckpointView view(open(m_sample), u"sample.safetensors"_s);
    view.setFlat(flat);
    view.resize(1024, 700);
    view.show();
    QVERIFY(QTest::qWaitForWindowExposed(&view));
    QTreeView *tree = view.treeView();
    QCOMPARE(tree->textElideMode(), Qt::ElideMiddle);
    QHeaderView *header = tree->header();
    QCOMPARE(header->sectionResizeMode(TensorTreeModel::NameColumn), QHeaderView::Stretch);
    // Every column's header reads; the columns fill the view without a sideways scroll.
    for (int c = TensorTreeModel::DTypeColumn; c < TensorTreeModel::ColumnCount; ++c) {
        const QString title = tree->model()->headerData(c, Qt::Horizontal).toString();
        QVERIFY2(header->sectionSize(c) > header->fontMetrics().horizontalAdvance(title), qPrintable(title));
    }
    QCOMPARE(header->length(), tree->viewport()->width());
    const int narrow = header->sectionSize(TensorTreeModel::NameColumn);
    view.resize(1600, 1000);
    QTRY_VERIFY(header->sectionSize(TensorTreeModel::NameColumn) > narrow);

    const QString name = u"model.layers.7.self_attn.k_proj.weight"_s;
    QVERIFY(view.selectPath(name));
    const QModelIndex current = tree->currentIndex();
    QCOMPARE(current.data(Qt::ToolTipRole).toString(), name);
    QCOMPARE(current.data().toString(), flat ? name : u"weight"_s);
}

void tst_CheckpointView::compactCounts_data()
{
    QTest::addColumn<qulonglong>("value");
    QTest::addColumn<QString>("expected");
    QTest::newRow("0") << 0ull << u"0"_s;
    QTest::newRow("999,999") << 999'999ull << u"999,999"_s;
    QTest::newRow("a million") << 1'000'000ull << u"1.0 M"_s;
    QTest::newRow("16,777,216") << 16'777'216ull << u"16.8 M"_s;
    QTest::newRow("rounds up to the next scale") << 999'960'000ull << u"1.0 B"_s;
    QTest::newRow("235 B model") << 234'471'288'832ull << u"234.5 B"_s;
    QTest::newRow("405 B") << 405'000'000'000ull << u"405.0 B"_s;
    QTest::newRow("1.2 T") << 1'200'000'000'000ull << u"1.2 T"_s;
    QTest::newRow("2^64-1") << ~0ull << u"18,446.7 P"_s;
}

void tst_CheckpointView::compactCounts()
{
    QFETCH(qulonglong, value);
    QFETCH(QString, expected);
    const QLocale before;
    QLocale::setDefault(QLocale(QLocale::English, QLocale::UnitedStates)); // "." and ","
    const QString text = compactCountText(value);
    QLocale::setDefault(before);
    QCOMPARE(text, expected);
}

// The status bar's size is the file's and says so; the Overview's is the tensor data's and
// says so; the Parameters column is compact with the exact count as its tooltip.
void tst_CheckpointView::sizesAreLabelled()
{
    CheckpointView view(open(m_sample), u"sample.safetensors"_s);
    const QString size = sizeText(view.checkpoint()->totalFileBytes());
    QVERIFY2(view.summaryText().contains(u"file size "_s + size), qPrintable(view.summaryText()));
    const QString overview = view.overviewPane()->plainText();
    QVERIFY2(overview.contains(u"Tensor data"_s), qPrintable(overview));
    QVERIFY(!overview.contains(u"Bytes"_s));
    QVERIFY(!view.summaryText().contains(u"missing"_s));
    const auto *model = static_cast<TensorTreeModel *>(view.filterModel()->sourceModel());
    const QModelIndex parameters = model->index(0, TensorTreeModel::ParametersColumn);
    const auto count = parameters.data(TensorTreeModel::ParametersRole).toULongLong();
    QCOMPARE(parameters.data().toString(), compactCountText(count));
    QCOMPARE(parameters.data(Qt::ToolTipRole).toString(), countText(count) + u" parameters"_s);
}

// A truncated file: the tensors whose bytes are gone carry a warning icon and say which bytes,
// and the status bar counts them.
void tst_CheckpointView::missingBytesAreMarked()
{
    const QString path = m_dir.filePath(u"truncated.safetensors"_s);
    const std::string json = R"({"ok.a":{"dtype":"F32","shape":[4],"data_offsets":[0,16]},)"
                             R"("lost.b":{"dtype":"F32","shape":[4],"data_offsets":[16,32]},)"
                             R"("lost.deep.c":{"dtype":"F32","shape":[400],"data_offsets":[32,1632]}})";
    QVERIFY(test::writeBytes(path.toStdString(), test::rawFile(json, 20)));
    CheckpointView view(open(path), u"truncated.safetensors"_s);
    QVERIFY2(view.summaryText().endsWith(u"2 tensors have missing bytes"_s), qPrintable(view.summaryText()));
    const auto *model = static_cast<TensorTreeModel *>(view.filterModel()->sourceModel());
    const quint64 dataStart = view.checkpoint()->shards()[0]->header().dataStart;
    const quint64 fileSize = dataStart + 20;
    QVERIFY(model->missingBytesText(model->indexOfPath(u"ok.a"_s)).isEmpty());
    QVERIFY(model->indexOfPath(u"ok.a"_s).data(Qt::DecorationRole).isNull());
    const struct {
        QString name;
        quint64 begin, end;
    } missing[] { { u"lost.b"_s, fileSize, dataStart + 32 },
        { u"lost.deep.c"_s, dataStart + 32, dataStart + 1632 } };
    for (const auto &m : missing) {
        const QModelIndex index = model->indexOfPath(m.name);
        const QString expected = u"bytes %1–%2 lie past the end of the file (file is %3 bytes)"_s.arg(
            countText(m.begin), countText(m.end), countText(fileSize));
        QCOMPARE(model->missingBytesText(index), expected);
        QCOMPARE(index.data(Qt::ToolTipRole).toString(), m.name + u'\n' + expected);
        QVERIFY(!index.data(Qt::DecorationRole).value<QIcon>().isNull());
    }
    // Groups: a collapsed one holding such tensors carries the icon and counts them.
    const struct {
        QString group;
        QString tip; // empty: no icon
    } groups[] { { u"ok"_s, {} }, { u"lost"_s, u"lost\n2 tensors with bytes past the end of the file"_s },
        { u"lost.deep"_s, u"lost.deep\n1 tensor with bytes past the end of the file"_s } };
    for (const auto &g : groups) {
        const QModelIndex index = model->indexOfPath(g.group);
        QVERIFY(index.data(TensorTreeModel::IsGroupRole).toBool());
        QCOMPARE(index.data(Qt::DecorationRole).value<QIcon>().isNull(), g.tip.isEmpty());
        QCOMPARE(index.data(Qt::ToolTipRole).toString(), g.tip.isEmpty() ? g.group : g.tip);
    }
}

// A sharded model: the file panes show the selected tensor's shard or the one picked; the
// Metadata pane lists every shard and gives total_size as a size.
void tst_CheckpointView::shardPickerPicksTheFilePanesShard()
{
    QTemporaryDir dir;
    QVERIFY(dir.isValid());
    for (int s = 0; s < 2; ++s) {
        const std::vector<TensorSpec> specs { { "layer." + std::to_string(s) + ".weight", DType::F32,
            { 2 } } };
        const std::vector<std::vector<std::byte>> data { std::vector<std::byte>(8, std::byte { 1 }) };
        std::string error;
        QVERIFY2(
            writeFile(dir.filePath(u"part-%1.safetensors"_s.arg(s)).toStdString(), specs, data, {}, error),
            error.c_str());
    }
    const QString index = dir.filePath(u"model.safetensors.index.json"_s);
    QVERIFY(test::writeBytes(index.toStdString(), [] {
        const std::string json
            = R"({"metadata": {"total_size": 1234567}, "weight_map": )"
              R"({"layer.0.weight": "part-0.safetensors", "layer.1.weight": "part-1.safetensors"}})";
        return std::vector<std::byte>(reinterpret_cast<const std::byte *>(json.data()),
            reinterpret_cast<const std::byte *>(json.data()) + json.size());
    }()));
    CheckpointView view(open(index), u"model"_s);
    ShardPicker *picker = view.shardPicker();
    QVERIFY(picker);
    QCOMPARE(picker->count(), 2);
    QVERIFY2(picker->itemText(1).startsWith(u"part-1.safetensors — "_s), qPrintable(picker->itemText(1)));
    QVERIFY(picker->itemText(1).endsWith(u", 1 tensor"_s));
    QVERIFY(view.selectPath(u"layer.1.weight"_s));
    QCOMPARE(view.shownShard(), std::size_t(1));
    QCOMPARE(picker->currentIndex(), 1);
    view.setCurrentPane(CheckpointView::LayoutTab);
    QCOMPARE(view.layoutMap()->extents().empty(), false);
    QSignalSpy picked(picker, &ShardPicker::shardPicked);
    picker->activated(0); // what a click on the first entry emits
    QCOMPARE(picked.count(), 1);
    QCOMPARE(view.shownShard(), std::size_t(0));
    QCOMPARE(picker->currentIndex(), 0);
    view.setCurrentPane(CheckpointView::MetadataTab);
    const auto items
        = view.metadataPane()->tree()->findItems(u"total_size"_s, Qt::MatchExactly | Qt::MatchRecursive);
    QCOMPARE(items.size(), 1);
    QVERIFY2(items.first()->text(1).endsWith(u"(1,234,567 bytes)"_s), qPrintable(items.first()->text(1)));
    const auto shardItems = view.metadataPane()->tree()->findItems(
        u"part-1.safetensors"_s, Qt::MatchExactly | Qt::MatchRecursive);
    QVERIFY(!shardItems.isEmpty());
    QVERIFY(shardItems.last()->text(1).endsWith(u", 1 tensor"_s));
    QVERIFY(view.metadataPane()->tree()->topLevelItem(0)->text(0).contains(u"part-0.safetensors"_s));
}

QTEST_MAIN(tst_CheckpointView)
#include "tst_checkpointview.moc"
