#include "ui/compare/comparewindow.h"

#include "core/compare/comparereport.h"
#include "ui/common/droppedfiles.h"
#include "ui/common/qtformat.h"
#include "ui/common/statuscolors.h"
#include "ui/compare/comparedepthpane.h"
#include "ui/compare/comparedetailspane.h"
#include "ui/compare/compareexport.h"
#include "ui/compare/comparemodel.h"
#include "ui/compare/comparerunner.h"
#include "ui/compare/comparetreesview.h"
#include "ui/shell/messagebar.h"

#include <QCheckBox>
#include <QDoubleValidator>
#include <QDragEnterEvent>
#include <QFile>
#include <QFileDialog>
#include <QFileInfo>
#include <QHBoxLayout>
#include <QLabel>
#include <QLineEdit>
#include <QLocale>
#include <QMenuBar>
#include <QMimeData>
#include <QProgressBar>
#include <QPushButton>
#include <QScrollArea>
#include <QSplitter>
#include <QStatusBar>
#include <QTabWidget>
#include <QTextDocumentFragment>

#include <optional>
#include <utility>

using namespace Qt::StringLiterals;

namespace stb {

namespace {

constexpr int kSideBySideWidth = 1200; // below it the details go under the trees

// A tolerance as typed: empty means "not given"; in the user's locale or in C ("1e-3").
std::optional<double> parseTolerance(const QString &text, bool &ok)
{
    ok = true;
    if (text.trimmed().isEmpty())
        return std::nullopt;
    double value = QLocale().toDouble(text.trimmed(), &ok);
    if (!ok)
        value = QLocale::c().toDouble(text.trimmed(), &ok);
    ok = ok && value >= 0 && std::isfinite(value);
    return value;
}

QString displayName(const Checkpoint &checkpoint)
{
    return QFileInfo(toQString(checkpoint.path())).fileName();
}

} // namespace

CompareWindow::CompareWindow(QWidget *parent)
    : QMainWindow(parent)
    , m_runner(new CompareRunner(this))
    , m_bar(new MessageBar(this))
    , m_trees(new CompareTreesView(this))
    , m_details(new CompareDetailsPane(this))
    , m_depth(new CompareDepthPane(this))
    , m_summary(new QLabel(this))
    , m_verdict(new QLabel(this))
    , m_progress(new QProgressBar(this))
    , m_cancel(new QPushButton(tr("Cancel"), this))
{
    setWindowTitle(tr("A ↔ B"));
    setAcceptDrops(true);
    auto *central = new QWidget(this);
    auto *layout = new QVBoxLayout(central);
    layout->setContentsMargins(4, 4, 4, 0);
    layout->addWidget(m_bar);
    layout->addWidget(createControls());
    auto *splitter = m_splitter = new QSplitter(Qt::Horizontal, central);
    splitter->addWidget(m_trees);
    // The selection's details, or the whole comparison over depth.
    auto *right = new QTabWidget(central);
    right->setDocumentMode(true);
    right->setObjectName(u"compareTabs"_s);
    right->addTab(m_details, tr("Details"));
    right->addTab(m_depth, tr("Depth"));
    // In a scroll area: under the trees (a narrow window) the details may get less height than
    // their two charts ask for, and scroll rather than squeeze the trees.
    auto *rightScroll = new QScrollArea(central);
    rightScroll->setWidget(right);
    rightScroll->setWidgetResizable(true);
    rightScroll->setFrameShape(QFrame::NoFrame);
    splitter->addWidget(rightScroll);
    connect(m_depth, &CompareDepthPane::pathActivated, this, &CompareWindow::selectPath);
    splitter->setStretchFactor(0, 3);
    splitter->setStretchFactor(1, 2);
    splitter->setSizes({ 810, 470 });
    layout->addWidget(splitter, 1);
    setCentralWidget(central);
    createMenus();
    m_bar->hide();

    m_verdict->setTextFormat(Qt::RichText);
    m_progress->setRange(0, 1000);
    m_progress->setMaximumWidth(200);
    statusBar()->addWidget(m_summary, 1);
    statusBar()->addPermanentWidget(m_progress);
    statusBar()->addPermanentWidget(m_cancel);
    statusBar()->addPermanentWidget(m_verdict);
    setBusy(false);

    connect(m_cancel, &QPushButton::clicked, this, &CompareWindow::cancel);
    connect(m_runner, &CompareRunner::progressChanged, m_progress, &QProgressBar::setValue);
    connect(m_runner, &CompareRunner::finished, this, &CompareWindow::onFinished);
    const auto onCancelled = [this] {
        m_progress->setRange(0, 1000);
        setBusy(false);
        m_summary->setText(tr("Comparison cancelled."));
        emit comparisonCancelled();
    };
    connect(m_runner, &CompareRunner::cancelled, this, onCancelled);
    connect(&m_opening, &JobTrackerBase::cancelled, this, onCancelled);
    connect(m_runner, &CompareRunner::failed, this, [this](const QString &reason) {
        setBusy(false);
        m_bar->showMessage(MessageBar::Kind::Error, reason);
        m_bar->show();
        emit comparisonFailed();
    });
    connect(m_trees, &CompareTreesView::selectionChanged, this, &CompareWindow::onSelectionChanged);
    resize(1280, 780);
}

CompareWindow::~CompareWindow() = default; // the runner, a child, cancels and waits

// Two trees of four columns and the details need some 1,300 px side by side: in a narrower
// window the details go under the trees, which then get the whole width.
void CompareWindow::resizeEvent(QResizeEvent *event)
{
    QMainWindow::resizeEvent(event);
    const Qt::Orientation wanted = width() < kSideBySideWidth ? Qt::Vertical : Qt::Horizontal;
    if (m_splitter->orientation() == wanted)
        return;
    m_splitter->setOrientation(wanted);
    // Scaled to the splitter's length when it is laid out (not yet known here): 3 to 2.
    m_splitter->setSizes({ 3000, 2000 });
    m_details->setSideBySide(wanted == Qt::Vertical);
}

QWidget *CompareWindow::createControls()
{
    auto *controls = new QWidget(this);
    auto *row = new QHBoxLayout(controls);
    row->setContentsMargins(0, 0, 0, 0);
    m_filter = new QLineEdit(controls);
    m_filter->setPlaceholderText(tr("Filter tensors by name"));
    m_filter->setClearButtonEnabled(true);
    m_differencesOnly = new QCheckBox(tr("Differences only"), controls);
    m_differencesOnly->setToolTip(tr("Hide identical tensors (and, with tolerances, changes within them)"));
    m_atol = new QLineEdit(controls);
    m_rtol = new QLineEdit(controls);
    for (QLineEdit *edit : { m_atol, m_rtol }) {
        auto *validator = new QDoubleValidator(0, 1e300, 17, edit);
        validator->setNotation(QDoubleValidator::ScientificNotation);
        edit->setValidator(validator);
        edit->setPlaceholderText(tr("none"));
        edit->setMaximumWidth(edit->fontMetrics().horizontalAdvance(u"0.000001e-10"_s) + 16);
        connect(edit, &QLineEdit::editingFinished, this, &CompareWindow::applyTolerances);
    }
    m_atol->setToolTip(tr("Absolute tolerance: |a − b| ≤ atol + rtol · |b| counts as equal"));
    m_rtol->setToolTip(m_atol->toolTip());
    m_exportJson = new QPushButton(tr("Export JSON…"), controls);
    m_exportMarkdown = new QPushButton(tr("Export Markdown…"), controls);
    row->addWidget(m_filter, 1);
    row->addWidget(m_differencesOnly);
    row->addSpacing(12);
    row->addWidget(new QLabel(tr("atol"), controls));
    row->addWidget(m_atol);
    row->addWidget(new QLabel(tr("rtol"), controls));
    row->addWidget(m_rtol);
    row->addSpacing(12);
    row->addWidget(m_exportJson);
    row->addWidget(m_exportMarkdown);
    connect(m_filter, &QLineEdit::textChanged, m_trees, &CompareTreesView::setPattern);
    connect(m_differencesOnly, &QCheckBox::toggled, m_trees, &CompareTreesView::setDifferencesOnly);
    connect(m_exportJson, &QPushButton::clicked, this, [this] { exportDialog(true); });
    connect(m_exportMarkdown, &QPushButton::clicked, this, [this] { exportDialog(false); });
    return controls;
}

void CompareWindow::createMenus()
{
    QMenu *file = menuBar()->addMenu(tr("&File"));
    file->addAction(tr("Export &JSON…"), this, [this] { exportDialog(true); });
    file->addAction(tr("Export &Markdown…"), this, [this] { exportDialog(false); });
    file->addSeparator();
    file->addAction(tr("&Close"), this, &QWidget::close)->setShortcut(QKeySequence::Close);
}

void CompareWindow::openFiles(const QString &a, const QString &b, std::shared_ptr<const Checkpoint> openA)
{
    m_runner->cancel();
    m_bar->hide();
    m_summary->setText(tr("Opening %1 and %2…").arg(openA ? toQString(openA->path()) : a, b));
    m_progress->setRange(0, 0); // busy: opening reports no progress of its own
    setBusy(true);
    auto error = std::make_shared<QString>(); // written by the job, read once it has returned
    const std::string paths[2] = { pathFromQString(a), pathFromQString(b) };
    m_opening.start(
        [openA, pathA = paths[0], pathB = paths[1], error](std::stop_token stop, const JobProgress &)
            -> std::optional<std::pair<std::shared_ptr<const Checkpoint>, std::shared_ptr<const Checkpoint>>> {
            std::shared_ptr<const Checkpoint> opened[2] = { openA, nullptr };
            const std::string *paths[2] = { &pathA, &pathB };
            for (int i = 0; i < 2; ++i) {
                if (opened[i] || stop.stop_requested())
                    continue;
                std::string why;
                opened[i] = Checkpoint::open(*paths[i], why);
                if (!opened[i]) {
                    *error = tr("Cannot open %1: %2").arg(QFile::decodeName(paths[i]->c_str()), toQString(why));
                    return std::nullopt;
                }
            }
            return std::make_pair(opened[0], opened[1]);
        },
        [this, error](auto opened) {
            m_progress->setRange(0, 1000);
            if (opened) {
                setCheckpoints(std::move(opened->first), std::move(opened->second));
                return;
            }
            setBusy(false);
            m_summary->clear();
            m_bar->showMessage(MessageBar::Kind::Error, *error);
            m_bar->show();
            emit comparisonFailed();
        });
}

void CompareWindow::setCheckpoints(std::shared_ptr<const Checkpoint> a, std::shared_ptr<const Checkpoint> b)
{
    m_a = std::move(a);
    m_b = std::move(b);
    m_bar->hide();
    setWindowTitle(tr("%1 ↔ %2").arg(displayName(*m_a), displayName(*m_b)));
    m_trees->setSideTitles(toQString(m_a->path()), toQString(m_b->path()));
    start();
}

bool CompareWindow::setTolerances(const QString &atol, const QString &rtol)
{
    bool okA = false, okR = false;
    const auto a = parseTolerance(atol, okA), r = parseTolerance(rtol, okR);
    m_atol->setStyleSheet(okA ? QString() : invalidFieldStyle(palette()));
    m_rtol->setStyleSheet(okR ? QString() : invalidFieldStyle(palette()));
    if (!okA || !okR)
        return false;
    if (m_atol->text() != atol)
        m_atol->setText(atol);
    if (m_rtol->text() != rtol)
        m_rtol->setText(rtol);
    CompareOptions options;
    options.tolerances = a || r;
    options.atol = a.value_or(0);
    options.rtol = r.value_or(0);
    if (options.tolerances == m_options.tolerances && options.atol == m_options.atol
        && options.rtol == m_options.rtol)
        return true;
    m_options = options;
    if (m_a && m_b)
        start();
    return true;
}

void CompareWindow::applyTolerances()
{
    setTolerances(m_atol->text(), m_rtol->text());
}

void CompareWindow::start()
{
    m_result.reset();
    m_trees->setResult(nullptr);
    m_depth->setResult(nullptr);
    m_details->showMessage(tr("Comparing…"));
    m_summary->setText(tr("Comparing %1 with %2…").arg(displayName(*m_a), displayName(*m_b)));
    m_verdict->clear();
    m_progress->setValue(0);
    setBusy(true);
    m_runner->start(m_a, m_b, m_options);
}

void CompareWindow::cancel()
{
    m_opening.cancel();
    m_runner->cancel();
}

void CompareWindow::selectPath(const QString &fullName)
{
    if (m_result)
        m_trees->selectPath(fullName);
    else
        m_pendingSelection = fullName;
}

bool CompareWindow::isComparing() const
{
    return m_opening.isRunning() || m_runner->isRunning();
}

void CompareWindow::setBusy(bool busy)
{
    m_progress->setVisible(busy);
    m_cancel->setVisible(busy);
    m_exportJson->setEnabled(!busy && m_result);
    m_exportMarkdown->setEnabled(!busy && m_result);
    if (!busy && !m_result)
        m_pendingExport = 0; // cancelled or failed: nothing to export
}

void CompareWindow::onFinished(std::shared_ptr<const CompareResult> result)
{
    m_result = std::move(result);
    setBusy(false);
    // The details pane's words ("2 changed · 1 within tolerance · 1 only in A"): one vocabulary.
    m_summary->setText(CompareModel::countsText(m_result->tree.countsOf(NameTree::kRoot), true));
    const bool same = m_result->comparison.equivalent;
    const QString verdict = same
        ? (m_options.tolerances ? tr("equivalent within tolerance") : tr("identical"))
        : tr("different");
    m_verdict->setText(toneHtml(same ? Tone::Good : Tone::Bad, u"<b>%1</b>"_s.arg(verdict), palette()));
    m_trees->setResult(m_result);
    m_depth->setResult(m_result);
    if (!m_pendingSelection.isEmpty())
        m_trees->selectPath(std::exchange(m_pendingSelection, QString()));
    emit comparisonFinished();
    if (m_pendingExport)
        exportDialog(std::exchange(m_pendingExport, 0) == 1);
}

void CompareWindow::onSelectionChanged()
{
    if (!m_result)
        return;
    const QModelIndex index = m_trees->selectedIndex();
    const int node = m_trees->modelA()->nodeOf(index);
    const int pair = m_result->tree.pairOf(node);
    if (pair >= 0)
        m_details->showPair(m_result, static_cast<std::size_t>(pair));
    else if (node > 0)
        m_details->showGroup(*m_result, node);
    else
        m_details->showWhole(m_result);
}

QString CompareWindow::summaryText() const
{
    return m_summary->text();
}

QString CompareWindow::verdictText() const
{
    return QTextDocumentFragment::fromHtml(m_verdict->text()).toPlainText();
}

bool CompareWindow::exportJson(const QString &path, QString *error) const
{
    return m_result && exportComparisonJson(*m_result, path, error);
}

bool CompareWindow::exportMarkdown(const QString &path, QString *error) const
{
    return m_result && exportComparisonMarkdown(*m_result, path, error);
}

void CompareWindow::exportDialog(bool json)
{
    // Tolerances typed but not yet applied are what the window shows: compare with them first,
    // then export.
    applyTolerances();
    if (isComparing()) {
        m_pendingExport = json ? 1 : 2;
        statusBar()->showMessage(tr("Exporting once the comparison with these tolerances is done…"), 5000);
        return;
    }
    if (!m_result)
        return;
    const QString base = QFileInfo(toQString(m_a->path())).completeBaseName() + u"-vs-"_s
        + QFileInfo(toQString(m_b->path())).completeBaseName();
    const QString path = QFileDialog::getSaveFileName(this, json ? tr("Export JSON") : tr("Export Markdown"),
        base + (json ? u".json"_s : u".md"_s), json ? tr("JSON (*.json)") : tr("Markdown (*.md)"));
    if (path.isEmpty())
        return;
    QString error;
    if (!(json ? exportJson(path, &error) : exportMarkdown(path, &error))) {
        m_bar->showMessage(MessageBar::Kind::Error, tr("Cannot write %1: %2").arg(path, error));
        m_bar->show();
    } else {
        statusBar()->showMessage(tr("Exported to %1").arg(path), 5000);
    }
}

void CompareWindow::dragEnterEvent(QDragEnterEvent *event)
{
    if (!droppedLocalFiles(event->mimeData()).isEmpty())
        event->acceptProposedAction();
}

void CompareWindow::dropEvent(QDropEvent *event)
{
    const QStringList paths = droppedLocalFiles(event->mimeData());
    if (paths.isEmpty() || (paths.size() == 1 && !m_a))
        return;
    event->acceptProposedAction();
    // One file replaces B (the usual "and now against this one"); two replace both.
    if (paths.size() == 1)
        openFiles({}, paths[0], m_a);
    else
        openFiles(paths[0], paths[1]);
    activateWindow();
}

} // namespace stb
