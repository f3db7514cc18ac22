#include "ui/document/tensorfiltermodel.h"

#include "ui/document/tensortreemodel.h"

namespace stb {

TensorFilterModel::TensorFilterModel(QObject *parent)
    : QSortFilterProxyModel(parent)
{
    // A group is shown when anything below it matches; a group never matches on its own name,
    // so that the filter's answer is always "these tensors".
    setRecursiveFilteringEnabled(true);
    setSortRole(TensorTreeModel::SortRole);
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
        m_error = m_expression.errorString();
    }
    invalidateRowsFilter();
}

bool TensorFilterModel::filterAcceptsRow(int sourceRow, const QModelIndex &sourceParent) const
{
    if (m_pattern.isEmpty() || !m_valid)
        return true;
    const QModelIndex index = sourceModel()->index(sourceRow, 0, sourceParent);
    if (index.data(TensorTreeModel::IsGroupRole).toBool())
        return false; // shown through recursive filtering when a tensor below matches
    const QString name = index.data(TensorTreeModel::FullPathRole).toString();
    if (m_mode == Mode::Substring)
        return name.contains(m_pattern, Qt::CaseInsensitive);
    return m_expression.match(name).hasMatch();
}

} // namespace stb
