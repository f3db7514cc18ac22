#pragma once

#include "core/audit/audit.h"
#include "core/io/checkpoint.h"

#include <QWidget>

#include <vector>

class QLabel;
class QTreeWidget;

namespace stb {

// Every finding about a checkpoint: the index's problems and each shard's header diagnostics
// (errors first, in the reference's order, then warnings), then, once an audit ran, its findings
// (flags that count, one row each). The header never says whether values are sound, so the
// summary points to the audit (a link: auditRequested) until one ran. Activating a row asks for a
// jump to its byte offset.
class DiagnosticsPane : public QWidget {
    Q_OBJECT
public:
    enum Column { SeverityColumn, RuleColumn, FileColumn, OffsetColumn, TensorColumn, MessageColumn };

    explicit DiagnosticsPane(QWidget *parent = nullptr);

    void setCheckpoint(const Checkpoint &checkpoint);
    // The audit's findings shown beside the header's (nullptr: none ran, or it is running again).
    // The checkpoint is the one given to setCheckpoint; nothing of `audit` is kept.
    void setAudit(const AuditResult *audit);
    QString summaryText() const;
    int count() const;
    QTreeWidget *table() const { return m_table; }

signals:
    // `shard` is the index into Checkpoint::shards(), or -1 for an offset in the index JSON.
    void offsetActivated(quint64 offset, int shard, const QString &tensor);
    // The summary's link: run the audit, or show the one that ran.
    void auditRequested();

private:
    void showDetails();
    void rebuild();

    struct AuditRow {
        QString severity, rule, file, tensor, message;
        quint64 offset;
        int shard;
        bool error;
        int rank; // AuditSeverity: errors first
    };
    const Checkpoint *m_checkpoint = nullptr;
    bool m_audited = false;
    QString m_auditSummary;
    std::vector<AuditRow> m_auditRows;

    QLabel *m_summary;
    QTreeWidget *m_table;
    QLabel *m_details; // the current row's whole message: the table's cells cut long sentences
};

} // namespace stb
