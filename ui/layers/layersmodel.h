#pragma once

#include "core/io/checkpoint.h"
#include "core/layers/repeat.h"

#include <QAbstractItemModel>

#include <memory>
#include <vector>

namespace stb {

// The tensor tree's Layers mode: each repeat is one row ("model.layers.{0–93} × 94") whose
// children are its roles, the repeats nested in its blocks (experts across all layers), then
// its blocks; a block holds its tensors and, collapsed the same way, the nested repeat's blocks
// of that layer. Tensors outside any repeat follow as top-level rows. Rows with deviations carry
// a warning icon, their count, and the list in a tooltip. Built once from detectRepeats.
class LayersModel : public QAbstractItemModel {
    Q_OBJECT
public:
    enum Column { NameColumn, DTypeColumn, ShapeColumn, BlocksColumn, DeviationsColumn, ColumnCount };
    enum class Kind { Repeat, Role, Block, Group, Tensor };
    enum Role {
        TensorIndexRole = Qt::UserRole + 1, // int: index into Checkpoint::tensors(), -1 for others
        KindRole, // int: Kind
    };

    explicit LayersModel(QObject *parent = nullptr);
    ~LayersModel() override;

    // Detects the repeats (names only: milliseconds) and rebuilds the rows.
    void setCheckpoint(std::shared_ptr<const Checkpoint> checkpoint);
    const std::vector<Repeat> &repeats() const { return m_repeats; }

    Kind kind(const QModelIndex &index) const;
    // The repeat a Repeat, Role, Block or Group row belongs to (a nested one for its rows).
    const Repeat *repeatAt(const QModelIndex &index) const;
    // The role of a Role row, or of a Tensor row inside a block; -1 otherwise.
    int roleAt(const QModelIndex &index) const;
    // Index into Checkpoint::tensors(), or kNoTensor.
    std::size_t tensorAt(const QModelIndex &index) const;
    // The row of that tensor (inside its block), or of a top-level tensor.
    QModelIndex indexOfTensor(std::size_t tensor) const;
    QModelIndex indexOfRepeat(const Repeat *repeat) const;

    QModelIndex index(int row, int column, const QModelIndex &parent = {}) const override;
    QModelIndex parent(const QModelIndex &child) const override;
    int rowCount(const QModelIndex &parent = {}) const override;
    int columnCount(const QModelIndex &parent = {}) const override;
    QVariant data(const QModelIndex &index, int role = Qt::DisplayRole) const override;
    QVariant headerData(int section, Qt::Orientation orientation, int role = Qt::DisplayRole) const override;

private:
    struct Node {
        Kind kind = Kind::Tensor;
        int parent = -1;
        int row = 0;
        std::vector<int> children;
        const Repeat *repeat = nullptr;
        int role = -1;
        std::size_t blockRow = 0, column = 0; // Block and Group rows
        std::size_t tensor = kNoTensor;
        QString text;
        int deviations = 0;
    };

    class Builder;
    int nodeOf(const QModelIndex &index) const;
    QString toolTip(const Node &node) const;
    bool concerns(const Node &node, const RepeatDeviation &deviation) const;
    void addLine(
        QStringList &lines, int &matching, const Repeat &repeat, const RepeatDeviation &deviation) const;

    std::shared_ptr<const Checkpoint> m_checkpoint;
    std::vector<Repeat> m_repeats;
    std::vector<Node> m_nodes; // m_nodes[0] is the invisible root
    std::vector<int> m_nodeOfTensor;
};

} // namespace stb
