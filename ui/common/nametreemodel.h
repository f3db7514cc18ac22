#pragma once

#include "core/text/nametree.h"

#include <QAbstractItemModel>

namespace stb {

// The structure of a QAbstractItemModel over a NameTree, which the tensor tree and both sides of
// a compare window share: a row per node in the tree's order, the node id as the index's
// internalId (the root, id 0, is the invalid index), groups with children, tensors without
// (unless the tree adopted some under a tensor: a quantized weight's companions).
// Subclasses say which tree is shown (none: an empty model) and how many columns, and give the
// data.
class NameTreeModel : public QAbstractItemModel {
    Q_OBJECT
public:
    using QAbstractItemModel::QAbstractItemModel;

    // The tree node behind an index (NameTree::kRoot for an invalid one).
    int nodeOf(const QModelIndex &index) const;

    QModelIndex index(int row, int column, const QModelIndex &parent = {}) const override;
    QModelIndex parent(const QModelIndex &child) const override;
    int rowCount(const QModelIndex &parent = {}) const override;
    bool hasChildren(const QModelIndex &parent = {}) const override;
    Qt::ItemFlags flags(const QModelIndex &index) const override;

protected:
    // The tree the rows stand for; nullptr while there is none.
    virtual const NameTree *shownTree() const = 0;
    // The node behind an index: an empty root while there is no tree.
    const NameTree::Node &node(const QModelIndex &index) const;
    // Column 0 of a node's row; invalid for the root and for -1 (NameTree::find's "none").
    QModelIndex indexOfNode(int id) const;
};

} // namespace stb
