#pragma once

#include "core/io/checkpoint.h"
#include "core/quant/quantview.h"
#include "core/text/nametree.h"

#include "ui/common/nametreemodel.h"


#include <cstdint>
#include <functional>
#include <memory>
#include <vector>

namespace stb {

// The tensors of a Checkpoint as a tree of their dotted names ("model.layers.3.mlp.up_proj.weight"
// becomes model > layers > 3 > mlp > up_proj > weight), children in natural order (2 before 10),
// or as a flat list of full names. Groups show the sums of everything below them. The model
// holds the immutable checkpoint, so the names it points into live as long as it does.
class TensorTreeModel : public NameTreeModel {
    Q_OBJECT
public:
    enum Column { NameColumn, DTypeColumn, ShapeColumn, ParametersColumn, SizeColumn, ColumnCount };
    enum Role {
        TensorIndexRole = Qt::UserRole + 1, // int: index into Checkpoint::tensors(), -1 for a group
        TensorInfoRole, // const stb::TensorInfo *, nullptr for a group
        IsGroupRole, // bool
        FullPathRole, // QString: the dotted name of the tensor or group
        SortRole, // a key that sorts the column's values correctly
        ParametersRole, // qulonglong, summed for a group
        BytesRole, // qulonglong, summed for a group
    };

    // Sums over a subtree. Parameters and bytes saturate at 2^64-1 (broken headers can claim more).
    struct Totals {
        std::uint64_t tensors = 0;
        std::uint64_t parameters = 0;
        std::uint64_t bytes = 0;
        std::uint32_t dtypeMask = 0; // bit i set when DType(i) occurs
        std::uint64_t missing = 0; // tensors whose bytes run past the end of their file
    };
    struct DTypeTotals {
        DType dtype;
        Totals totals;
    };

    // The rows of one layout: the name tree and the totals of each of its nodes. Plain data, so a
    // million tensors can be grouped and summed off the GUI thread (prepare() is thread-safe) and
    // handed to setCheckpoint() ready.
    struct Rows {
        NameTree tree; // leaf i is Checkpoint::tensors()[i]
        std::vector<Totals> totals; // per node, in effective parameters when `quant` is given
        std::vector<Totals> own; // per leaf: the tensor's own, without the companions under it
        bool flat = false;
        std::shared_ptr<const QuantView> quant;
    };
    static std::shared_ptr<const Rows> prepare(
        const Checkpoint &checkpoint, bool flat, std::shared_ptr<const QuantView> quant = {});

    explicit TensorTreeModel(QObject *parent = nullptr);

    // `rows`: prepare(*checkpoint, isFlat(), quant) done beforehand (their quantization comes
    // with them), or nullptr to build them here, without quantization.
    void setCheckpoint(std::shared_ptr<const Checkpoint> checkpoint, std::shared_ptr<const Rows> rows = {});
    // The checkpoint's quantization: a quantized weight's codes show its scheme ("gptq 4-bit") as
    // their dtype, its logical shape and its logical element count; its companions (scales,
    // zeros, g_idx, state) are the children of that row, count no parameters, and the weight's row
    // sums them like a group (its size is the codes' and companions' bytes), so every total is in
    // effective parameters. Null: every tensor as stored, no tensor under another.
    void setQuantView(std::shared_ptr<const QuantView> view);
    const std::shared_ptr<const Checkpoint> &checkpoint() const { return m_checkpoint; }
    void setFlat(bool flat);
    bool isFlat() const { return m_flat; }

    // nullptr for a group or an invalid index.
    const Checkpoint::Tensor *tensorAt(const QModelIndex &index) const;
    QModelIndex indexOfTensor(const TensorInfo *info) const;
    // The tensor of that full name, else the group of that dotted path; invalid when neither.
    QModelIndex indexOfPath(const QString &fullName) const;
    QString fullPath(const QModelIndex &index) const;
    // Sums below `index` (the whole checkpoint for an invalid index), and the same split by dtype.
    Totals totals(const QModelIndex &index) const;
    std::vector<DTypeTotals> dtypeBreakdown(const QModelIndex &index) const;
    // Per node id (QModelIndex::internalId(); 0 is the whole checkpoint) the sums over the tensors
    // `keep(tensorIndex)` accepts: a filter's totals. O(rows).
    std::vector<Totals> totalsWhere(const std::function<bool(std::size_t)> &keep) const;
    // A group row's text in `column` for these totals: "BF16" or "mixed", "3 tensors", the
    // parameters, the size. What the model shows, and a filter shows for what matches.
    static QVariant groupText(int column, const Totals &totals);
    // A broken file's tensor whose bytes run past the end of its file: "bytes N–M lie past the
    // end of the file (file is K bytes)", file offsets with digit grouping; empty when every
    // byte is there (and for groups). The name column shows a warning icon and this tooltip; a
    // group holding such tensors shows the icon too, with their count, so a collapsed tree
    // still points at them.
    QString missingBytesText(const QModelIndex &index) const;
    static QString missingBytesText(const Checkpoint &checkpoint, const Checkpoint::Tensor &tensor);
    // How many tensors of the checkpoint have bytes past the end of their file.
    static std::uint64_t missingBytesCount(const Checkpoint &checkpoint);

    int columnCount(const QModelIndex &parent = {}) const override;
    QVariant data(const QModelIndex &index, int role = Qt::DisplayRole) const override;
    QVariant headerData(int section, Qt::Orientation orientation, int role = Qt::DisplayRole) const override;

protected:
    const NameTree *shownTree() const override { return &m_rows->tree; } // never null

private:
    static std::shared_ptr<const Rows> emptyRows(bool flat);
    const Totals &totalsOf(const QModelIndex &index) const;
    const TensorInfo *infoOf(const NameTree::Node &node) const;
    QVariant displayData(const QModelIndex &index) const;
    QVariant sortKey(const QModelIndex &index) const;

    std::shared_ptr<const Checkpoint> m_checkpoint;
    std::shared_ptr<const QuantView> m_quant;
    const QuantizedWeight *weightOf(const NameTree::Node &node) const; // the node's codes' weight, or null
    std::shared_ptr<const Rows> m_rows; // never null
    bool m_flat = false;
};

} // namespace stb
