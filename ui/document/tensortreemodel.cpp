#include "ui/document/tensortreemodel.h"

#include "core/format/prefault.h"
#include "core/quant/quantbadge.h"
#include "ui/common/qtformat.h"

#include <QApplication>
#include <QStyle>

#include <algorithm>
#include <bit>

using namespace Qt::StringLiterals;

namespace stb {

namespace {

std::uint64_t addSaturated(std::uint64_t a, std::uint64_t b)
{
    return a > UINT64_MAX - b ? UINT64_MAX : a + b;
}

void accumulate(TensorTreeModel::Totals &into, const TensorTreeModel::Totals &from)
{
    into.tensors += from.tensors;
    into.parameters = addSaturated(into.parameters, from.parameters);
    into.bytes = addSaturated(into.bytes, from.bytes);
    into.dtypeMask |= from.dtypeMask;
    into.missing += from.missing;
}

TensorTreeModel::Totals tensorTotals(const TensorInfo &info)
{
    return { 1, info.elementCount().value_or(UINT64_MAX), info.byteLength(),
        1u << static_cast<unsigned>(info.dtype) };
}

} // namespace

// Only the root, with zero totals: the rows of no checkpoint.
std::shared_ptr<const TensorTreeModel::Rows> TensorTreeModel::emptyRows(bool flat)
{
    return std::make_shared<const Rows>(Rows { NameTree(), std::vector<Totals>(1), {}, flat, nullptr });
}

TensorTreeModel::TensorTreeModel(QObject *parent)
    : NameTreeModel(parent)
    , m_rows(emptyRows(false))
{ }

std::shared_ptr<const TensorTreeModel::Rows> TensorTreeModel::prepare(
    const Checkpoint &checkpoint, bool flat, std::shared_ptr<const QuantView> quant)
{
    const auto &tensors = checkpoint.tensors();
    std::vector<std::string_view> names;
    names.reserve(tensors.size());
    prefaultForWriting(names.data(), tensors.size() * sizeof(std::string_view));
    for (const auto &tensor : tensors)
        names.emplace_back(tensor.info->name);
    auto rows = std::make_shared<Rows>();
    rows->flat = flat;
    rows->tree = NameTree::build(names, flat ? NameTree::Layout::Flat : NameTree::Layout::Tree);
    // Megabytes for a large model: faulted in at once, not a page at a time.
    rows->own.reserve(tensors.size());
    prefaultForWriting(rows->own.data(), tensors.size() * sizeof(Totals));
    rows->own.resize(tensors.size());
    std::vector<std::pair<std::size_t, std::size_t>> companions; // companion tensor -> codes tensor
    for (std::size_t i = 0; i < tensors.size(); ++i) {
        Totals &totals = rows->own[i] = tensorTotals(*tensors[i].info);
        const SafetensorsFile *file = checkpoint.fileOf(tensors[i]);
        totals.missing = file && !file->complete(*tensors[i].info);
        if (const std::ptrdiff_t w = quant ? quant->weightOfCodes(i) : -1; w >= 0) {
            const QuantizedWeight &weight = quant->weights()[static_cast<std::size_t>(w)];
            totals.parameters = weight.parameters;
            for (const QuantCompanion &c : weight.companions)
                companions.emplace_back(c.tensor, i);
        } else if (quant && quant->weightOfCompanion(i) >= 0) {
            totals.parameters = 0; // scales, zero-points, state: not parameters
        }
    }
    rows->tree.adopt(companions);
    rows->totals = rows->tree.sum<Totals>([&](std::size_t i) { return rows->own[i]; }, accumulate);
    rows->quant = std::move(quant);
    return rows;
}

void TensorTreeModel::setCheckpoint(std::shared_ptr<const Checkpoint> checkpoint, std::shared_ptr<const Rows> rows)
{
    beginResetModel();
    m_checkpoint = std::move(checkpoint);
    m_quant = rows ? rows->quant : nullptr; // another checkpoint's quantization never applies
    if (!m_checkpoint)
        m_rows = emptyRows(m_flat);
    else if (rows && rows->flat == m_flat && rows->tree.leafCount() == m_checkpoint->tensors().size())
        m_rows = std::move(rows);
    else
        m_rows = prepare(*m_checkpoint, m_flat, m_quant);
    endResetModel();
}

void TensorTreeModel::setQuantView(std::shared_ptr<const QuantView> view)
{
    if (view == m_quant)
        return; // already counted in (the opening job prepared the rows with it)
    beginResetModel();
    m_quant = std::move(view);
    m_rows = m_checkpoint ? prepare(*m_checkpoint, m_flat, m_quant)
                          : emptyRows(m_flat);
    endResetModel();
}

const QuantizedWeight *TensorTreeModel::weightOf(const NameTree::Node &node) const
{
    const std::ptrdiff_t w
        = m_quant && node.leaf >= 0 ? m_quant->weightOfCodes(static_cast<std::size_t>(node.leaf)) : -1;
    return w >= 0 ? &m_quant->weights()[static_cast<std::size_t>(w)] : nullptr;
}

void TensorTreeModel::setFlat(bool flat)
{
    if (flat == m_flat)
        return;
    m_flat = flat;
    beginResetModel();
    m_rows = m_checkpoint ? prepare(*m_checkpoint, m_flat, m_quant)
                          : emptyRows(m_flat);
    endResetModel();
}

const TensorTreeModel::Totals &TensorTreeModel::totalsOf(const QModelIndex &index) const
{
    return m_rows->totals[static_cast<std::size_t>(nodeOf(index))];
}

const TensorInfo *TensorTreeModel::infoOf(const NameTree::Node &node) const
{
    return node.isGroup() ? nullptr : m_checkpoint->tensors()[static_cast<std::size_t>(node.leaf)].info;
}

const Checkpoint::Tensor *TensorTreeModel::tensorAt(const QModelIndex &index) const
{
    if (!index.isValid() || index.model() != this)
        return nullptr;
    const int tensor = node(index).leaf;
    return tensor < 0 ? nullptr : &m_checkpoint->tensors()[static_cast<std::size_t>(tensor)];
}

QModelIndex TensorTreeModel::indexOfTensor(const TensorInfo *info) const
{
    if (!m_checkpoint || !info)
        return {};
    const auto &tensors = m_checkpoint->tensors();
    for (std::size_t i = 0; i < tensors.size(); ++i) {
        if (tensors[i].info == info) {
            return indexOfNode(m_rows->tree.nodeOfLeaf(i));
        }
    }
    return {};
}

QModelIndex TensorTreeModel::indexOfPath(const QString &fullName) const
{
    return m_checkpoint ? indexOfNode(m_rows->tree.find(fullName.toStdString())) : QModelIndex();
}

QString TensorTreeModel::fullPath(const QModelIndex &index) const
{
    return m_checkpoint && index.isValid() ? toQString(m_rows->tree.path(nodeOf(index))) : QString();
}

TensorTreeModel::Totals TensorTreeModel::totals(const QModelIndex &index) const
{
    return totalsOf(index);
}

std::vector<TensorTreeModel::DTypeTotals> TensorTreeModel::dtypeBreakdown(const QModelIndex &index) const
{
    std::vector<Totals> byDType(kDTypeCount);
    if (m_checkpoint) {
        m_rows->tree.forEachLeaf(nodeOf(index), [&](std::size_t i) {
            const TensorInfo &info = *m_checkpoint->tensors()[i].info;
            accumulate(byDType[static_cast<std::size_t>(info.dtype)], tensorTotals(info));
        });
    }
    std::vector<DTypeTotals> out;
    for (std::size_t i = 0; i < kDTypeCount; ++i) {
        if (byDType[i].tensors)
            out.push_back({ static_cast<DType>(i), byDType[i] });
    }
    // Largest share first: that is what a reader of a breakdown looks for.
    std::stable_sort(out.begin(), out.end(),
        [](const DTypeTotals &a, const DTypeTotals &b) { return a.totals.bytes > b.totals.bytes; });
    return out;
}

std::vector<TensorTreeModel::Totals> TensorTreeModel::totalsWhere(
    const std::function<bool(std::size_t)> &keep) const
{
    const NameTree &tree = m_rows->tree;
    std::vector<Totals> values(tree.size());
    for (std::size_t id = 1; id < tree.size(); ++id) {
        const int leaf = tree.nodes()[id].leaf;
        if (leaf >= 0 && keep(static_cast<std::size_t>(leaf)))
            values[id] = m_rows->own[static_cast<std::size_t>(leaf)]; // not its companions' (below it)
    }
    // Children have larger ids than their parents (NameTree::sum): one backward pass.
    for (std::size_t id = tree.size() - 1; id > 0 && id < tree.size(); --id)
        accumulate(values[static_cast<std::size_t>(tree.nodes()[id].parent)], values[id]);
    return values;
}

QVariant TensorTreeModel::groupText(int column, const Totals &totals)
{
    switch (column) {
    case DTypeColumn:
        if (std::popcount(totals.dtypeMask) == 1)
            return toQString(dtypeName(static_cast<DType>(std::countr_zero(totals.dtypeMask))));
        return totals.dtypeMask ? tr("mixed") : QString();
    case ShapeColumn:
        return countNoun(totals.tensors, tr("tensor"), tr("tensors"));
    case ParametersColumn:
        // Compact, so "235.0 B" fits the column; the exact count is the cell's tooltip.
        return totals.parameters == UINT64_MAX ? tr("overflow") : compactCountText(totals.parameters);
    case SizeColumn:
        return sizeText(totals.bytes);
    default:
        return {};
    }
}

int TensorTreeModel::columnCount(const QModelIndex &) const
{
    return ColumnCount;
}

QVariant TensorTreeModel::data(const QModelIndex &index, int role) const
{
    if (!index.isValid())
        return {};
    const NameTree::Node &n = node(index);
    const Totals &totals = totalsOf(index);
    switch (role) {
    case Qt::DisplayRole:
        return displayData(index);
    case Qt::DecorationRole:
        if (index.column() == NameColumn && totals.missing > 0)
            return QApplication::style()->standardIcon(QStyle::SP_MessageBoxWarning);
        return {};
    case Qt::ToolTipRole:
        if (index.column() == NameColumn) {
            const QString missing = n.isGroup() && totals.missing > 0
                ? tr("%1 with bytes past the end of the file")
                      .arg(countNoun(totals.missing, tr("tensor"), tr("tensors")))
                : missingBytesText(index);
            const QString name = shownName(fullPath(index).toStdString(), 400);
            return missing.isEmpty() ? name : name + u'\n' + missing;
        }
        if (index.column() == SizeColumn)
            return tr("%1 bytes").arg(countText(totals.bytes));
        if (index.column() == ParametersColumn)
            return totals.parameters == UINT64_MAX
                ? tr("more than 2^64 parameters")
                : countNoun(totals.parameters, tr("parameter"), tr("parameters"));
        if (const QuantizedWeight *w = weightOf(n); w && index.column() != ParametersColumn)
            return tr("%1: stored as %2 %3, dequantized to %4\n%5")
                .arg(shownName(w->name, 400), toQString(std::string(dtypeName(infoOf(n)->dtype))),
                    shapeText(infoOf(n)->shape), shapeText(w->logicalShape), toQString(quantDescription(*w)));
        return {};
    case Qt::TextAlignmentRole:
        if (index.column() == ParametersColumn || index.column() == SizeColumn)
            return QVariant::fromValue(Qt::Alignment(Qt::AlignRight | Qt::AlignVCenter));
        return {};
    case TensorIndexRole:
        return n.leaf;
    case TensorInfoRole:
        return QVariant::fromValue(infoOf(n));
    case IsGroupRole:
        return n.isGroup();
    case FullPathRole:
        return fullPath(index);
    case SortRole:
        return sortKey(index);
    case ParametersRole:
        return static_cast<qulonglong>(totals.parameters);
    case BytesRole:
        return static_cast<qulonglong>(totals.bytes);
    default:
        return {};
    }
}

QString TensorTreeModel::missingBytesText(const QModelIndex &index) const
{
    const int leaf = node(index).leaf;
    if (leaf < 0 || !m_checkpoint || std::size_t(leaf) >= m_checkpoint->tensors().size())
        return {};
    return missingBytesText(*m_checkpoint, m_checkpoint->tensors()[std::size_t(leaf)]);
}

QString TensorTreeModel::missingBytesText(const Checkpoint &checkpoint, const Checkpoint::Tensor &tensor)
{
    const SafetensorsFile *file = checkpoint.fileOf(tensor);
    if (!file || file->complete(*tensor.info))
        return {};
    const Header &header = file->header();
    const std::uint64_t begin = header.fileOffset(*tensor.info);
    // A broken header may claim an end past 2^64; saturate rather than wrap.
    const std::uint64_t length = tensor.info->byteLength();
    const std::uint64_t end = begin > UINT64_MAX - length ? UINT64_MAX : begin + length;
    return tr("bytes %1–%2 lie past the end of the file (file is %3 bytes)")
        .arg(countText(std::max(begin, header.fileSize)), countText(end), countText(header.fileSize));
}

std::uint64_t TensorTreeModel::missingBytesCount(const Checkpoint &checkpoint)
{
    std::uint64_t count = 0;
    for (const Checkpoint::Tensor &tensor : checkpoint.tensors()) {
        const SafetensorsFile *file = checkpoint.fileOf(tensor);
        count += file && !file->complete(*tensor.info);
    }
    return count;
}

QVariant TensorTreeModel::displayData(const QModelIndex &index) const
{
    const NameTree::Node &node = this->node(index);
    const TensorInfo *info = infoOf(node);
    const Totals &totals = totalsOf(index);
    switch (index.column()) {
    case NameColumn:
        // Escaped and bounded: a name with newlines would make every row (uniform heights) as tall.
        return node.name.empty() ? tr("(empty)") : shownName(node.name, 200);
    case DTypeColumn:
        if (const QuantizedWeight *w = weightOf(node))
            return toQString(quantBadge(*w)); // short, to fit the column; the tooltip says it in full
        return groupText(DTypeColumn, totals);
    case ShapeColumn:
        if (const QuantizedWeight *w = weightOf(node))
            return shapeText(w->logicalShape);
        return info ? shapeText(info->shape) : groupText(ShapeColumn, totals);
    default:
        return groupText(index.column(), totals);
    }
}

QVariant TensorTreeModel::sortKey(const QModelIndex &index) const
{
    const Totals &totals = totalsOf(index);
    switch (index.column()) {
    case NameColumn:
        return node(index).row; // rows are already in natural order
    case DTypeColumn:
        return displayData(index);
    case ShapeColumn:
    case ParametersColumn:
        return static_cast<qulonglong>(totals.parameters);
    case SizeColumn:
        return static_cast<qulonglong>(totals.bytes);
    default:
        return {};
    }
}

QVariant TensorTreeModel::headerData(int section, Qt::Orientation orientation, int role) const
{
    if (orientation != Qt::Horizontal || role != Qt::DisplayRole)
        return {};
    switch (section) {
    case NameColumn:
        return tr("Name");
    case DTypeColumn:
        return tr("DType");
    case ShapeColumn:
        return tr("Shape");
    case ParametersColumn:
        return tr("Parameters");
    case SizeColumn:
        return tr("Size");
    default:
        return {};
    }
}

} // namespace stb
