#pragma once

#include "core/audit/audit.h"
#include "core/audit/auditexpected.h"

#include <QAbstractTableModel>

#include <memory>

namespace stb {

// The audit of one checkpoint as a table: a row per tensor (in name order, as core returns
// them) with its statistics and flags. Display text is localised; SortRole gives numbers so a
// proxy sorts 10 after 9 and NaN statistics (no finite values) first.
class AuditModel : public QAbstractTableModel {
    Q_OBJECT
public:
    enum Column {
        NameColumn,
        DTypeColumn,
        ShapeColumn,
        MinColumn,
        MaxColumn,
        MeanColumn,
        StdColumn,
        NaNColumn,
        InfColumn,
        ZerosColumn,
        FlagsColumn,
        ColumnCount
    };
    // FlaggedRole: a flag that counts (not expected, not ignored). SeverityRole: the most severe
    // of those as an int (AuditSeverity), null when none.
    enum Role { SortRole = Qt::UserRole + 1, FlaggedRole, NameRole, SeverityRole };

    explicit AuditModel(QObject *parent = nullptr);

    void setResult(std::shared_ptr<const Checkpoint> checkpoint, AuditResult result);
    void clear();
    bool hasResult() const { return m_checkpoint != nullptr; }
    const AuditResult &result() const { return m_result; }
    const std::shared_ptr<const Checkpoint> &checkpoint() const { return m_checkpoint; }
    // The row of the tensor of that full name, or -1.
    int rowOf(const QString &name) const;
    const AuditEntry *entryAt(int row) const;
    // Marks the flags the user ignores (and no longer those ignored before); the summary follows.
    void setIgnores(const AuditIgnores &ignores);

    int rowCount(const QModelIndex &parent = {}) const override;
    int columnCount(const QModelIndex &parent = {}) const override;
    QVariant data(const QModelIndex &index, int role = Qt::DisplayRole) const override;
    QVariant headerData(int section, Qt::Orientation orientation, int role = Qt::DisplayRole) const override;

private:
    QVariant display(const AuditEntry &entry, int column) const;
    QVariant sortKey(const AuditEntry &entry, int column) const;
    QString flagsToolTip(const AuditEntry &entry) const;

    std::shared_ptr<const Checkpoint> m_checkpoint;
    AuditResult m_result;
};

} // namespace stb
