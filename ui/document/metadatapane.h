#pragma once

#include "core/io/checkpoint.h"

#include <QWidget>

class QTreeWidget;
class QTreeWidgetItem;

namespace stb {

// One file's summary: size, header length, tensors, parameters by dtype, its `__metadata__`
// pairs (values that hold JSON unfold as a tree), its warnings; for a sharded model also the
// index's metadata.
class MetadataPane : public QWidget {
    Q_OBJECT
public:
    explicit MetadataPane(QWidget *parent = nullptr);

    // Shows shard `shard` of the checkpoint (0 for a single file).
    void showFile(const Checkpoint &checkpoint, std::size_t shard);
    QTreeWidget *tree() const { return m_tree; }

private:
    QTreeWidgetItem *section(const QString &title);
    void addValue(QTreeWidgetItem *parent, const QString &key, const std::string &value);

    QTreeWidget *m_tree;
};

} // namespace stb
