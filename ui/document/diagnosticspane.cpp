#include "ui/document/diagnosticspane.h"

#include "ui/common/longtext.h"
#include "ui/common/qtformat.h"
#include "ui/common/statuscolors.h"

#include <QHeaderView>
#include <QLabel>
#include <QStyle>
#include <QTreeWidget>
#include <QVBoxLayout>

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
    m_table->addTopLevelItems(items);
    m_table->setColumnHidden(FileColumn, !checkpoint.isSharded());
    const int maxWidth = 13 * fontMetrics().horizontalAdvance(u'M');
    for (int c : { SeverityColumn, RuleColumn, FileColumn, OffsetColumn, TensorColumn }) {
        m_table->resizeColumnToContents(c);
        m_table->setColumnWidth(c, std::min(m_table->columnWidth(c), maxWidth));
    }

    if (errors == 0 && warnings == 0)
        m_summary->setText(
            tr("No problems found: the reference implementation accepts this file, and nothing "
               "else looks wrong."));
    else if (errors == 0)
        m_summary->setText(tr("Valid, with %1.").arg(countNoun(warnings, tr("warning"), tr("warnings"))));
    else
        m_summary->setText(u"%1 %2"_s.arg(toneHtml(Tone::Bad, u"<b>%1</b>"_s.arg(tr("Invalid:")), palette()),
            countNoun(errors, tr("error"), tr("errors"))
                + (warnings ? u", "_s + countNoun(warnings, tr("warning"), tr("warnings")) : QString())
                + tr(". The first error is the reference implementation's verdict. Double-click a row to see "
                     "its offset in the Hex pane.")));
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
