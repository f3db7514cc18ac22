#pragma once

#include "core/io/checkpoint.h"

#include <QWidget>

class QLabel;
class QTreeWidget;

namespace stb {

// Every finding about a checkpoint: the index's problems and each shard's header diagnostics
// (errors first, in the reference's order, then warnings). Activating a row asks for a jump to
// its byte offset.
class DiagnosticsPane : public QWidget {
    Q_OBJECT
public:
    enum Column { SeverityColumn, RuleColumn, FileColumn, OffsetColumn, TensorColumn, MessageColumn };

    explicit DiagnosticsPane(QWidget *parent = nullptr);

    void setCheckpoint(const Checkpoint &checkpoint);
    int count() const;
    QTreeWidget *table() const { return m_table; }

signals:
    // `shard` is the index into Checkpoint::shards(), or -1 for an offset in the index JSON.
    void offsetActivated(quint64 offset, int shard, const QString &tensor);

private:
    void showDetails();

    QLabel *m_summary;
    QTreeWidget *m_table;
    QLabel *m_details; // the current row's whole message: the table's cells cut long sentences
};

} // namespace stb
