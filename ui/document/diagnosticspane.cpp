#include "ui/document/diagnosticspane.h"

#include "core/audit/auditflags.h"
#include "core/audit/auditreport.h"
#include "ui/common/longtext.h"
#include "ui/common/qtformat.h"
#include "ui/common/statuscolors.h"

#include <QHeaderView>
#include <QLabel>
#include <QStyle>
#include <QTreeWidget>
#include <QVBoxLayout>

#include <algorithm>

using namespace Qt::StringLiterals;

namespace stb {

namespace {

enum Role { OffsetRole = Qt::UserRole + 1, ShardRole, TensorRole };

} // namespace

DiagnosticsPane::DiagnosticsPane(QWidget *parent)
    : QWidget(parent)
    , m_summary(new QLabel(this))
    , m_table(new QTreeWidget(this))
    , m_details(new QLabel(this))
{
    auto *layout = new QVBoxLayout(this);
    layout->setContentsMargins(0, 0, 0, 0);
    layout->setSpacing(0);
    m_summary->setContentsMargins(8, 6, 8, 6);
    m_summary->setWordWrap(true);
    m_summary->setAlignment(Qt::AlignLeft | Qt::AlignTop);
    m_summary->setTextFormat(Qt::RichText);
    m_summary->setTextInteractionFlags(Qt::TextBrowserInteraction);
    connect(m_summary, &QLabel::linkActivated, this, &DiagnosticsPane::auditRequested);
    layout->addWidget(m_summary);
    layout->addWidget(m_table, 1);
    layout->addWidget(m_details);
    m_details->setContentsMargins(8, 6, 8, 6);
    m_details->setWordWrap(true);
    m_details->setTextInteractionFlags(Qt::TextSelectableByMouse);
    m_details->setFrameShape(QFrame::StyledPanel);
    m_table->setFrameShape(QFrame::NoFrame);
    m_table->setRootIsDecorated(false);
    m_table->setAlternatingRowColors(true);
    // The message last, taking the room that is left; its tooltip has the whole sentence.
    m_table->setHeaderLabels(
        { tr("Severity"), tr("Rule"), tr("File"), tr("Offset"), tr("Tensor"), tr("Message") });
    m_table->setUniformRowHeights(true);
    m_table->setWordWrap(false);
    m_table->setToolTip(tr("Double-click a row to see its byte offset in the Hex pane"));
    connect(m_table, &QTreeWidget::currentItemChanged, this, &DiagnosticsPane::showDetails);
    connect(m_table, &QTreeWidget::itemActivated, this, [this](QTreeWidgetItem *item) {
        emit offsetActivated(item->data(OffsetColumn, OffsetRole).toULongLong(),
            item->data(OffsetColumn, ShardRole).toInt(), item->data(OffsetColumn, TensorRole).toString());
    });
}

void DiagnosticsPane::setCheckpoint(const Checkpoint &checkpoint)
{
    if (m_checkpoint != &checkpoint) {
        m_audited = false;
        m_auditRows.clear();
    }
    m_checkpoint = &checkpoint;
    rebuild();
}

void DiagnosticsPane::setAudit(const AuditResult *audit)
{
    m_audited = audit != nullptr;
    m_auditRows.clear();
    m_auditSummary.clear();
    if (audit && m_checkpoint) {
        m_auditSummary = toQString(audit->summary.line());
        for (const AuditEntry &entry : audit->entries) {
            const auto &tensor = m_checkpoint->tensors()[entry.tensor];
            const SafetensorsFile *file = m_checkpoint->fileOf(tensor);
            for (const AuditFlag &flag : entry.flags) {
                if (flag.expected != AuditExpectation::None)
                    continue;
                const AuditSeverity severity = auditSeverity(flag.kind);
                m_auditRows.push_back({ toQString(auditSeverityName(severity)), toQString(auditFlagId(flag)),
                    m_checkpoint->isSharded() ? toQString(m_checkpoint->shardNames()[tensor.shard]) : QString(),
                    toQString(tensor.info->name), tr("Audit: %1").arg(toQString(auditFlagLabel(flag))),
                    file ? file->header().fileOffset(*tensor.info) : 0, static_cast<int>(tensor.shard),
                    severity == AuditSeverity::Error, static_cast<int>(severity) });
            }
        }
    }
    // Errors first, as the header's are, then warnings, then notes; name order within each.
    std::stable_sort(m_auditRows.begin(), m_auditRows.end(), [](const AuditRow &a, const AuditRow &b) {
        return a.rank < b.rank;
    });
    if (m_checkpoint)
        rebuild();
}

QString DiagnosticsPane::summaryText() const
{
    return m_summary->text();
}

void DiagnosticsPane::rebuild()
{
    const Checkpoint &checkpoint = *m_checkpoint;
    m_table->clear();
    const QIcon errorIcon = style()->standardIcon(QStyle::SP_MessageBoxCritical);
    const QIcon warningIcon = style()->standardIcon(QStyle::SP_MessageBoxWarning);
    int errors = 0, warnings = 0;
    QList<QTreeWidgetItem *> items;
    auto add = [&](const Diagnostic &d, int shard, const QString &file) {
        auto *item = new QTreeWidgetItem({ d.isError() ? tr("error") : tr("warning"), toQString(d.id()), file,
            countText(d.offset), shownName(d.tensor, 200), elidedText(d.message) });
        item->setIcon(SeverityColumn, d.isError() ? errorIcon : warningIcon);
        item->setToolTip(MessageColumn, elidedText(d.message));
        item->setToolTip(TensorColumn, shownName(d.tensor, 1000));
        if (!d.reference().empty())
            item->setToolTip(
                RuleColumn, tr("The reference implementation says: %1").arg(toQString(d.reference())));
        item->setTextAlignment(OffsetColumn, Qt::AlignRight | Qt::AlignVCenter);
        item->setData(OffsetColumn, OffsetRole, static_cast<qulonglong>(d.offset));
        item->setData(OffsetColumn, ShardRole, shard);
        item->setData(OffsetColumn, TensorRole, toQString(d.tensor));
        items << item;
        (d.isError() ? errors : warnings)++;
    };
    const QString indexName = toQString(checkpoint.path().substr(checkpoint.path().rfind('/') + 1));
    for (const auto &d : checkpoint.diagnostics())
        add(d, -1, indexName);
    for (std::size_t s = 0; s < checkpoint.shards().size(); ++s) {
        if (const auto &file = checkpoint.shards()[s]) {
            for (const auto &d : file->header().diagnostics)
                add(d, static_cast<int>(s), toQString(checkpoint.shardNames()[s]));
        }
    }
    const int headerErrors = errors, headerWarnings = warnings;
    // Past the 10,000 kept per list, problems are only counted (core DiagnosticList).
    std::size_t unlisted = checkpoint.diagnostics().dropped();
    for (const auto &file : checkpoint.shards())
        unlisted += file ? file->header().diagnostics.dropped() : 0;
    const QIcon noteIcon = style()->standardIcon(QStyle::SP_MessageBoxInformation);
    for (const AuditRow &row : m_auditRows) {
        auto *item = new QTreeWidgetItem({ row.severity, row.rule, row.file, countText(row.offset),
            shownName(row.tensor.toStdString(), 200), row.message });
        item->setIcon(SeverityColumn,
            row.error ? errorIcon : row.severity == u"warning"_s ? warningIcon : noteIcon);
        item->setToolTip(TensorColumn, shownName(row.tensor.toStdString(), 1000));
        item->setTextAlignment(OffsetColumn, Qt::AlignRight | Qt::AlignVCenter);
        item->setData(OffsetColumn, OffsetRole, static_cast<qulonglong>(row.offset));
        item->setData(OffsetColumn, ShardRole, row.shard);
        item->setData(OffsetColumn, TensorRole, row.tensor);
        items << item;
    }
    m_table->addTopLevelItems(items);
    m_table->setColumnHidden(FileColumn, !checkpoint.isSharded());
    const int maxWidth = 13 * fontMetrics().horizontalAdvance(u'M');
    for (int c : { SeverityColumn, RuleColumn, FileColumn, OffsetColumn, TensorColumn }) {
        m_table->resizeColumnToContents(c);
        m_table->setColumnWidth(c, std::min(m_table->columnWidth(c), maxWidth));
    }

    QString header;
    if (headerErrors == 0 && headerWarnings == 0)
        header = tr("The header has no problems: the reference implementation accepts this file.");
    else if (headerErrors == 0)
        header = tr("Valid, with %1.").arg(countNoun(headerWarnings, tr("warning"), tr("warnings")));
    else
        header = u"%1 %2"_s.arg(toneHtml(Tone::Bad, u"<b>%1</b>"_s.arg(tr("Invalid:")), palette()),
            countNoun(headerErrors, tr("error"), tr("errors"))
                + (headerWarnings ? u", "_s + countNoun(headerWarnings, tr("warning"), tr("warnings")) : QString())
                + (unlisted ? tr(" listed, and %1 not listed").arg(countNoun(unlisted, tr("more problem"), tr("more problems")))
                            : QString())
                + tr(". The first error is the reference implementation's verdict. Double-click a row to see "
                     "its offset in the Hex pane."));
    // The header says nothing about values: NaN, Inf, dead or duplicated tensors need a scan.
    const QString audit = m_audited
        ? tr("Audit of the values: %1. <a href='audit'>Show the audit</a>").arg(m_auditSummary.toHtmlEscaped())
        : tr("Values (NaN, Inf, all-zero or duplicated tensors) are not read here: "
             "<a href='audit'>audit the checkpoint</a> (Tools › Audit Checkpoint, Ctrl+Shift+A) to find them.");
    m_summary->setText(header + u"<br>"_s + audit);
    m_table->setVisible(!items.isEmpty());
    if (!items.isEmpty())
        m_table->setCurrentItem(items.first());
    showDetails();
}

void DiagnosticsPane::showDetails()
{
    const QTreeWidgetItem *item = m_table->currentItem();
    m_details->setVisible(item);
    if (!item)
        return;
    const QString reference = item->toolTip(RuleColumn);
    QString text = u"<b>%1</b> %2 · %3"_s.arg(item->text(RuleColumn).toHtmlEscaped(),
        item->text(SeverityColumn), tr("byte %1").arg(item->text(OffsetColumn)));
    if (!item->text(TensorColumn).isEmpty())
        text += u" · "_s + tr("tensor %1").arg(item->text(TensorColumn).toHtmlEscaped());
    text += u"<br>"_s + item->text(MessageColumn).toHtmlEscaped();
    if (!reference.isEmpty())
        text += u"<br><i>%1</i>"_s.arg(reference.toHtmlEscaped());
    m_details->setText(text);
}

int DiagnosticsPane::count() const
{
    return m_table->topLevelItemCount();
}

} // namespace stb
