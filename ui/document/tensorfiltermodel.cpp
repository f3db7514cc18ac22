#include "ui/document/tensorfiltermodel.h"

#include "ui/common/qtformat.h"

namespace stb {

TensorFilterModel::TensorFilterModel(QObject *parent)
    : QSortFilterProxyModel(parent)
{
    // A group is shown when anything below it matches; a group never matches on its own name,
    // so that the filter's answer is always "these tensors".
    setRecursiveFilteringEnabled(true);
    setSortRole(TensorTreeModel::SortRole);
}

void TensorFilterModel::setSourceModel(QAbstractItemModel *model)
{
    if (sourceModel())
        disconnect(sourceModel(), nullptr, this, nullptr);
    QSortFilterProxyModel::setSourceModel(model);
    // Flat mode and a new checkpoint renumber the nodes (and may change the tensors): count again,
    // after the base class has taken the new rows (its handler was connected first).
    if (model)
        connect(model, &QAbstractItemModel::modelReset, this, &TensorFilterModel::update);
    update();
}

void TensorFilterModel::setPattern(const QString &pattern)
{
    if (pattern == m_pattern)
        return;
    m_pattern = pattern;
    update();
}

void TensorFilterModel::setMode(Mode mode)
{
    if (mode == m_mode)
        return;
    m_mode = mode;
    update();
}

TensorTreeModel *TensorFilterModel::treeModel() const
{
    return qobject_cast<TensorTreeModel *>(sourceModel());
}

bool TensorFilterModel::matches(const QString &name) const
{
    if (m_mode == Mode::Substring)
        return name.contains(m_pattern, Qt::CaseInsensitive);
    return m_expression.match(name).hasMatch();
}

void TensorFilterModel::update()
{
    m_valid = true;
    m_error.clear();
    m_expression = {};
    if (m_mode == Mode::Glob)
        m_expression = QRegularExpression(QRegularExpression::wildcardToRegularExpression(m_pattern),
            QRegularExpression::CaseInsensitiveOption);
    else if (m_mode == Mode::Regex)
        m_expression = QRegularExpression(m_pattern, QRegularExpression::CaseInsensitiveOption);
    if (m_mode != Mode::Substring && !m_expression.isValid()) {
        m_valid = false;
        // PCRE's offset counts UTF-16 code units of the pattern: a character position for the user.
        m_error = tr("%1 at character %2")
                      .arg(m_expression.errorString())
                      .arg(m_expression.patternErrorOffset() + 1);
    }
    // Each tensor's name is matched once here, not once per row the proxy asks about.
    m_matches.clear();
    if (const TensorTreeModel *tree = treeModel(); tree && tree->checkpoint() && isFiltering()) {
        const auto &tensors = tree->checkpoint()->tensors();
        m_matches.resize(tensors.size());
        for (std::size_t i = 0; i < tensors.size(); ++i)
            m_matches[i] = matches(toQString(tensors[i].info->name));
    }
    recount();
    invalidateRowsFilter();
    // The groups' totals changed with the rows: repaint their numbers.
    if (rowCount() > 0)
        emit dataChanged(index(0, 0), index(rowCount() - 1, columnCount() - 1));
}

void TensorFilterModel::recount()
{
    m_totals.clear();
    if (const TensorTreeModel *tree = treeModel(); tree && !m_matches.empty())
        m_totals = tree->totalsWhere([this](std::size_t tensor) { return m_matches[tensor]; });
}

std::uint64_t TensorFilterModel::matchCount() const
{
    const TensorTreeModel *tree = treeModel();
    if (!tree || !m_valid)
        return 0;
    return m_totals.empty() ? tree->totals({}).tensors : m_totals[0].tensors;
}

TensorTreeModel::Totals TensorFilterModel::totals(const QModelIndex &source) const
{
    const TensorTreeModel *tree = treeModel();
    if (!tree)
        return {};
    if (m_totals.empty())
        return tree->totals(source);
    const std::size_t node = source.isValid() ? static_cast<std::size_t>(source.internalId()) : 0;
    return node < m_totals.size() ? m_totals[node] : TensorTreeModel::Totals {};
}

QVariant TensorFilterModel::data(const QModelIndex &index, int role) const
{
    const TensorTreeModel *tree = treeModel();
    if (!tree || m_totals.empty() || !index.isValid() || index.column() == TensorTreeModel::NameColumn)
        return QSortFilterProxyModel::data(index, role);
    const QModelIndex source = mapToSource(index);
    if (!source.data(TensorTreeModel::IsGroupRole).toBool())
        return QSortFilterProxyModel::data(index, role);
    const TensorTreeModel::Totals matching = totals(source);
    switch (role) {
    case Qt::DisplayRole:
        return tree->groupText(index.column(), matching);
    case Qt::ToolTipRole:
        if (index.column() == TensorTreeModel::ParametersColumn)
            return countNoun(matching.parameters, tr("parameter"), tr("parameters"));
        if (index.column() == TensorTreeModel::SizeColumn)
            return tr("%1 bytes").arg(countText(matching.bytes));
        return tr("%1 of %2 match the filter")
            .arg(countText(matching.tensors), countNoun(tree->totals(source).tensors, tr("tensor"), tr("tensors")));
    case TensorTreeModel::ParametersRole:
        return static_cast<qulonglong>(matching.parameters);
    case TensorTreeModel::BytesRole:
        return static_cast<qulonglong>(matching.bytes);
    case TensorTreeModel::SortRole:
        if (index.column() == TensorTreeModel::SizeColumn)
            return static_cast<qulonglong>(matching.bytes);
        if (index.column() == TensorTreeModel::DTypeColumn)
            return tree->groupText(index.column(), matching);
        return static_cast<qulonglong>(matching.parameters);
    default:
        return QSortFilterProxyModel::data(index, role);
    }
}

bool TensorFilterModel::filterAcceptsRow(int sourceRow, const QModelIndex &sourceParent) const
{
    if (m_pattern.isEmpty())
        return true;
    if (!m_valid)
        return false; // nothing until the pattern means something
    const QModelIndex index = sourceModel()->index(sourceRow, 0, sourceParent);
    if (index.data(TensorTreeModel::IsGroupRole).toBool())
        return false; // shown through recursive filtering when a tensor below matches
    if (!m_matches.empty()) {
        const int tensor = index.data(TensorTreeModel::TensorIndexRole).toInt();
        return tensor >= 0 && static_cast<std::size_t>(tensor) < m_matches.size()
            && m_matches[static_cast<std::size_t>(tensor)];
    }
    return matches(index.data(TensorTreeModel::FullPathRole).toString());
}

} // namespace stb
