#include "ui/audit/auditview.h"

#include "core/audit/auditflags.h"
#include "core/audit/auditreport.h"
#include "core/text/naturalorder.h"
#include "ui/audit/auditmodel.h"
#include "ui/common/elideatend.h"
#include "ui/common/qtformat.h"
#include "ui/common/savetext.h"

#include <QCheckBox>
#include <QDir>
#include <QFileDialog>
#include <QFileInfo>
#include <QHeaderView>
#include <QInputDialog>
#include <QLabel>
#include <QLineEdit>
#include <QMenu>
#include <QMessageBox>
#include <QProgressBar>
#include <QPushButton>
#include <QRegularExpression>
#include <QScrollBar>
#include <QSettings>
#include <QSortFilterProxyModel>
#include <QStyle>
#include <QTableView>
#include <QToolButton>
#include <QVBoxLayout>

#include <algorithm>
#include <functional>
#include <iterator>
#include <utility>

using namespace Qt::StringLiterals;

namespace stb {

// Name filter, "flagged only", numbers sorted as numbers and names in natural order.
class AuditFilterModel : public QSortFilterProxyModel {
public:
    using QSortFilterProxyModel::QSortFilterProxyModel;
    void setFlaggedOnly(bool on)
    {
        m_flaggedOnly = on;
        invalidateFilter();
    }

protected:
    bool filterAcceptsRow(int row, const QModelIndex &parent) const override
    {
        const QModelIndex index = sourceModel()->index(row, AuditModel::NameColumn, parent);
        if (m_flaggedOnly && !index.data(AuditModel::FlaggedRole).toBool())
            return false;
        return QSortFilterProxyModel::filterAcceptsRow(row, parent);
    }
    bool lessThan(const QModelIndex &left, const QModelIndex &right) const override
    {
        if (left.column() == AuditModel::NameColumn)
            return naturalLess(left.data().toString().toStdString(), right.data().toString().toStdString());
        return QSortFilterProxyModel::lessThan(left, right);
    }

private:
    bool m_flaggedOnly = false;
};

AuditView::AuditView(std::shared_ptr<const Checkpoint> checkpoint, QWidget *parent)
    : QWidget(parent)
    , m_checkpoint(std::move(checkpoint))
    , m_model(new AuditModel(this))
    , m_proxy(new AuditFilterModel(this))
    , m_summary(new QLabel(this))
    , m_progress(new QProgressBar(this))
    , m_cancel(new QPushButton(tr("Cancel"), this))
    , m_exportJson(new QPushButton(tr("Export JSON…"), this))
    , m_exportMarkdown(new QPushButton(tr("Export Markdown…"), this))
    , m_filter(new QLineEdit(this))
    , m_flaggedOnly(new QCheckBox(tr("Flagged only"), this))
    , m_table(new QTableView(this))
{
    auto *layout = new QVBoxLayout(this);
    layout->setContentsMargins(4, 4, 4, 0);
    layout->setSpacing(4);
    auto *top = new QHBoxLayout;
    auto *title = new QLabel(tr("<b>Audit</b>"), this);
    auto *close = new QToolButton(this);
    close->setIcon(style()->standardIcon(QStyle::SP_TitleBarCloseButton));
    close->setAutoRaise(true);
    close->setToolTip(tr("Close the audit"));
    m_summary->setTextInteractionFlags(Qt::TextSelectableByMouse);
    m_summary->setWordWrap(true);
    m_filter->setPlaceholderText(tr("Filter by name"));
    m_filter->setClearButtonEnabled(true);
    m_filter->setMaximumWidth(260);
    m_progress->setRange(0, 1000);
    m_progress->setMaximumWidth(200);
    // The summary takes the room left and wraps: a long one must not widen the window.
    top->addWidget(title);
    top->addWidget(m_summary, 1);
    for (QWidget *w : std::initializer_list<QWidget *> {
             m_progress, m_cancel, m_filter, m_flaggedOnly, m_exportJson, m_exportMarkdown, close })
        top->addWidget(w);
    layout->addLayout(top);
    layout->addWidget(m_table, 1);

    m_proxy->setSourceModel(m_model);
    m_proxy->setSortRole(AuditModel::SortRole);
    m_proxy->setFilterKeyColumn(AuditModel::NameColumn);
    m_proxy->setFilterCaseSensitivity(Qt::CaseInsensitive);
    m_table->setModel(m_proxy);
    m_table->setSortingEnabled(true);
    m_table->sortByColumn(AuditModel::NameColumn, Qt::AscendingOrder);
    m_table->setSelectionBehavior(QAbstractItemView::SelectRows);
    m_table->setSelectionMode(QAbstractItemView::SingleSelection);
    m_table->setAlternatingRowColors(true);
    m_table->setWordWrap(false);
    m_table->verticalHeader()->hide();
    m_table->setContextMenuPolicy(Qt::CustomContextMenu);
    m_table->verticalHeader()->setDefaultSectionSize(m_table->fontMetrics().height() + 6);
    // What a reader scans first comes first: the name (cut in the middle, 26 digits wide), its
    // flags (as wide as the longest, fitFlagsColumn), dtype and shape; then the numbers, which
    // scroll sideways in a narrow window rather than squeezing the name. Each column is as wide
    // as what it holds ("[128256, 4096]", "-2.62737e-07").
    QHeaderView *header = m_table->horizontalHeader();
    header->setStretchLastSection(true);
    header->moveSection(header->visualIndex(AuditModel::FlagsColumn), 1);
    m_table->setTextElideMode(Qt::ElideMiddle);
    // The flags from their start: cut in the middle, two flags ran together ("constant
    // (expected: initial norm values….weight (expected: initial norm values)").
    m_table->setItemDelegateForColumn(AuditModel::FlagsColumn, new ElideAtEndDelegate(m_table));
    for (int c = 0; c < AuditModel::ColumnCount; ++c)
        header->resizeSection(c, naturalWidth(c));

    connect(m_cancel, &QPushButton::clicked, this, &AuditView::cancel);
    connect(&m_job, &JobTrackerBase::progressChanged, m_progress, &QProgressBar::setValue);
    connect(close, &QToolButton::clicked, this, &AuditView::closeRequested);
    connect(m_filter, &QLineEdit::textChanged, this,
        [this](const QString &text) { keepingSelection([&] { m_proxy->setFilterFixedString(text); }); });
    connect(m_flaggedOnly, &QCheckBox::toggled, this,
        [this](bool on) { keepingSelection([&] { m_proxy->setFlaggedOnly(on); }); });
    connect(m_exportJson, &QPushButton::clicked, this, [this] { exportWithDialog(false); });
    connect(m_exportMarkdown, &QPushButton::clicked, this, [this] { exportWithDialog(true); });
    connect(m_table->selectionModel(), &QItemSelectionModel::currentRowChanged, this,
        [this](const QModelIndex &current) {
            if (!m_syncing && current.isValid())
                emit tensorSelected(current.data(AuditModel::NameRole).toString());
        });
    connect(m_table, &QWidget::customContextMenuRequested, this, &AuditView::showContextMenu);
    setRunning(false);
    m_summary->setText(
        tr("Scans every tensor for NaN, Inf, all-zero, constant, outlying and duplicated values."));
}

QMenu *AuditView::contextMenuFor(const QModelIndex &row)
{
    if (!row.isValid())
        return nullptr;
    const QString name = row.data(AuditModel::NameRole).toString();
    auto *menu = new QMenu(this);
    QMenu *locate = menu->addMenu(tr("Locate in Values"));
    addLocateActions(locate, [this, name](LocateTarget target) { emit locateRequested(name, target); });
    menu->addSeparator();
    // Ignoring is remembered for the model's folder: the next audit of it counts the same.
    const AuditEntry *entry = m_model->entryAt(m_proxy->mapToSource(row).row());
    for (const AuditFlag &flag : entry ? entry->flags : std::vector<AuditFlag> {}) {
        if (flag.expected != AuditExpectation::None)
            continue;
        const QString label = flag.kind == AuditFlag::Kind::Outlier ? tr("outliers")
                                                                    : toQString(auditFlagLabel(flag));
        menu->addAction(tr("Ignore “%1” in This Model").arg(label), this, [this, kind = flag.kind] {
            AuditIgnores now = ignores();
            now.kinds.push_back(kind);
            setIgnores(now);
        });
    }
    menu->addAction(tr("Ignore Tensors Named Like This…"), this, [this, name] {
        bool ok = false;
        // Block numbers become wildcards: "model.layers.*.mlp.up_proj.weight" covers every layer.
        QString pattern = name;
        pattern.replace(QRegularExpression(u"\\.\\d+\\."_s), u".*."_s);
        pattern = QInputDialog::getText(this, tr("Ignore Tensors"),
            tr("Ignore the flags of tensors whose name matches (* any text, ? one character):"), QLineEdit::Normal,
            pattern, &ok);
        if (!ok || pattern.trimmed().isEmpty())
            return;
        AuditIgnores now = ignores();
        now.namePatterns.push_back(pattern.trimmed().toStdString());
        setIgnores(now);
    });
    QAction *reset = menu->addAction(tr("Stop Ignoring in This Model"), this, [this] { setIgnores({}); });
    reset->setEnabled(!ignores().empty());
    return menu;
}

void AuditView::showContextMenu(const QPoint &position)
{
    if (std::unique_ptr<QMenu> menu { contextMenuFor(m_table->indexAt(position)) })
        menu->exec(m_table->viewport()->mapToGlobal(position));
}

QSortFilterProxyModel *AuditView::proxy() const
{
    return m_proxy;
}

void AuditView::start()
{
    m_model->clear();
    emit findingsChanged();
    m_summary->setText(tr("Scanning %1 in %2…")
                           .arg(countNoun(m_checkpoint->tensors().size(), tr("tensor"), tr("tensors")),
                               sizeText(m_checkpoint->totalTensorBytes())));
    // The checkpoint is held by its shared_ptr: its mappings outlive the scan.
    m_job.start(
        [checkpoint = m_checkpoint](std::stop_token stop, const JobProgress &progress) {
            AnalysisOptions options;
            options.bins = kBins;
            options.digest = false;
            return auditCheckpoint(*checkpoint, options, stop, progress);
        },
        [this](std::optional<AuditResult> result) { onFinished(std::move(result)); });
    setRunning(true);
}

void AuditView::cancel()
{
    if (!isRunning())
        return;
    m_job.cancel(); // even a result already on its way is dropped
    setRunning(false);
    m_summary->setText(tr("Audit cancelled."));
    emit finished(false);
}

void AuditView::onFinished(std::optional<AuditResult> result)
{
    setRunning(false);
    if (!result) {
        m_summary->setText(tr("The audit stopped: a file changed on disk while it was read."));
        emit finished(false);
        return;
    }
    m_model->setResult(m_checkpoint, std::move(*result));
    m_model->setIgnores(ignores());
    fitFlagsColumn();
    fitNameColumn();
    updateSummary();
    setRunning(false);
    emit finished(true);
}

// As wide as the longest flags text of any row (not only those on screen: the column must not
// jump while scrolling), at most 60 digits; the tooltip has every flag in full.
void AuditView::fitFlagsColumn()
{
    const QFontMetrics metrics = m_table->fontMetrics();
    const int digit = metrics.horizontalAdvance(u'0');
    int widest = 16 * digit;
    for (int row = 0; row < m_model->rowCount() && widest < 60 * digit; ++row)
        widest = std::max(widest,
            metrics.horizontalAdvance(m_model->index(row, AuditModel::FlagsColumn).data().toString()));
    m_table->horizontalHeader()->resizeSection(AuditModel::FlagsColumn, std::min(widest, 60 * digit) + 16);
}

int AuditView::naturalWidth(int column) const
{
    static constexpr int kDigits[] = { 26, 5, 14, 11, 11, 11, 11, 5, 5, 7, 16 };
    static_assert(std::size(kDigits) == AuditModel::ColumnCount);
    const QHeaderView *header = m_table->horizontalHeader();
    const int digit = m_table->fontMetrics().horizontalAdvance(u'0');
    const int title
        = header->fontMetrics().horizontalAdvance(m_model->headerData(column, Qt::Horizontal).toString())
        + 3 * digit;
    return std::max(kDigits[column] * digit + 12, title);
}

// The name takes the room a wide window leaves (at 1600 px the last column stretched over
// empty space while names were cut); never less than 26 digits, so a narrow window scrolls the
// numbers sideways instead.
void AuditView::fitNameColumn()
{
    QHeaderView *header = m_table->horizontalHeader();
    const int last = header->logicalIndex(header->count() - 1); // it stretches: count what it needs
    int others = 0;
    for (int c = 0; c < AuditModel::ColumnCount; ++c) {
        if (c != AuditModel::NameColumn)
            others += c == last ? naturalWidth(c) : header->sectionSize(c);
    }
    // The table's width less its frame and a vertical scrollbar, shown or not yet (rows arrive
    // after the resize): the viewport's own width changes under us when the scrollbar appears.
    const int room = m_table->width() - 2 * m_table->frameWidth() - m_table->verticalScrollBar()->sizeHint().width();
    header->resizeSection(AuditModel::NameColumn, std::max(naturalWidth(AuditModel::NameColumn), room - others));
}

void AuditView::resizeEvent(QResizeEvent *event)
{
    QWidget::resizeEvent(event);
    fitNameColumn();
}

void AuditView::setRunning(bool running)
{
    m_progress->setVisible(running);
    m_progress->setValue(0);
    m_cancel->setVisible(running);
    m_exportJson->setEnabled(!running && m_model->hasResult());
    m_exportMarkdown->setEnabled(!running && m_model->hasResult());
}

QString AuditView::summaryText() const
{
    return m_summary->text();
}

void AuditView::selectTensor(const QString &name)
{
    const int row = m_model->rowOf(name);
    const QModelIndex index = row < 0 ? QModelIndex() : m_proxy->mapFromSource(m_model->index(row, 0));
    const bool wasSyncing = std::exchange(m_syncing, true);
    if (index.isValid()) {
        m_table->setCurrentIndex(index);
        m_table->scrollTo(index);
    } else {
        // No row rather than a neighbour: the tree keeps its selection.
        m_table->selectionModel()->clear();
    }
    m_syncing = wasSyncing;
}

QString AuditView::currentName() const
{
    const QModelIndex current = m_table->selectionModel()->currentIndex();
    return current.isValid() && m_table->selectionModel()->isRowSelected(current.row(), current.parent())
        ? current.data(AuditModel::NameRole).toString()
        : QString();
}

// Filtering removes rows, and the table would make a neighbour current (and the tree follow it):
// the selected tensor stays selected when it is still shown, and nothing is selected when not.
void AuditView::keepingSelection(const std::function<void()> &change)
{
    const QString name = currentName();
    const bool wasSyncing = std::exchange(m_syncing, true);
    change();
    m_syncing = wasSyncing;
    selectTensor(name);
}

std::vector<std::size_t> AuditView::shownRows() const
{
    std::vector<std::size_t> rows;
    rows.reserve(static_cast<std::size_t>(m_proxy->rowCount()));
    for (int row = 0; row < m_proxy->rowCount(); ++row)
        rows.push_back(static_cast<std::size_t>(m_proxy->mapToSource(m_proxy->index(row, 0)).row()));
    return rows;
}

bool AuditView::isFiltered() const
{
    return m_flaggedOnly->isChecked() || !m_filter->text().isEmpty();
}

QString AuditView::shownScope() const
{
    QStringList filters;
    if (m_flaggedOnly->isChecked())
        filters << tr("flagged only");
    if (!m_filter->text().isEmpty())
        filters << tr("names containing “%1”").arg(m_filter->text());
    const QString count = tr("%1 of %2 shown")
                              .arg(countText(static_cast<std::uint64_t>(m_proxy->rowCount())),
                                  countNoun(static_cast<std::uint64_t>(m_model->rowCount()), tr("tensor"), tr("tensors")));
    return filters.isEmpty() ? count : u"%1 (%2)"_s.arg(count, filters.join(u", "_s));
}

bool AuditView::exportJson(const QString &path, QString *error, Rows which) const
{
    if (!m_model->hasResult())
        return false;
    if (which == Rows::All)
        return saveText(path, jsonText(auditJson(*m_checkpoint, m_model->result()), 2) + '\n', error);
    const auto rows = shownRows();
    return saveText(path,
        jsonText(auditJson(*m_checkpoint, m_model->result(), &rows, shownScope().toStdString()), 2) + '\n', error);
}

bool AuditView::exportMarkdown(const QString &path, QString *error, Rows which) const
{
    if (!m_model->hasResult())
        return false;
    if (which == Rows::All)
        return saveText(path, auditMarkdown(*m_checkpoint, m_model->result()), error);
    const auto rows = shownRows();
    return saveText(path,
        auditMarkdown(*m_checkpoint, m_model->result(), &rows, tr("Rows: %1.").arg(shownScope()).toStdString()),
        error);
}

void AuditView::exportWithDialog(bool markdown)
{
    // Filtered: export what the table shows, or everything, as the user says; either is stated
    // in the file.
    Rows which = Rows::All;
    if (isFiltered()) {
        QMessageBox ask(QMessageBox::Question, tr("Export Audit"),
            tr("The table shows %1. Export those rows, or every tensor?").arg(shownScope()), QMessageBox::Cancel, this);
        QPushButton *shown = ask.addButton(tr("&Shown Rows"), QMessageBox::AcceptRole);
        QPushButton *all = ask.addButton(tr("&All Tensors"), QMessageBox::AcceptRole);
        ask.setDefaultButton(shown);
        ask.exec();
        if (ask.clickedButton() == shown)
            which = Rows::Shown;
        else if (ask.clickedButton() != all)
            return;
    }
    const QString folder = QSettings().value(u"audit/lastFolder"_s).toString();
    const QString base = QFileInfo(toQString(m_checkpoint->path())).completeBaseName() + u".audit"_s;
    const QString path = QFileDialog::getSaveFileName(this,
        markdown ? tr("Export Audit as Markdown") : tr("Export Audit as JSON"),
        QDir(folder).filePath(base + (markdown ? u".md"_s : u".json"_s)),
        markdown ? tr("Markdown (*.md)") : tr("JSON (*.json)"));
    if (path.isEmpty())
        return;
    QSettings().setValue(u"audit/lastFolder"_s, QFileInfo(path).absolutePath());
    QString error;
    if (!(markdown ? exportMarkdown(path, &error, which) : exportJson(path, &error, which)))
        QMessageBox::warning(this, tr("Export Audit"), tr("Cannot write %1: %2").arg(path, error));
}

void AuditView::updateSummary()
{
    if (m_model->hasResult())
        m_summary->setText(toQString(m_model->result().summary.line()));
    emit findingsChanged();
}

// Per model folder: a folder of checkpoints (one model's shards, its tuned copies) shares what
// its owner decided to ignore.
QString AuditView::ignoresKey() const
{
    const QString folder = QFileInfo(toQString(m_checkpoint->path())).absolutePath();
    return u"auditIgnores/"_s + QString::fromLatin1(folder.toUtf8().toHex());
}

AuditIgnores AuditView::ignores() const
{
    AuditIgnores ignores;
    QSettings settings;
    for (const QString &id : settings.value(ignoresKey() + u"/rules"_s).toStringList()) {
        AuditFlag::Kind kind;
        if (auditKindFromId(id.toStdString(), kind))
            ignores.kinds.push_back(kind);
    }
    for (const QString &pattern : settings.value(ignoresKey() + u"/names"_s).toStringList())
        ignores.namePatterns.push_back(pattern.toStdString());
    return ignores;
}

void AuditView::setIgnores(const AuditIgnores &ignores)
{
    QStringList rules, names;
    for (AuditFlag::Kind kind : ignores.kinds)
        rules << toQString(auditKindId(kind));
    for (const std::string &pattern : ignores.namePatterns)
        names << toQString(pattern);
    rules.removeDuplicates();
    names.removeDuplicates();
    QSettings settings;
    settings.setValue(ignoresKey() + u"/folder"_s, QFileInfo(toQString(m_checkpoint->path())).absolutePath());
    settings.setValue(ignoresKey() + u"/rules"_s, rules);
    settings.setValue(ignoresKey() + u"/names"_s, names);
    keepingSelection([&] {
        m_model->setIgnores(this->ignores());
        m_proxy->invalidate(); // "flagged only" depends on it
    });
    updateSummary();
}

} // namespace stb
