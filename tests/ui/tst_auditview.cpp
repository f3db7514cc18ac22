#include "ui/audit/auditmodel.h"
#include "ui/audit/auditview.h"
#include "ui/common/elideatend.h"
#include "ui/common/qtformat.h"
#include "ui/common/statuscolors.h"
#include "ui/document/checkpointview.h"
#include "ui/document/diagnosticspane.h"
#include "ui/histogram/histogrampane.h"
#include "ui/shell/documentarea.h"
#include "ui/shell/mainwindow.h"
#include "ui/shell/sha256dialog.h"

#include "core/audit/audit.h"
#include "core/io/checkpoint.h"
#include "tests/support/testfiles.h"

#include <QAbstractItemModelTester>
#include <QCheckBox>
#include <QCryptographicHash>
#include <QFile>
#include <QHeaderView>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QLineEdit>
#include <QScrollBar>
#include <QSettings>
#include <QSignalSpy>
#include <QSortFilterProxyModel>
#include <QStandardPaths>
#include <QTableView>
#include <QTemporaryDir>
#include <QTest>
#include <QTreeView>
#include <QTreeWidget>

#include <cstring>
#include <limits>
#include <map>
#include <random>

using namespace Qt::StringLiterals;
using namespace stb;

namespace {

std::vector<std::byte> floats(const std::vector<float> &values)
{
    std::vector<std::byte> out(values.size() * sizeof(float));
    std::memcpy(out.data(), values.data(), out.size());
    return out;
}

std::vector<float> normal(std::size_t n, unsigned seed)
{
    std::mt19937 engine(seed);
    std::normal_distribution<float> dist(0.0f, 1.0f);
    std::vector<float> v(n);
    for (auto &x : v)
        x = dist(engine);
    return v;
}

} // namespace

// The audit panel: every tensor with the right flags, summary, sorting, filtering, export,
// cancel, selection synced with the tree, and SHA-256 of the files.
class tst_AuditView : public QObject {
    Q_OBJECT

private slots:
    void initTestCase();
    void init();
    void listsEveryTensorWithItsFlags();
    void sortsNumbersAsNumbers();
    void filterAndFlaggedOnly();
    void exportsParseableFiles();
    void cancelLeavesNoResult();
    void selectionFollowsTheTree();
    void histogramAfterTheAudit();
    void flagsCutAtTheirEnd();
    void flaggedOnlyKeepsTheSelection();
    void flagsHaveSeverities();
    void exportsWhatIsShown();
    void ignoresAreRememberedPerFolder();
    void summaryWording();
    void nameTakesTheRoom();
    void diagnosticsShowTheAudit();
    void sha256OfEachFile();
    void screenshot();

private:
    void runAudit();
    QString flagsOf(const QString &name) const;

    QTemporaryDir m_dir;
    QString m_path;
    std::shared_ptr<const Checkpoint> m_checkpoint;
    std::unique_ptr<CheckpointView> m_view;
    AuditView *m_audit = nullptr;
};

// One tensor per flag, each planted on exactly one tensor.
void tst_AuditView::initTestCase()
{
    QStandardPaths::setTestModeEnabled(true);
    QVERIFY(m_dir.isValid());
    auto withNan = normal(256, 2);
    withNan[5] = withNan[9] = withNan[77] = std::numeric_limits<float>::quiet_NaN();
    auto withInf = normal(256, 3);
    withInf[1] = std::numeric_limits<float>::infinity();
    auto spike = normal(4096, 4);
    spike[1000] = 1000.0f;
    const auto base = normal(256, 1);
    const std::vector<TensorSpec> specs
        = { { "layers.0.weight", DType::F32, { 16, 16 } }, { "layers.1.weight", DType::F32, { 16, 16 } },
              { "layers.2.weight", DType::F32, { 16, 16 } }, { "layers.10.weight", DType::F32, { 16, 16 } },
              { "norm.zeros", DType::F32, { 64 } }, { "norm.scale", DType::F32, { 32 } },
              { "copy.weight", DType::F32, { 16, 16 } }, { "spike.weight", DType::F32, { 4096 } } };
    const std::vector<std::vector<std::byte>> data = { floats(base), floats(withNan), floats(withInf),
        floats(normal(256, 10)), floats(std::vector<float>(64, 0.0f)), floats(std::vector<float>(32, 1.5f)),
        floats(base), floats(spike) };
    m_path = m_dir.filePath(u"planted.safetensors"_s);
    std::string error;
    QVERIFY2(writeFile(m_path.toStdString(), specs, data, {}, error), error.c_str());
    m_checkpoint = Checkpoint::open(m_path.toStdString(), error);
    QVERIFY2(m_checkpoint, error.c_str());
}

void tst_AuditView::init()
{
    QSettings().remove(u"auditIgnores"_s); // what a test ignored stays out of the next
    m_view = std::make_unique<CheckpointView>(m_checkpoint, u"planted.safetensors"_s);
    m_view->resize(1200, 700);
    m_view->show();
    m_audit = m_view->auditView();
    QVERIFY(m_audit->isHidden());
}

void tst_AuditView::runAudit()
{
    QSignalSpy finished(m_audit, &AuditView::finished);
    m_view->startAudit();
    QVERIFY(!m_audit->isHidden());
    QVERIFY(m_audit->isRunning());
    QTRY_COMPARE_WITH_TIMEOUT(finished.count(), 1, 20'000);
    QCOMPARE(finished.first().first().toBool(), true);
}

QString tst_AuditView::flagsOf(const QString &name) const
{
    const int row = m_audit->model()->rowOf(name);
    return m_audit->model()->index(row, AuditModel::FlagsColumn).data().toString();
}

void tst_AuditView::listsEveryTensorWithItsFlags()
{
    QAbstractItemModelTester tester(m_audit->model(), QAbstractItemModelTester::FailureReportingMode::QtTest);
    runAudit();
    QCOMPARE(m_audit->model()->rowCount(), 8);
    // Name order decides which of two identical tensors is the original: "copy" < "layers".
    QCOMPARE(flagsOf(u"layers.0.weight"_s), u"duplicate of copy.weight"_s);
    QCOMPARE(flagsOf(u"layers.1.weight"_s), u"NaN values"_s);
    QCOMPARE(flagsOf(u"layers.2.weight"_s), u"infinite values"_s);
    QCOMPARE(flagsOf(u"layers.10.weight"_s), QString());
    QCOMPARE(flagsOf(u"norm.zeros"_s), u"all zero"_s);
    QCOMPARE(flagsOf(u"norm.scale"_s), u"constant"_s);
    QCOMPARE(flagsOf(u"copy.weight"_s), QString());
    QCOMPARE(flagsOf(u"spike.weight"_s), u"1 outlier"_s);
    const int nanRow = m_audit->model()->rowOf(u"layers.1.weight"_s);
    QCOMPARE(m_audit->model()->index(nanRow, AuditModel::NaNColumn).data().toString(), countText(3));
    QVERIFY(m_audit->model()->index(nanRow, AuditModel::FlagsColumn).data(Qt::ForegroundRole).isValid());
    const int cleanRow = m_audit->model()->rowOf(u"layers.10.weight"_s);
    QVERIFY(!m_audit->model()->index(cleanRow, AuditModel::FlagsColumn).data(Qt::ForegroundRole).isValid());

    // The same verdicts as core's own audit with every digest and 64 bins (as the view ran it
    // before), and its summary line.
    const auto core = auditCheckpoint(*m_checkpoint, AnalysisOptions { 64, 0 });
    QVERIFY(core);
    QVERIFY2(m_audit->summaryText().startsWith(toQString(core->summary.text())),
        qPrintable(m_audit->summaryText()));
    QVERIFY(m_audit->summaryText().contains(u"1 duplicate pair"_s));
    QVERIFY(m_audit->summaryText().contains(u"1 tensor with NaN"_s));
    for (int row = 0; row < m_audit->model()->rowCount(); ++row)
        QCOMPARE(m_audit->model()->entryAt(row)->flags, core->entries[std::size_t(row)].flags);
}

void tst_AuditView::sortsNumbersAsNumbers()
{
    runAudit();
    auto *proxy = m_audit->proxy();
    const auto nameAt
        = [proxy](int row) { return proxy->index(row, AuditModel::NameColumn).data().toString(); };
    // Natural order: layers.2 before layers.10.
    m_audit->table()->sortByColumn(AuditModel::NameColumn, Qt::AscendingOrder);
    QStringList names;
    for (int row = 0; row < proxy->rowCount(); ++row)
        names << nameAt(row);
    QVERIFY2(names.indexOf(u"layers.2.weight"_s) < names.indexOf(u"layers.10.weight"_s),
        qPrintable(names.join(u' ')));

    m_audit->table()->sortByColumn(AuditModel::NaNColumn, Qt::DescendingOrder);
    QCOMPARE(nameAt(0), u"layers.1.weight"_s);
    m_audit->table()->sortByColumn(AuditModel::MaxColumn, Qt::DescendingOrder);
    QCOMPARE(nameAt(0), u"spike.weight"_s); // 1000 beats 3.x although "3" > "1" as text
    double previous = std::numeric_limits<double>::infinity();
    for (int row = 0; row < proxy->rowCount(); ++row) {
        const double value = proxy->index(row, AuditModel::MaxColumn).data(AuditModel::SortRole).toDouble();
        QVERIFY(value <= previous);
        previous = value;
    }
}

void tst_AuditView::filterAndFlaggedOnly()
{
    runAudit();
    m_audit->filterEdit()->setText(u"LAYERS"_s);
    QCOMPARE(m_audit->proxy()->rowCount(), 4);
    m_audit->flaggedOnlyToggle()->setChecked(true);
    QCOMPARE(m_audit->proxy()->rowCount(), 3); // the duplicate, the NaN and the Inf layer
    m_audit->filterEdit()->clear();
    QCOMPARE(m_audit->proxy()->rowCount(), 6);
    m_audit->flaggedOnlyToggle()->setChecked(false);
    QCOMPARE(m_audit->proxy()->rowCount(), 8);
}

void tst_AuditView::exportsParseableFiles()
{
    QTemporaryDir out;
    QVERIFY(!m_audit->exportJson(out.filePath(u"none.json"_s))); // nothing to export yet
    runAudit();
    const QString json = out.filePath(u"audit.json"_s);
    const QString markdown = out.filePath(u"audit.md"_s);
    QString error;
    QVERIFY2(m_audit->exportJson(json, &error), qPrintable(error));
    QVERIFY2(m_audit->exportMarkdown(markdown, &error), qPrintable(error));

    QFile jsonFile(json);
    QVERIFY(jsonFile.open(QIODevice::ReadOnly));
    QJsonParseError parseError;
    const QJsonDocument doc = QJsonDocument::fromJson(jsonFile.readAll(), &parseError);
    QCOMPARE(parseError.error, QJsonParseError::NoError);
    const QJsonArray tensors = doc.object().value(u"tensors"_s).toArray();
    QCOMPARE(tensors.size(), 8);
    std::map<QString, QJsonObject> byName;
    for (const auto &t : tensors)
        byName[t.toObject().value(u"name"_s).toString()] = t.toObject();
    QCOMPARE(byName[u"layers.1.weight"_s].value(u"nan"_s).toInt(), 3);
    QCOMPARE(byName[u"layers.0.weight"_s].value(u"duplicate_of"_s).toString(), u"copy.weight"_s);
    QVERIFY(byName[u"copy.weight"_s].value(u"duplicate_of"_s).isNull());
    QVERIFY(doc.object().value(u"summary"_s).isObject());
    // Histograms with the CLI's 10 bins, as `safetensors-inspect audit --json` writes them.
    QCOMPARE(
        byName[u"layers.10.weight"_s].value(u"histogram"_s).toObject().value(u"counts"_s).toArray().size(),
        qsizetype(AuditView::kBins));

    QFile mdFile(markdown);
    QVERIFY(mdFile.open(QIODevice::ReadOnly | QIODevice::Text));
    const QString md = QString::fromUtf8(mdFile.readAll());
    QVERIFY(md.startsWith(u"# Audit of"_s));
    QVERIFY(md.contains(u"| tensor | dtype | shape |"_s));
    for (const auto &[name, object] : byName)
        QVERIFY2(md.contains(name), qPrintable(name));
}

void tst_AuditView::cancelLeavesNoResult()
{
    QSignalSpy finished(m_audit, &AuditView::finished);
    m_view->startAudit();
    QVERIFY(m_audit->isRunning());
    m_audit->cancel();
    QVERIFY(!m_audit->isRunning());
    QCOMPARE(finished.count(), 1);
    QCOMPARE(finished.first().first().toBool(), false);
    // Once the cancelled scan has returned, whatever it produced would have landed.
    QTRY_VERIFY_WITH_TIMEOUT(m_audit->jobs().isIdle(), 60000);
    QCOMPARE(m_audit->model()->rowCount(), 0);
    QVERIFY(!m_audit->model()->hasResult());
    QVERIFY(m_audit->summaryText().contains(u"cancelled"_s));
    QVERIFY(!m_audit->exportJson(QDir::temp().filePath(u"stb-never.json"_s)));
    runAudit(); // and a new audit still works
    QCOMPARE(m_audit->model()->rowCount(), 8);
}

void tst_AuditView::selectionFollowsTheTree()
{
    runAudit();
    // A row chosen in the table selects that tensor in the tree.
    const QModelIndex row = m_audit->proxy()->mapFromSource(
        m_audit->model()->index(m_audit->model()->rowOf(u"spike.weight"_s), 0));
    m_audit->table()->setCurrentIndex(row);
    QCOMPARE(m_view->selectedPath(), u"spike.weight"_s);
    // And the tree's selection moves the table's current row, without echoing back.
    QSignalSpy echoed(m_audit, &AuditView::tensorSelected);
    QVERIFY(m_view->selectPath(u"norm.zeros"_s));
    QCOMPARE(m_audit->table()->currentIndex().data(AuditModel::NameRole).toString(), u"norm.zeros"_s);
    QCOMPARE(echoed.count(), 0);
    QCOMPARE(m_view->selectedPath(), u"norm.zeros"_s);
}

// Names are cut in the middle, flags at their end (cut in the middle, two flags ran together).
void tst_AuditView::flagsCutAtTheirEnd()
{
    QCOMPARE(m_audit->table()->textElideMode(), Qt::ElideMiddle);
    auto *delegate = dynamic_cast<ElideAtEndDelegate *>(
        m_audit->table()->itemDelegateForColumn(AuditModel::FlagsColumn));
    QVERIFY(delegate);
    struct Probe : ElideAtEndDelegate {
        using ElideAtEndDelegate::initStyleOption;
    } probe;
    QStyleOptionViewItem option;
    option.textElideMode = Qt::ElideMiddle;
    probe.initStyleOption(&option, QModelIndex());
    QCOMPARE(option.textElideMode, Qt::ElideRight);
}

// The audit scans with the CLI's 10 bins, not the pane's: the pane scans a tensor it shows
// after an audit itself, with its own bins and digest, and agrees with the audit's numbers.
void tst_AuditView::histogramAfterTheAudit()
{
    runAudit();
    m_view->setCurrentPane(CheckpointView::HistogramTab);
    QVERIFY(m_view->selectPath(u"layers.1.weight"_s));
    HistogramPane *pane = m_view->histogramPane();
    QTRY_VERIFY(pane->analysis());
    QCOMPARE(pane->jobsStarted(), 1);
    QCOMPARE(pane->analysis()->histogram.counts.size(), std::size_t(pane->bins()));
    QVERIFY(pane->analysis()->digest);
    const AuditEntry *entry = m_audit->model()->entryAt(m_audit->model()->rowOf(u"layers.1.weight"_s));
    QVERIFY(entry);
    QCOMPARE(pane->analysis()->stats.nan, 3u);
    QCOMPARE(entry->analysis.stats.nan, 3u);
    QCOMPARE(pane->analysis()->stats.min, entry->analysis.stats.min);
    QCOMPARE(pane->analysis()->stats.max, entry->analysis.stats.max);
}

void tst_AuditView::sha256OfEachFile()
{
    m_view->computeSha256();
    auto *dialog = m_view->findChild<Sha256Dialog *>();
    QVERIFY(dialog);
    QVERIFY2(dialog->introText().startsWith(u"SHA-256 of this file,"_s), qPrintable(dialog->introText()));
    QTRY_VERIFY(!dialog->digest(0).isEmpty());
    QFile file(m_path);
    QVERIFY(file.open(QIODevice::ReadOnly));
    QCOMPARE(dialog->digest(0),
        QString::fromLatin1(QCryptographicHash::hash(file.readAll(), QCryptographicHash::Sha256).toHex()));
    dialog->close(); // deletes itself
    QTRY_VERIFY(!m_view->findChild<Sha256Dialog *>());
}

// Ticking "Flagged only" (or typing a filter) never moves the selection to another tensor: a
// shown row stays selected, a hidden one leaves no row selected, and the tree keeps its tensor.
void tst_AuditView::flaggedOnlyKeepsTheSelection()
{
    runAudit();
    QSignalSpy moved(m_audit, &AuditView::tensorSelected);
    QVERIFY(m_view->selectPath(u"layers.10.weight"_s)); // clean: hidden by "Flagged only"
    m_audit->flaggedOnlyToggle()->setChecked(true);
    QCOMPARE(m_view->selectedPath(), u"layers.10.weight"_s);
    QVERIFY(!m_audit->table()->selectionModel()->hasSelection());
    m_audit->flaggedOnlyToggle()->setChecked(false);
    QCOMPARE(m_view->selectedPath(), u"layers.10.weight"_s);

    QVERIFY(m_view->selectPath(u"layers.2.weight"_s)); // flagged: stays shown and selected
    m_audit->flaggedOnlyToggle()->setChecked(true);
    QCOMPARE(m_view->selectedPath(), u"layers.2.weight"_s);
    QCOMPARE(m_audit->table()->currentIndex().data(AuditModel::NameRole).toString(), u"layers.2.weight"_s);
    m_audit->filterEdit()->setText(u"spike"_s);
    QCOMPARE(m_view->selectedPath(), u"layers.2.weight"_s);
    QVERIFY(!m_audit->table()->selectionModel()->hasSelection());
    QCOMPARE(moved.count(), 0);
}

void tst_AuditView::flagsHaveSeverities()
{
    runAudit();
    const auto colourOf = [this](const QString &name) {
        return m_audit->model()
            ->index(m_audit->model()->rowOf(name), AuditModel::FlagsColumn)
            .data(Qt::ForegroundRole)
            .value<QBrush>()
            .color();
    };
    QCOMPARE(colourOf(u"layers.1.weight"_s), toneText(Tone::Bad)); // NaN: error
    QCOMPARE(colourOf(u"norm.zeros"_s), toneText(Tone::Warning)); // all zero: warning
    QCOMPARE(colourOf(u"spike.weight"_s), toneText(Tone::Warning)); // outliers: warning
    QCOMPARE(colourOf(u"norm.scale"_s), toneText(Tone::Information)); // constant: note
    QCOMPARE(colourOf(u"layers.0.weight"_s), toneText(Tone::Information)); // duplicate: note
    const QString tip = m_audit->model()
                            ->index(m_audit->model()->rowOf(u"layers.1.weight"_s), AuditModel::FlagsColumn)
                            .data(Qt::ToolTipRole)
                            .toString();
    QCOMPARE(tip, u"error: NaN values"_s);
    // Errors sort above warnings, warnings above notes.
    m_audit->table()->sortByColumn(AuditModel::FlagsColumn, Qt::DescendingOrder);
    const auto nameAt = [this](int row) { return m_audit->proxy()->index(row, 0).data(AuditModel::NameRole).toString(); };
    QVERIFY(QStringList({ u"layers.1.weight"_s, u"layers.2.weight"_s }).contains(nameAt(0)));
    QVERIFY(QStringList({ u"norm.zeros"_s, u"spike.weight"_s }).contains(nameAt(2)));
}

void tst_AuditView::exportsWhatIsShown()
{
    runAudit();
    m_audit->filterEdit()->setText(u"layers"_s);
    m_audit->flaggedOnlyToggle()->setChecked(true);
    QVERIFY(m_audit->isFiltered());
    QCOMPARE(m_audit->shownScope(), u"3 of 8 tensors shown (flagged only, names containing “layers”)"_s);
    QTemporaryDir out;
    const QString json = out.filePath(u"shown.json"_s), markdown = out.filePath(u"shown.md"_s);
    QVERIFY(m_audit->exportJson(json, nullptr, AuditView::Rows::Shown));
    QVERIFY(m_audit->exportMarkdown(markdown, nullptr, AuditView::Rows::Shown));
    QFile jsonFile(json);
    QVERIFY(jsonFile.open(QIODevice::ReadOnly));
    const QJsonObject doc = QJsonDocument::fromJson(jsonFile.readAll()).object();
    QStringList names;
    for (const auto &t : doc.value(u"tensors"_s).toArray())
        names << t.toObject().value(u"name"_s).toString();
    names.sort();
    QCOMPARE(names, (QStringList { u"layers.0.weight"_s, u"layers.1.weight"_s, u"layers.2.weight"_s }));
    QCOMPARE(doc.value(u"shown"_s).toObject().value(u"of"_s).toInt(), 8);
    QVERIFY(doc.value(u"shown"_s).toObject().value(u"scope"_s).toString().contains(u"flagged only"_s));
    QFile mdFile(markdown);
    QVERIFY(mdFile.open(QIODevice::ReadOnly | QIODevice::Text));
    const QString md = QString::fromUtf8(mdFile.readAll());
    QVERIFY2(md.contains(u"Rows: 3 of 8 tensors shown (flagged only"_s), qPrintable(md));
    QVERIFY(!md.contains(u"spike.weight"_s));
    // Everything is still one choice away.
    QVERIFY(m_audit->exportJson(json, nullptr, AuditView::Rows::All));
    QFile allFile(json); // written anew: another file under the same name
    QVERIFY(allFile.open(QIODevice::ReadOnly));
    QCOMPARE(QJsonDocument::fromJson(allFile.readAll()).object().value(u"tensors"_s).toArray().size(), 8);
}

void tst_AuditView::ignoresAreRememberedPerFolder()
{
    runAudit();
    QVERIFY(m_audit->summaryText().contains(u"1 constant"_s));
    AuditIgnores ignores;
    ignores.kinds = { AuditFlag::Kind::Constant };
    ignores.namePatterns = { "spike.*" };
    m_audit->setIgnores(ignores);
    QVERIFY2(!m_audit->summaryText().contains(u"constant,"_s), qPrintable(m_audit->summaryText()));
    QVERIFY(!m_audit->summaryText().contains(u"outliers,"_s));
    QVERIFY(m_audit->summaryText().contains(u"2 expected, not counted: ignored rules, ignored names"_s));
    QCOMPARE(flagsOf(u"norm.scale"_s), u"constant (expected: ignored rules)"_s);
    QVERIFY(!m_audit->model()
                 ->index(m_audit->model()->rowOf(u"norm.scale"_s), 0)
                 .data(AuditModel::FlaggedRole)
                 .toBool());
    // Another view of the same model (a new window, a later session) ignores the same.
    CheckpointView again(m_checkpoint, u"planted.safetensors"_s);
    QSignalSpy finished(again.auditView(), &AuditView::finished);
    again.startAudit();
    QTRY_COMPARE_WITH_TIMEOUT(finished.count(), 1, 20'000);
    QVERIFY(again.auditView()->summaryText().contains(u"2 expected, not counted"_s));
    m_audit->setIgnores({});
    QVERIFY(m_audit->summaryText().contains(u"1 constant"_s));
}

// One number format, and the tensor count said once.
void tst_AuditView::summaryWording()
{
    runAudit();
    const QString text = m_audit->summaryText();
    QVERIFY2(text.startsWith(u"1 tensor with NaN, 1 tensor with Inf"_s), qPrintable(text));
    QVERIFY2(text.contains(u" (8 tensors, %1 values, "_s.arg(countText(5472))), qPrintable(text));

    const QString clean = m_dir.filePath(u"clean.safetensors"_s);
    const auto checkpoint = test::writeCheckpoint(clean.toStdString(),
        std::vector<TensorSpec> { { "a", DType::F32, { 2000 } }, { "b", DType::F32, { 3 } } },
        [](std::size_t spec, std::size_t i) { return float(i % 7) - 3.0f + float(spec); });
    CheckpointView view(checkpoint, u"clean.safetensors"_s);
    QSignalSpy finished(view.auditView(), &AuditView::finished);
    view.startAudit();
    QTRY_COMPARE_WITH_TIMEOUT(finished.count(), 1, 20'000);
    QCOMPARE(view.auditView()->summaryText(), u"No findings in 2 tensors (2,003 values, 7.8 KiB)"_s);
}

// The Diagnostics pane says that values are the audit's business, links to it, and shows its
// findings once it ran.
// A wide window gives its room to the names (the last column used to stretch over nothing
// while names were cut); a narrow one keeps 26 digits of name and scrolls the numbers sideways.
void tst_AuditView::nameTakesTheRoom()
{
    runAudit();
    QTableView *table = m_audit->table();
    QHeaderView *header = table->horizontalHeader();
    const int digit = table->fontMetrics().horizontalAdvance(u'0');
    m_view->resize(1600, 1000);
    QTRY_VERIFY(table->viewport()->width() > 1200);
    const int last = header->logicalIndex(header->count() - 1);
    QTRY_VERIFY2(header->sectionSize(AuditModel::NameColumn) > 40 * digit,
        qPrintable(QString::number(header->sectionSize(AuditModel::NameColumn))));
    QVERIFY2(header->sectionSize(last) < 20 * digit, qPrintable(QString::number(header->sectionSize(last))));
    QCOMPARE(table->horizontalScrollBar()->maximum(), 0); // every column whole, none cut at the edge
    m_view->resize(700, 700);
    QTRY_COMPARE(header->sectionSize(AuditModel::NameColumn), 26 * digit + 12);
    QVERIFY(table->horizontalScrollBar()->maximum() > 0);
}

void tst_AuditView::diagnosticsShowTheAudit()
{
    DiagnosticsPane *pane = m_view->diagnosticsPane();
    m_view->setCurrentPane(CheckpointView::DiagnosticsTab);
    QVERIFY2(pane->summaryText().contains(u"<a href='audit'>audit the checkpoint</a>"_s),
        qPrintable(pane->summaryText()));
    QCOMPARE(pane->count(), 0);
    QSignalSpy finished(m_audit, &AuditView::finished);
    emit pane->auditRequested(); // the link
    QVERIFY(!m_audit->isHidden());
    QTRY_COMPARE_WITH_TIMEOUT(finished.count(), 1, 20'000);
    QVERIFY2(pane->summaryText().contains(u"1 tensor with NaN"_s), qPrintable(pane->summaryText()));
    QVERIFY(pane->summaryText().contains(u"Show the audit"_s));
    QStringList rules;
    for (int i = 0; i < pane->count(); ++i)
        rules << pane->table()->topLevelItem(i)->text(DiagnosticsPane::RuleColumn) + u"@"_s
                + pane->table()->topLevelItem(i)->text(DiagnosticsPane::TensorColumn);
    QVERIFY2(rules.contains(u"nan@layers.1.weight"_s), qPrintable(rules.join(u' ')));
    QVERIFY(rules.contains(u"inf@layers.2.weight"_s));
    QCOMPARE(pane->count(), 6); // nan, inf, all zero, constant, outlier, duplicate
    // A row jumps to the tensor.
    QTreeWidgetItem *nan = pane->table()->findItems(u"nan"_s, Qt::MatchExactly, DiagnosticsPane::RuleColumn).first();
    emit pane->table()->itemActivated(nan, 0);
    QCOMPARE(m_view->selectedPath(), u"layers.1.weight"_s);
}

// STB_SCREENSHOT_DIR=dir saves dir/audit.png: the window after auditing the planted checkpoint.
void tst_AuditView::screenshot()
{
    const QString dir = qEnvironmentVariable("STB_SCREENSHOT_DIR");
    if (dir.isEmpty())
        QSKIP("set STB_SCREENSHOT_DIR to save a screenshot");
    MainWindow window;
    window.resize(1200, 760);
    window.openFiles({ m_path });
    QTRY_COMPARE_WITH_TIMEOUT(window.documents()->openingCount(), 0, 60000);
    window.show();
    CheckpointView *view = window.documents()->currentView();
    view->setCurrentPane(CheckpointView::HistogramTab);
    QSignalSpy finished(view->auditView(), &AuditView::finished);
    view->startAudit();
    QTRY_COMPARE(finished.count(), 1);
    view->auditView()->table()->sortByColumn(AuditModel::FlagsColumn, Qt::DescendingOrder);
    QVERIFY(view->selectPath(u"layers.1.weight"_s));
    view->histogramPane()->setLogarithmic(false);
    QTest::qWait(150);
    QVERIFY(window.grab().save(dir + u"/audit.png"_s));
}

QTEST_MAIN(tst_AuditView)
#include "tst_auditview.moc"
