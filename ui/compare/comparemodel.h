#pragma once

#include "core/compare/compareresult.h"

#include "ui/common/nametreemodel.h"

#include <QColor>

#include <memory>

namespace stb {

// One side of a comparison as a tree of dotted names. Both sides have a row for every name of
// either checkpoint (a name missing on this side is a grey placeholder row), so the two trees of
// a compare window have the same rows in the same places. Tensor rows are tinted by status;
// groups show their counts per status. Roles shared with TensorTreeModel (IsGroupRole,
// FullPathRole, SortRole) let TensorFilterModel filter it by name.
class CompareModel : public NameTreeModel {
    Q_OBJECT
public:
    enum class Side { A, B };
    enum Column { NameColumn, DTypeColumn, ShapeColumn, StatusColumn, ColumnCount };
    enum Role {
        StatusRole = Qt::UserRole + 40, // int PairStatus, -1 for a group
        PairRole, // int: index into Comparison::pairs, -1 for a group
        PresentRole, // bool: the tensor exists on this side (groups: true)
        DifferingRole, // bool: a differing tensor, or a group with one below it
        StatusTextsRole, // QStringList: a group's status, longest first (FittingTextDelegate)
    };

    explicit CompareModel(Side side, QObject *parent = nullptr);

    void setResult(std::shared_ptr<const CompareResult> result);
    const std::shared_ptr<const CompareResult> &result() const { return m_result; }
    Side side() const { return m_side; }

    // nullptr for a group or an invalid index.
    const TensorPair *pairAt(const QModelIndex &index) const;
    QModelIndex indexOfPath(const QString &fullName) const;
    QString fullPath(const QModelIndex &index) const;

    // The tint and the words for a status, shared by the rows, the legend and the details.
    static QColor statusColor(PairStatus status, bool withinTolerance = false);
    static QString statusLabel(PairStatus status);
    static QString shortStatusLabel(PairStatus status); // "shape", "B only"; others as statusLabel
    // A small box of the status colour for rich text (legend, details).
    static QString swatchHtml(PairStatus status, bool withinTolerance = false);
    // "2 changed · 1 only in B · 5 identical" or "all identical"; the tree's rows leave out the
    // identical count where something differs, to stay short.
    static QString countsText(const CompareTree::Counts &counts, bool withIdentical = true);
    // A group's status in three lengths, for a column that may be narrow: countsText without the
    // identical ones, the same with short labels ("1 shape · 1 B only"), then the total ("7 differ").
    static QStringList statusTexts(const CompareTree::Counts &counts);

    int columnCount(const QModelIndex &parent = {}) const override;
    QVariant data(const QModelIndex &index, int role = Qt::DisplayRole) const override;
    QVariant headerData(int section, Qt::Orientation orientation, int role = Qt::DisplayRole) const override;

protected:
    const NameTree *shownTree() const override;

private:
    const CompareTree::Counts &counts(const QModelIndex &index) const;
    const Checkpoint::Tensor *sideOf(const TensorPair &pair) const;
    QVariant displayData(const QModelIndex &index) const;

    Side m_side;
    std::shared_ptr<const CompareResult> m_result;
};

} // namespace stb
