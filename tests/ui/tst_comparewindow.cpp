#include "ui/common/fittingtextdelegate.h"
#include "ui/common/statuscolors.h"
#include "ui/compare/comparedetailspane.h"
#include "ui/compare/comparefiltermodel.h"
#include "ui/compare/comparehistogrampane.h"
#include "ui/compare/comparemodel.h"
#include "ui/compare/comparerunner.h"
#include "ui/compare/comparetreesview.h"
#include "ui/compare/comparewindow.h"
#include "ui/document/checkpointview.h"
#include "ui/document/overviewpane.h"
#include "ui/histogram/histogrampane.h"
#include "ui/shell/documentarea.h"
#include "ui/shell/mainwindow.h"
#include "ui/shell/messagebar.h"

#include "core/format/writer.h"
#include "core/io/checkpoint.h"

#include <QAbstractItemModelTester>
#include <QApplication>
#include <QCheckBox>
#include <QDropEvent>
#include <QElapsedTimer>
#include <QFile>
#include <QFileInfo>
#include <QHeaderView>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QLabel>
#include <QMimeData>
#include <QScopeGuard>
#include <QScrollBar>
#include <QSignalSpy>
#include <QStandardPaths>
#include <QTemporaryDir>
#include <QTest>
#include <QTreeView>

#include <algorithm>
#include <limits>

#include <cstring>

using namespace Qt::StringLiterals;
using namespace stb;

namespace {

template<typename T> std::vector<std::byte> bytesOf(const std::vector<T> &values)
{
    std::vector<std::byte> out(values.size() * sizeof(T));
    std::memcpy(out.data(), values.data(), out.size());
    return out;
}

struct Entry {
    std::string name;
    DType dtype;
    std::vector<std::uint64_t> shape;
    std::vector<std::byte> data;
};

QString write(const QTemporaryDir &dir, const QString &name, const std::vector<Entry> &entries,
    const Metadata &metadata = {})
{
    std::vector<TensorSpec> specs;
    std::vector<std::vector<std::byte>> data;
    for (const auto &e : entries) {
        specs.push_back({ e.name, e.dtype, e.shape });
        data.push_back(e.data);
    }
    const QString path = dir.filePath(name);
    std::string error;
    if (!writeFile(path.toStdString(), specs, data, metadata, error))
        qFatal("writeFile: %s", error.c_str());
    return path;
}

const std::vector<float> kQ { 0, 1, 2, 3, 4, 5 };
const std::vector<float> kQChanged { 0, 1.01f, 2, 3, 4, 5.5f }; // largest difference 0.5 at [1, 2]

} // namespace

// The compare window: models aligned on both sides, synchronized trees, metrics from core,
// tolerances, export, cancel and drops.
class tst_CompareWindow : public QObject {
    Q_OBJECT

private slots:
    void initTestCase();
    void modelUnderTester();
    void treesAlignedAndSynchronized();
    void differencesOnlyHidesIdentical();
    void metricsOfSelectedTensor();
    void unreadableRows();
    void groupShowsCountsPerStatus();
    void groupStatusShortens();
    void tolerancesChangeVerdict();
    void exportWritesParseableJson();
    void exportsStateTheTolerances();
    void noLocationWhenNothingDiffers();
    void cancelLeavesNoResult();
    void unopenableSideSaysWhy();
    void dropReplacesSides();
    void darkPalette();
    void hundredThousandTensors();
    void columnsAndLegendFitAt1024();

private:
    void openAndWait(CompareWindow &window, const QString &a, const QString &b);
    QTemporaryDir m_dir;
    QString m_a, m_b, m_c1, m_c2;
};

void tst_CompareWindow::initTestCase()
{
    QStandardPaths::setTestModeEnabled(true);
    QVERIFY(m_dir.isValid());
    const std::vector<float> three { 1, 2, 3 }, four { 1, 2, 3, 4 };
    const std::vector<double> fourWide { 1, 2, 3, 4 };
    std::vector<Entry> a {
        { "lm_head.weight", DType::F32, { 2, 2 }, bytesOf(four) },
        { "model.embed.weight", DType::F32, { 2, 3 }, bytesOf(kQ) },
        { "model.layers.0.attn.q.weight", DType::F32, { 2, 3 }, bytesOf(kQ) },
        { "model.layers.0.mlp.up.weight", DType::F32, { 4 }, bytesOf(four) },
        { "model.layers.1.attn.q.weight", DType::F32, { 2, 3 }, bytesOf(kQ) },
        { "model.layers.1.old.bias", DType::F32, { 3 }, bytesOf(three) },
        { "model.norm.weight", DType::F32, { 3 }, bytesOf(three) },
    };
    std::vector<Entry> b = a;
    b[2].data = bytesOf(kQChanged);
    b[3] = { "model.layers.0.mlp.up.weight", DType::F64, { 4 }, bytesOf(fourWide) };
    b[4].shape = { 3, 2 };
    b[5] = { "model.layers.1.new.bias", DType::F32, { 3 }, bytesOf(three) };
    m_a = write(m_dir, u"a.safetensors"_s, a, { { "format", "pt" } });
    m_b = write(m_dir, u"b.safetensors"_s, b, { { "format", "pt" }, { "step", "2" } });
    m_c1 = write(m_dir, u"c1.safetensors"_s, { { "w", DType::F32, { 2, 3 }, bytesOf(kQ) } });
    m_c2 = write(m_dir, u"c2.safetensors"_s, { { "w", DType::F32, { 2, 3 }, bytesOf(kQChanged) } });
}

void tst_CompareWindow::openAndWait(CompareWindow &window, const QString &a, const QString &b)
{
    QSignalSpy finished(&window, &CompareWindow::comparisonFinished);
    window.openFiles(a, b);
    QVERIFY(finished.wait(10'000) || finished.count() == 1);
    QVERIFY(window.result());
}

void tst_CompareWindow::modelUnderTester()
{
    CompareModel model(CompareModel::Side::B);
    CompareFilterModel proxy;
    QAbstractItemModelTester tester(&model, QAbstractItemModelTester::FailureReportingMode::QtTest);
    proxy.setSourceModel(&model);
    QAbstractItemModelTester proxyTester(&proxy, QAbstractItemModelTester::FailureReportingMode::QtTest);
    std::string error;
    auto a = Checkpoint::open(m_a.toStdString(), error);
    auto b = Checkpoint::open(m_b.toStdString(), error);
    QVERIFY(a && b);
    auto comparison = compareCheckpoints(*a, *b, {});
    QVERIFY(comparison);
    const auto result
        = std::make_shared<const CompareResult>(a, b, CompareOptions {}, std::move(*comparison));
    model.setResult(result);
    QCOMPARE(model.rowCount(), 2); // lm_head, model
    proxy.setDifferencesOnly(true);
    QCOMPARE(proxy.rowCount(), 1); // lm_head is all identical
    proxy.setPattern(u"bias"_s);
    QCOMPARE(proxy.rowCount(), 1);
    // A name only in A is a grey placeholder row on side B, in the same place as on side A.
    const QModelIndex old = model.indexOfPath(u"model.layers.1.old.bias"_s);
    QVERIFY(old.isValid());
    QCOMPARE(old.data(CompareModel::PresentRole).toBool(), false);
    QCOMPARE(old.data(CompareModel::StatusRole).toInt(), int(PairStatus::OnlyInA));
    QVERIFY(old.data(Qt::BackgroundRole).value<QColor>().isValid());
    QVERIFY(
        model.index(0, CompareModel::StatusColumn, model.indexOfPath(u"model.layers"_s).parent()).isValid());
    model.setResult(nullptr);
    QCOMPARE(model.rowCount(), 0);
}

void tst_CompareWindow::treesAlignedAndSynchronized()
{
    CompareWindow window;
    window.resize(900, 420);
    window.show();
    QVERIFY(QTest::qWaitForWindowExposed(&window));
    openAndWait(window, m_a, m_b);
    QCOMPARE(window.windowTitle(), u"a.safetensors ↔ b.safetensors"_s);
    QTreeView *a = window.trees()->treeA(), *b = window.trees()->treeB();
    // Same rows at every level, the same names in the same places.
    std::function<void(const QModelIndex &, const QModelIndex &)> same
        = [&](const QModelIndex &x, const QModelIndex &y) {
              QCOMPARE(a->model()->rowCount(x), b->model()->rowCount(y));
              for (int row = 0; row < a->model()->rowCount(x); ++row) {
                  const QModelIndex cx = a->model()->index(row, 0, x), cy = b->model()->index(row, 0, y);
                  QCOMPARE(cx.data().toString(), cy.data().toString());
                  same(cx, cy);
              }
          };
    same({}, {});
    // The details pane's words in the status bar: one vocabulary.
    QCOMPARE(window.summaryText(),
        u"1 changed · 1 dtype changed · 1 shape changed · 1 only in A · 1 only in B · 3 identical"_s);

    // Expanding and collapsing on A does the same on B.
    const QModelIndex lmA = a->model()->index(0, 0), lmB = b->model()->index(0, 0);
    QCOMPARE(lmA.data().toString(), u"lm_head"_s);
    QVERIFY(a->isExpanded(lmA) && b->isExpanded(lmB)); // the first level opens on both
    b->collapse(lmB);
    QVERIFY(!a->isExpanded(lmA));
    a->expand(lmA);
    QVERIFY(b->isExpanded(lmB));
    // The way down to a difference is open on both; an all-identical group below is not.
    const QModelIndex layers = b->model()->index(1, 0, b->model()->index(1, 0));
    QCOMPARE(layers.data().toString(), u"layers"_s);
    QVERIFY(b->isExpanded(layers) && b->isExpanded(b->model()->index(0, 0, layers)));
    a->expandAll();
    b->expandAll();

    // Selecting on B selects the same row on A, and the details follow.
    const QModelIndex modelB = b->model()->index(1, 0);
    const QModelIndex embed = b->model()->index(0, 0, modelB);
    QCOMPARE(embed.data().toString(), u"embed"_s);
    b->setCurrentIndex(b->model()->index(0, 0, embed));
    QCOMPARE(window.trees()->selectedPath(), u"model.embed.weight"_s);
    QCOMPARE(a->selectionModel()->selectedRows().value(0).data().toString(), u"weight"_s);
    QVERIFY(window.details()->metricsText().contains(u"model.embed.weight"_s));

    // One scroll position for both.
    a->setFixedHeight(120); // fewer rows than the tree has, wherever the window's layout puts it
    b->setFixedHeight(120);
    QTRY_VERIFY(a->verticalScrollBar()->maximum() > 0);
    a->verticalScrollBar()->setValue(a->verticalScrollBar()->maximum());
    QCOMPARE(b->verticalScrollBar()->value(), a->verticalScrollBar()->value());
    b->verticalScrollBar()->setValue(1);
    QCOMPARE(a->verticalScrollBar()->value(), 1);
}

void tst_CompareWindow::differencesOnlyHidesIdentical()
{
    CompareWindow window;
    openAndWait(window, m_a, m_b);
    window.differencesOnlyBox()->setChecked(true);
    for (QTreeView *tree : { window.trees()->treeA(), window.trees()->treeB() }) {
        int tensors = 0;
        std::function<void(const QModelIndex &)> visit = [&](const QModelIndex &parent) {
            for (int row = 0; row < tree->model()->rowCount(parent); ++row) {
                const QModelIndex index = tree->model()->index(row, 0, parent);
                if (index.data(CompareModel::StatusRole).toInt() >= 0) {
                    ++tensors;
                    QVERIFY(index.data(CompareModel::StatusRole).toInt() != int(PairStatus::Identical));
                }
                visit(index);
            }
        };
        visit({});
        QCOMPARE(tensors, 5);
        QCOMPARE(tree->model()->rowCount(), 1); // lm_head is gone
    }
    window.differencesOnlyBox()->setChecked(false);
    QCOMPARE(window.trees()->treeA()->model()->rowCount(), 2);
}

void tst_CompareWindow::metricsOfSelectedTensor()
{
    CompareWindow window;
    openAndWait(window, m_a, m_b);
    QVERIFY(window.trees()->selectPath(u"model.layers.0.attn.q.weight"_s));
    const QString text = window.details()->metricsText();
    QVERIFY2(text.contains(u"changed"_s), qPrintable(text));
    QVERIFY2(text.contains(u"0.5 at [1, 2] (element 5)"_s), qPrintable(text));
    QVERIFY2(text.contains(u"2 of 6"_s), qPrintable(text));
    QVERIFY(text.contains(u"Cosine similarity"_s));
    QCOMPARE(CompareDetailsPane::multiIndexText(23, { 2, 3, 4 }), u"[1, 2, 3]"_s);
    QCOMPARE(CompareDetailsPane::multiIndexText(0, {}), u"[]"_s);
    CompareHistogramPane *histograms = window.details()->histogramPane();
    QTRY_VERIFY(histograms->histograms());
    QCOMPARE(histograms->histograms()->diffCount, 6u);
    std::uint64_t total = 0;
    for (auto c : histograms->histograms()->a.counts)
        total += c;
    QCOMPARE(total, 6u);
    QCOMPARE(histograms->histograms()->a.lo, histograms->histograms()->b.lo); // shared bins
    QVERIFY(window.details()->overviewA()->plainText().contains(u"F32"_s));

    QVERIFY(window.trees()->selectPath(u"model.layers.1.new.bias"_s));
    QVERIFY(window.details()->metricsText().contains(u"no counterpart"_s));
    QTRY_VERIFY(histograms->histograms());
    QVERIFY(histograms->diffCaption().contains(u"only defined"_s));
}

// A tensor that cannot be read on a side is an unreadable row on both sides (tinted as an error,
// never identical), its tooltip and the details say which side and why; a name an index lists in
// a missing shard is unreadable there, not "only in A".
void tst_CompareWindow::unreadableRows()
{
    const QString truncated = m_dir.filePath(u"truncated.safetensors"_s);
    QFile::remove(truncated);
    QVERIFY(QFile::copy(m_a, truncated));
    QVERIFY(QFile::resize(truncated, QFileInfo(m_a).size() - 4));
    CompareWindow window;
    openAndWait(window, m_a, truncated);
    const Comparison &comparison = window.result()->comparison;
    QCOMPARE(comparison.counts[std::size_t(PairStatus::Unreadable)], std::size_t(1));
    const auto unreadable = std::find_if(comparison.pairs.begin(), comparison.pairs.end(),
        [](const TensorPair &pair) { return pair.status == PairStatus::Unreadable; });
    const QString name = QString::fromStdString(unreadable->name);
    for (CompareModel *model : { window.trees()->modelA(), window.trees()->modelB() }) {
        const QModelIndex row = model->indexOfPath(name);
        QVERIFY(row.isValid());
        const QModelIndex status = row.siblingAtColumn(CompareModel::StatusColumn);
        QCOMPARE(status.data().toString(), u"unreadable"_s);
        QCOMPARE(
            row.data(Qt::BackgroundRole).value<QColor>(), CompareModel::statusColor(PairStatus::Unreadable));
        QVERIFY(row.data(CompareModel::DifferingRole).toBool());
        const QString tip = row.data(Qt::ToolTipRole).toString();
        QVERIFY2(tip.contains(u"in B: bytes "_s) && tip.contains(u"lie past the end of the file"_s),
            qPrintable(tip));
    }
    QVERIFY(window.trees()->selectPath(name));
    const QString text = window.details()->metricsText();
    QVERIFY2(text.contains(u"unreadable"_s) && text.contains(u"in B: bytes"_s), qPrintable(text));
    QVERIFY2(!text.contains(u"shapes differ"_s), qPrintable(text));

    const QString shard = write(m_dir, u"s.safetensors"_s, { { "w", DType::F32, { 2, 3 }, bytesOf(kQ) } });
    const QString index = m_dir.filePath(u"model.safetensors.index.json"_s);
    QFile file(index);
    QVERIFY(file.open(QIODevice::WriteOnly | QIODevice::Truncate));
    file.write(R"({"weight_map": {"w": "s.safetensors", "v": "gone.safetensors"}})");
    file.close();
    openAndWait(window, m_c1, index);
    const QModelIndex listed = window.trees()->modelA()->indexOfPath(u"v"_s);
    QVERIFY(listed.isValid());
    QCOMPARE(listed.data(CompareModel::StatusRole).toInt(), int(PairStatus::Unreadable));
    QCOMPARE(listed.siblingAtColumn(CompareModel::StatusColumn).data().toString(), u"unreadable"_s);
    QVERIFY2(listed.data(Qt::ToolTipRole)
                 .toString()
                 .contains(u"in B: shard \"gone.safetensors\" cannot be read"_s),
        qPrintable(listed.data(Qt::ToolTipRole).toString()));
}

void tst_CompareWindow::groupShowsCountsPerStatus()
{
    CompareWindow window;
    openAndWait(window, m_a, m_b);
    QVERIFY(window.trees()->selectPath(u"model.layers.0"_s));
    const QString text = window.details()->metricsText();
    QVERIFY2(text.contains(u"1 changed · 1 dtype changed"_s), qPrintable(text));
    window.trees()->treeA()->clearSelection();
    QVERIFY(window.details()->metricsText().contains(u"step"_s)); // metadata added in B
}

// A group's status in three lengths, and the longest that fits is the one shown.
void tst_CompareWindow::groupStatusShortens()
{
    CompareTree::Counts counts {};
    QCOMPARE(CompareModel::statusTexts(counts), QStringList { u"all identical"_s });
    counts[std::size_t(PairStatus::Changed)] = 5;
    counts[std::size_t(PairStatus::ShapeChanged)] = 1;
    counts[std::size_t(PairStatus::OnlyInB)] = 1;
    counts[std::size_t(PairStatus::Identical)] = 30;
    const QStringList forms = CompareModel::statusTexts(counts);
    QCOMPARE(forms,
        (QStringList { u"5 changed · 1 shape changed · 1 only in B"_s, u"5 changed · 1 shape · 1 B only"_s,
            u"7 differ"_s }));
    counts = {};
    counts[CompareTree::kWithinTolerance] = 3;
    QCOMPARE(CompareModel::statusTexts(counts).back(), u"3 ≈ tol."_s);

    const QFontMetrics metrics(QApplication::font());
    QCOMPARE(FittingTextDelegate::fitting(forms, metrics, 10'000), forms[0]);
    QCOMPARE(FittingTextDelegate::fitting(forms, metrics, metrics.horizontalAdvance(forms[1])), forms[1]);
    QCOMPARE(FittingTextDelegate::fitting(forms, metrics, metrics.horizontalAdvance(forms[1]) - 1), forms[2]);
    QCOMPARE(FittingTextDelegate::fitting(forms, metrics, 1), forms[2]); // elided by the view
    QCOMPARE(FittingTextDelegate::fitting({}, metrics, 100), QString());
}

void tst_CompareWindow::tolerancesChangeVerdict()
{
    CompareWindow window;
    openAndWait(window, m_c1, m_c2);
    QCOMPARE(window.verdictText(), u"different"_s);
    QSignalSpy finished(&window, &CompareWindow::comparisonFinished);
    QVERIFY(!window.setTolerances(u"abc"_s, QString()));
    QVERIFY(window.setTolerances(u"0.6"_s, QString()));
    QVERIFY(finished.wait(10'000));
    QCOMPARE(window.verdictText(), u"equivalent within tolerance"_s);
    QCOMPARE(window.summaryText(), u"1 within tolerance"_s);
    QVERIFY(window.details()->metricsText().contains(u"within tolerance"_s)); // whole: counts per status
    QCOMPARE(window.trees()->modelA()->index(0, CompareModel::StatusColumn).data().toString(),
        u"within tolerance"_s);
    QVERIFY(window.trees()->selectPath(u"w"_s));
    QVERIFY(window.setTolerances(u"0.1"_s, u"0.01"_s));
    QVERIFY(finished.wait(10'000));
    QCOMPARE(window.verdictText(), u"different"_s);
    QCOMPARE(window.trees()->selectedPath(), u"w"_s); // a re-run keeps the selection
    QVERIFY2(window.details()->metricsText().contains(u"Out of tolerance"_s),
        qPrintable(window.details()->metricsText()));
}

void tst_CompareWindow::exportWritesParseableJson()
{
    CompareWindow window;
    openAndWait(window, m_a, m_b);
    // Through a link (dangling until then): the file it points to is written, the link kept.
    const QString path = m_dir.filePath(u"diff.json"_s), link = m_dir.filePath(u"diff-link.json"_s);
    QVERIFY(QFile::link(u"diff.json"_s, link));
    QString error;
    QVERIFY2(window.exportJson(link, &error), qPrintable(error));
    QCOMPARE(QFileInfo(link).symLinkTarget(), path);
    QFile file(path);
    QVERIFY(file.open(QIODevice::ReadOnly));
    QJsonParseError parseError;
    const QJsonDocument doc = QJsonDocument::fromJson(file.readAll(), &parseError);
    QCOMPARE(parseError.error, QJsonParseError::NoError);
    QCOMPARE(doc.object().value(u"tensors"_s).toArray().size(), 8);
    QCOMPARE(doc.object().value(u"summary"_s).toObject().value(u"changed"_s).toInt(), 1);
    QVERIFY(window.exportMarkdown(m_dir.filePath(u"diff.md"_s)));
    QVERIFY(QFile(m_dir.filePath(u"diff.md"_s)).size() > 0);
    QVERIFY(!window.exportMarkdown(m_dir.path(), &error)); // a folder is never replaced
    QVERIFY2(error.contains(u"Is a directory"_s), qPrintable(error));
}

// The exports are of what the window shows: compared with its tolerances, which they state.
void tst_CompareWindow::exportsStateTheTolerances()
{
    CompareWindow window;
    openAndWait(window, m_c1, m_c2);
    QSignalSpy finished(&window, &CompareWindow::comparisonFinished);
    QVERIFY(window.setTolerances(u"0.6"_s, u"0.001"_s));
    QVERIFY(finished.wait(10'000));
    const QString json = m_dir.filePath(u"tolerant.json"_s), markdown = m_dir.filePath(u"tolerant.md"_s);
    QVERIFY(window.exportJson(json));
    QVERIFY(window.exportMarkdown(markdown));
    QFile jsonFile(json);
    QVERIFY(jsonFile.open(QIODevice::ReadOnly));
    const QJsonObject doc = QJsonDocument::fromJson(jsonFile.readAll()).object();
    QCOMPARE(doc.value(u"tolerances"_s).toObject().value(u"atol"_s).toDouble(), 0.6);
    QCOMPARE(doc.value(u"tolerances"_s).toObject().value(u"rtol"_s).toDouble(), 0.001);
    QCOMPARE(doc.value(u"summary"_s).toObject().value(u"within_tolerance"_s).toInt(), 1);
    QCOMPARE(doc.value(u"summary"_s).toObject().value(u"text"_s).toString(), window.summaryText());
    QVERIFY(doc.value(u"tensors"_s).toArray().first().toObject().value(u"within_tolerance"_s).toBool());
    QFile mdFile(markdown);
    QVERIFY(mdFile.open(QIODevice::ReadOnly | QIODevice::Text));
    const QString md = QString::fromUtf8(mdFile.readAll());
    QVERIFY2(md.contains(u"**1 within tolerance**"_s), qPrintable(md));
    QVERIFY(md.contains(u"Tolerances: atol 0.6, rtol 0.001"_s));
    QVERIFY(md.contains(u"| changed (within tolerance) |"_s));

    // Without tolerances the files say that bytes were compared.
    QVERIFY(window.setTolerances(QString(), QString()));
    QVERIFY(finished.wait(10'000));
    QVERIFY(window.exportMarkdown(markdown));
    QFile again(markdown);
    QVERIFY(again.open(QIODevice::ReadOnly | QIODevice::Text));
    QVERIFY(QString::fromUtf8(again.readAll()).contains(u"Tolerances: none: every byte compared"_s));
}

// A pair whose finite values are all equal (it differs in a NaN) has no "at [i]".
void tst_CompareWindow::noLocationWhenNothingDiffers()
{
    const std::vector<float> a { 1, std::numeric_limits<float>::quiet_NaN() }, b { 1, 2 };
    const QString pathA = write(m_dir, u"nan-a.safetensors"_s, { { "w", DType::F32, { 2 }, bytesOf(a) } });
    const QString pathB = write(m_dir, u"nan-b.safetensors"_s, { { "w", DType::F32, { 2 }, bytesOf(b) } });
    CompareWindow window;
    openAndWait(window, pathA, pathB);
    QVERIFY(window.trees()->selectPath(u"w"_s));
    const QString text = window.details()->metricsText();
    QVERIFY2(text.contains(u"0 (equal wherever both are finite)"_s), qPrintable(text));
    QVERIFY2(!text.contains(u" at ["_s), qPrintable(text));
    const QString json = m_dir.filePath(u"nan.json"_s);
    QVERIFY(window.exportJson(json));
    QFile file(json);
    QVERIFY(file.open(QIODevice::ReadOnly));
    QVERIFY(QJsonDocument::fromJson(file.readAll())
                .object()
                .value(u"tensors"_s)
                .toArray()
                .first()
                .toObject()
                .value(u"argmax"_s)
                .isNull());
}

// Opening runs off the GUI thread: a side that cannot be opened ends in the bar, naming the file,
// and in comparisonFailed; nothing is compared.
void tst_CompareWindow::unopenableSideSaysWhy()
{
    CompareWindow window;
    QSignalSpy failed(&window, &CompareWindow::comparisonFailed);
    QSignalSpy finished(&window, &CompareWindow::comparisonFinished);
    const QString missing = m_dir.filePath(u"missing.safetensors"_s);
    window.openFiles(m_a, missing);
    QVERIFY(window.isComparing());
    QVERIFY(failed.wait(60'000));
    QVERIFY(!window.isComparing());
    QVERIFY(!window.messageBar()->isHidden()); // the window itself is not shown
    QVERIFY(window.messageBar()->text().contains(missing));
    QCOMPARE(finished.count(), 0);
    QVERIFY(!window.result());
}

void tst_CompareWindow::cancelLeavesNoResult()
{
    CompareWindow window;
    QSignalSpy cancelled(&window, &CompareWindow::comparisonCancelled);
    QSignalSpy finished(&window, &CompareWindow::comparisonFinished);
    window.openFiles(m_a, m_b);
    QVERIFY(window.isComparing());
    window.cancel();
    QCOMPARE(cancelled.count(), 1);
    QVERIFY(!window.isComparing());
    // Once the cancelled job has returned, whatever it produced would have been delivered.
    QTRY_VERIFY_WITH_TIMEOUT(window.runner()->jobs().isIdle(), 60000);
    QCOMPARE(finished.count(), 0);
    QVERIFY(!window.result());
    QVERIFY(window.summaryText().contains(u"cancelled"_s));
}

void tst_CompareWindow::dropReplacesSides()
{
    CompareWindow window;
    window.show();
    QVERIFY(QTest::qWaitForWindowExposed(&window));
    openAndWait(window, m_a, m_b);
    const auto drop = [&window](const QStringList &paths) {
        QSignalSpy finished(&window, &CompareWindow::comparisonFinished);
        QMimeData mime;
        QList<QUrl> urls;
        for (const QString &path : paths)
            urls << QUrl::fromLocalFile(path);
        mime.setUrls(urls);
        const QPoint pos = window.rect().center();
        QDragEnterEvent enter(pos, Qt::CopyAction, &mime, Qt::LeftButton, Qt::NoModifier);
        QCoreApplication::sendEvent(&window, &enter);
        if (!enter.isAccepted())
            return false;
        QDropEvent drop(pos, Qt::CopyAction, &mime, Qt::LeftButton, Qt::NoModifier);
        QCoreApplication::sendEvent(&window, &drop);
        return finished.wait(10'000);
    };
    QVERIFY(drop({ m_c2 }));
    QCOMPARE(window.windowTitle(), u"a.safetensors ↔ c2.safetensors"_s);
    QVERIFY(drop({ m_c1, m_c2 }));
    QCOMPARE(window.windowTitle(), u"c1.safetensors ↔ c2.safetensors"_s);
}

// A dark theme: the status tints turn deep and the status text light, so the palette's own text
// stays readable on every row; nothing paints light-theme colours over it.
void tst_CompareWindow::darkPalette()
{
    const QPalette light = QApplication::palette();
    const auto restore = qScopeGuard([light] { QApplication::setPalette(light); });
    QPalette dark;
    dark.setColor(QPalette::Window, QColor(0x2d, 0x2d, 0x2d));
    dark.setColor(QPalette::WindowText, QColor(0xe8, 0xe8, 0xe8));
    dark.setColor(QPalette::Base, QColor(0x1e, 0x1e, 0x1e));
    dark.setColor(QPalette::AlternateBase, QColor(0x26, 0x26, 0x26));
    dark.setColor(QPalette::Text, QColor(0xe8, 0xe8, 0xe8));
    dark.setColor(QPalette::Button, QColor(0x35, 0x35, 0x35));
    dark.setColor(QPalette::ButtonText, QColor(0xe8, 0xe8, 0xe8));
    dark.setColor(QPalette::Mid, QColor(0x50, 0x50, 0x50));
    dark.setColor(QPalette::Midlight, QColor(0x40, 0x40, 0x40));
    dark.setColor(QPalette::Highlight, QColor(0x2a, 0x82, 0xda));
    QApplication::setPalette(dark);
    QVERIFY(isDarkPalette());
    const double text = dark.color(QPalette::Text).lightnessF();
    for (PairStatus status : { PairStatus::Changed, PairStatus::DTypeChanged, PairStatus::ShapeChanged,
             PairStatus::OnlyInA, PairStatus::OnlyInB, PairStatus::Unreadable }) {
        for (const bool tolerable : { false, true }) {
            const QColor tint = CompareModel::statusColor(status, tolerable);
            QVERIFY2(text - tint.lightnessF() > 0.45, qPrintable(tint.name()));
        }
    }
    for (Tone tone : { Tone::Good, Tone::Bad, Tone::Warning })
        QVERIFY2(toneText(tone).lightnessF() > 0.55, qPrintable(toneText(tone).name()));
    QVERIFY(invalidFieldStyle().contains(toneTint(Tone::Bad).name()));

    CompareWindow window;
    window.resize(1200, 700);
    openAndWait(window, m_a, m_b);
    window.show();
    // The model's rows carry the dark tints, and no forced foreground on them.
    const QModelIndex changed = window.trees()->modelB()->indexOfPath(u"model.layers.0.attn.q.weight"_s);
    QVERIFY(changed.isValid());
    QVERIFY(changed.data(Qt::BackgroundRole).value<QColor>().lightnessF() < 0.4);
    QVERIFY(!changed.data(Qt::ForegroundRole).isValid());
    if (const QString dir = qEnvironmentVariable("STB_SCREENSHOT_DIR"); !dir.isEmpty()) {
        QVERIFY(window.trees()->selectPath(u"model.layers.0.attn.q.weight"_s));
        QTRY_VERIFY(window.grab().save(dir + u"/compare-dark.png"_s));
        // The main window too: status line, tree, histogram chart and its statistics.
        MainWindow main;
        main.resize(1200, 700);
        main.openFiles({ m_a });
        QTRY_COMPARE_WITH_TIMEOUT(main.documents()->openingCount(), 0, 60000); // opening is background work
        main.show();
        CheckpointView *view = main.documents()->currentView();
        QVERIFY(view);
        view->setCurrentPane(CheckpointView::HistogramTab);
        QVERIFY(view->selectPath(u"model.layers.0.mlp.up.weight"_s));
        QTRY_VERIFY(view->histogramPane()->analysis());
        QVERIFY(main.grab().save(dir + u"/main-dark.png"_s));
    }
}

void tst_CompareWindow::hundredThousandTensors()
{
    std::vector<Entry> a, b;
    for (int i = 0; i < 100'000; ++i) {
        const std::string name = "model.layers." + std::to_string(i / 100) + ".t" + std::to_string(i % 100);
        a.push_back({ name, DType::F32, { 1 }, bytesOf(std::vector<float> { float(i) }) });
        b.push_back({ name, DType::F32, { 1 }, bytesOf(std::vector<float> { float(i % 1000 ? i : -i) }) });
    }
    const QString pathA = write(m_dir, u"big-a.safetensors"_s, a),
                  pathB = write(m_dir, u"big-b.safetensors"_s, b);
    QElapsedTimer timer;
    timer.start();
    CompareWindow window;
    openAndWait(window, pathA, pathB);
    QCOMPARE(window.result()->comparison.counts[std::size_t(PairStatus::Changed)], 99u); // i = 0 is -0 = +0
    window.differencesOnlyBox()->setChecked(true);
    QVERIFY(window.trees()->selectPath(u"model.layers.999.t0"_s) == false); // identical: filtered out
    QVERIFY(window.trees()->selectPath(u"model.layers.990.t0"_s));
    qInfo("100,000 tensors compared, shown and filtered in %lld ms", timer.elapsed());
}

// At 1024×700 the status and shape of every row read whole, and the legend is one line.
void tst_CompareWindow::columnsAndLegendFitAt1024()
{
    CompareWindow window;
    window.resize(1024, 700);
    window.show();
    QVERIFY(QTest::qWaitForWindowExposed(&window));
    openAndWait(window, m_a, m_b);
    for (QTreeView *tree : { window.trees()->treeA(), window.trees()->treeB() }) {
        tree->expandAll();
        QCOMPARE(tree->textElideMode(), Qt::ElideMiddle);
        QVERIFY(qobject_cast<FittingTextDelegate *>(tree->itemDelegateForColumn(CompareModel::StatusColumn)));
        QCOMPARE(tree->header()->sectionResizeMode(CompareModel::NameColumn), QHeaderView::Stretch);
        QVERIFY2(tree->header()->length() <= tree->viewport()->width(),
            qPrintable(u"%1 px of columns in %2 (name %3)"_s.arg(tree->header()->length())
                           .arg(tree->viewport()->width())
                           .arg(tree->header()->sectionSize(0))));
        const QFontMetrics metrics = tree->fontMetrics();
        for (QModelIndex index = tree->model()->index(0, 0); index.isValid();
             index = tree->indexBelow(index)) {
            for (int column : { int(CompareModel::ShapeColumn), int(CompareModel::StatusColumn) }) {
                if (tree->isColumnHidden(column))
                    continue;
                QString text = index.siblingAtColumn(column).data().toString();
                // A group's counts are shown in the longest of their forms that fits the column
                // ("1 changed · 1 dtype changed", "1 changed · 1 dtype", "2 differ").
                const QStringList forms
                    = index.siblingAtColumn(column).data(CompareModel::StatusTextsRole).toStringList();
                if (!forms.isEmpty())
                    text = FittingTextDelegate::fitting(forms, metrics, tree->header()->sectionSize(column) - 4);
                QVERIFY2(metrics.horizontalAdvance(text) < tree->header()->sectionSize(column), qPrintable(text));
            }
        }
    }
    // A row's status is the pair's: side B shows it for both, side A gives its names the room.
    QVERIFY(window.trees()->treeA()->isColumnHidden(CompareModel::StatusColumn));
    QVERIFY(!window.trees()->treeB()->isColumnHidden(CompareModel::StatusColumn));
    // Narrower than two trees and the details side by side: the details go under the trees.
    const auto *splitter = window.trees()->parentWidget();
    QVERIFY(window.trees()->height() > 200);
    QVERIFY(splitter);
    // Under the trees the details are wide and low: their text beside the charts, each with the
    // whole height (one above the other left the text a strip of two lines).
    QVERIFY(window.details()->isSideBySide());
    QTRY_VERIFY2(window.details()->histogramPane()->height() > 150
            && window.details()->histogramPane()->width() > window.details()->width() / 2,
        qPrintable(u"charts %1×%2 px in %3 px"_s.arg(window.details()->histogramPane()->width())
                       .arg(window.details()->histogramPane()->height())
                       .arg(window.details()->width())));
    window.resize(1600, 1000);
    QTRY_VERIFY(!window.details()->isSideBySide());
    auto *legend = window.findChild<QLabel *>(u"compareLegend"_s);
    QVERIFY(legend);
    QVERIFY(!legend->wordWrap());
    QVERIFY2(legend->sizeHint().width() <= legend->width(),
        qPrintable(u"legend %1 px in %2"_s.arg(legend->sizeHint().width()).arg(legend->width())));
}

QTEST_MAIN(tst_CompareWindow)
#include "tst_comparewindow.moc"
