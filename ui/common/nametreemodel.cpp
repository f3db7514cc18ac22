#include "ui/common/nametreemodel.h"

namespace stb {

namespace {
const NameTree::Node kEmptyRoot {};
}

int NameTreeModel::nodeOf(const QModelIndex &index) const
{
    return index.isValid() ? static_cast<int>(index.internalId()) : NameTree::kRoot;
}

const NameTree::Node &NameTreeModel::node(const QModelIndex &index) const
{
    const NameTree *tree = shownTree();
    return tree ? tree->node(nodeOf(index)) : kEmptyRoot;
}

QModelIndex NameTreeModel::indexOfNode(int id) const
{
    const NameTree *tree = shownTree();
    if (!tree || id <= NameTree::kRoot || static_cast<std::size_t>(id) >= tree->size())
        return {};
    return createIndex(tree->node(id).row, 0, static_cast<quintptr>(id));
}

QModelIndex NameTreeModel::index(int row, int column, const QModelIndex &parent) const
{
    if (row < 0 || column < 0 || column >= columnCount(parent))
        return {};
    const auto &children = node(parent).children;
    if (static_cast<std::size_t>(row) >= children.size())
        return {};
    return createIndex(row, column, static_cast<quintptr>(children[static_cast<std::size_t>(row)]));
}

QModelIndex NameTreeModel::parent(const QModelIndex &child) const
{
    return child.isValid() ? indexOfNode(node(child).parent) : QModelIndex();
}

int NameTreeModel::rowCount(const QModelIndex &parent) const
{
    return parent.column() > 0 ? 0 : static_cast<int>(node(parent).children.size());
}

bool NameTreeModel::hasChildren(const QModelIndex &parent) const
{
    return rowCount(parent) > 0;
}

Qt::ItemFlags NameTreeModel::flags(const QModelIndex &index) const
{
    if (!index.isValid())
        return Qt::NoItemFlags;
    Qt::ItemFlags flags = Qt::ItemIsEnabled | Qt::ItemIsSelectable;
    if (!node(index).isGroup() && node(index).children.empty()) // a weight's leaf may hold companions
        flags |= Qt::ItemNeverHasChildren;
    return flags;
}

} // namespace stb
