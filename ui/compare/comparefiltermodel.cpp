#include "ui/compare/comparefiltermodel.h"

#include "ui/compare/comparemodel.h"
#include "ui/document/tensortreemodel.h"

namespace stb {

CompareFilterModel::CompareFilterModel(QObject *parent)
    : TensorFilterModel(parent)
{ }

void CompareFilterModel::setDifferencesOnly(bool on)
{
    if (on == m_differencesOnly)
        return;
    m_differencesOnly = on;
    invalidateRowsFilter();
}

bool CompareFilterModel::filterAcceptsRow(int sourceRow, const QModelIndex &sourceParent) const
{
    const QModelIndex index = sourceModel()->index(sourceRow, 0, sourceParent);
    if (m_differencesOnly && !index.data(TensorTreeModel::IsGroupRole).toBool()
        && !index.data(CompareModel::DifferingRole).toBool())
        return false;
    if (m_differencesOnly && pattern().isEmpty())
        // TensorFilterModel accepts groups when there is no pattern; here a group must earn its
        // place through a differing tensor below it (recursive filtering).
        return !index.data(TensorTreeModel::IsGroupRole).toBool();
    return TensorFilterModel::filterAcceptsRow(sourceRow, sourceParent);
}

} // namespace stb
