#pragma once

#include "ui/document/tensortreemodel.h"

#include <QRegularExpression>
#include <QSortFilterProxyModel>

#include <vector>

namespace stb {

// Filters a TensorTreeModel by tensor name, keeping each matching tensor with the groups above it.
// Case-insensitive. The pattern is matched against the tensor's full dotted name: a substring
// anywhere (default), a glob over the whole name ("*.mlp.*.weight"), or a regular expression
// found anywhere in it. Sorting uses the model's SortRole, so numbers sort as numbers.
// Over a TensorTreeModel, a group's tensor count, parameters, bytes and dtype are those of its
// matching tensors while a pattern is set: the totals answer "what did my filter find".
class TensorFilterModel : public QSortFilterProxyModel {
    Q_OBJECT
public:
    enum class Mode { Substring, Glob, Regex };
    Q_ENUM(Mode)

    explicit TensorFilterModel(QObject *parent = nullptr);

    void setSourceModel(QAbstractItemModel *model) override;
    void setPattern(const QString &pattern);
    QString pattern() const { return m_pattern; }
    void setMode(Mode mode);
    Mode mode() const { return m_mode; }
    // False when a regex pattern does not compile; then no tensor is shown.
    bool isPatternValid() const { return m_valid; }
    // What is wrong with an invalid pattern and where: "missing closing parenthesis at
    // character 5"; empty when it is valid.
    QString patternError() const { return m_error; }
    // A pattern is set and valid: the view shows only what matches.
    bool isFiltering() const { return !m_pattern.isEmpty() && m_valid; }
    // Tensors matching (all of them when not filtering; none for an invalid pattern), over a
    // TensorTreeModel; 0 over another model.
    std::uint64_t matchCount() const;
    // Sums over the matching tensors below `source` (an index of the source model; the whole
    // checkpoint for an invalid one); the model's own totals when not filtering.
    TensorTreeModel::Totals totals(const QModelIndex &source) const;

    QVariant data(const QModelIndex &index, int role = Qt::DisplayRole) const override;

protected:
    bool filterAcceptsRow(int sourceRow, const QModelIndex &sourceParent) const override;

private:
    void update();
    void recount(); // m_totals from m_matches
    bool matches(const QString &name) const;
    TensorTreeModel *treeModel() const;

    QString m_pattern;
    Mode m_mode = Mode::Substring;
    QRegularExpression m_expression;
    bool m_valid = true;
    QString m_error;
    // Over a TensorTreeModel while filtering: per tensor (index into Checkpoint::tensors())
    // whether it matches, and per node of the model's tree the totals of its matching tensors.
    std::vector<bool> m_matches;
    std::vector<TensorTreeModel::Totals> m_totals;
};

} // namespace stb
