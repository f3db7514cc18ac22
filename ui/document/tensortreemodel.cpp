#include "ui/document/tensortreemodel.h"

#include "core/text/naturalorder.h"
#include "ui/common/qtformat.h"

#include <algorithm>
#include <bit>
#include <unordered_map>

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
}

TensorTreeModel::Totals totalsOf(const TensorInfo &info)
{
    return { 1, info.elementCount().value_or(UINT64_MAX), info.byteLength(),
        1u << static_cast<unsigned>(info.dtype) };
}

// Groups are found by (parent node, segment): one hash for all levels keeps the build O(n).
struct GroupKey {
    int parent;
    std::string_view segment;
    bool operator==(const GroupKey &) const = default;
};
struct GroupKeyHash {
    std::size_t operator()(const GroupKey &key) const
    {
        return std::hash<std::string_view>()(key.segment) * 31u + static_cast<std::size_t>(key.parent);
    }
};

} // namespace

TensorTreeModel::TensorTreeModel(QObject *parent)
    : QAbstractItemModel(parent)
{
    m_nodes.emplace_back();
}

void TensorTreeModel::setCheckpoint(std::shared_ptr<const Checkpoint> checkpoint)
{
    beginResetModel();
    m_checkpoint = std::move(checkpoint);
    build();
    endResetModel();
}

void TensorTreeModel::setFlat(bool flat)
{
    if (flat == m_flat)
        return;
    beginResetModel();
    m_flat = flat;
    build();
    endResetModel();
}

void TensorTreeModel::build()
{
    m_nodes.clear();
    m_nodes.emplace_back();
    m_nodeOfTensor.clear();
    if (!m_checkpoint)
        return;
    const auto &tensors = m_checkpoint->tensors();
    m_nodes.reserve(tensors.size() * (m_flat ? 1 : 2) + 1);
    m_nodeOfTensor.resize(tensors.size());

    std::unordered_map<GroupKey, int, GroupKeyHash> groups;
    if (!m_flat)
        groups.reserve(tensors.size());
    auto addNode = [this](int parent, std::string_view name, int tensor) {
        const int id = static_cast<int>(m_nodes.size());
        Node &node = m_nodes.emplace_back();
        node.name = name;
        node.parent = parent;
        node.tensor = tensor;
        m_nodes[static_cast<std::size_t>(parent)].children.push_back(id);
        return id;
    };
    for (std::size_t i = 0; i < tensors.size(); ++i) {
        const std::string_view name = tensors[i].info->name;
        int parent = 0;
        std::string_view leaf = name;
        if (!m_flat) {
            // Every segment but the last is a group; the last is the tensor itself. A tensor and a
            // group may share a name ("a.b" and "a.b.c"): they become two siblings.
            std::size_t start = 0;
            for (std::size_t dot = name.find('.'); dot != std::string_view::npos;
                 dot = name.find('.', start)) {
                const std::string_view segment = name.substr(start, dot - start);
                const auto [it, inserted] = groups.try_emplace(GroupKey { parent, segment }, 0);
                if (inserted)
                    it->second = addNode(parent, segment, -1);
                parent = it->second;
                start = dot + 1;
            }
            leaf = name.substr(start);
        }
        const int id = addNode(parent, leaf, static_cast<int>(i));
        m_nodes[static_cast<std::size_t>(id)].totals = totalsOf(*tensors[i].info);
        m_nodeOfTensor[i] = id;
    }

    for (auto &node : m_nodes) {
        std::stable_sort(node.children.begin(), node.children.end(), [this](int a, int b) {
            const Node &x = m_nodes[static_cast<std::size_t>(a)], &y = m_nodes[static_cast<std::size_t>(b)];
            if (const int c = naturalCompare(x.name, y.name))
                return c < 0;
            return (x.tensor >= 0) > (y.tensor >= 0); // a tensor before the group of the same name
        });
        for (std::size_t row = 0; row < node.children.size(); ++row)
            m_nodes[static_cast<std::size_t>(node.children[row])].row = static_cast<int>(row);
    }
    // Children always have larger ids than their parents: one backward pass sums the groups.
    for (std::size_t id = m_nodes.size() - 1; id > 0; --id)
        accumulate(m_nodes[static_cast<std::size_t>(m_nodes[id].parent)].totals, m_nodes[id].totals);
}

int TensorTreeModel::nodeOf(const QModelIndex &index) const
{
    return index.isValid() ? static_cast<int>(index.internalId()) : 0;
}

const Checkpoint::Tensor *TensorTreeModel::tensorAt(const QModelIndex &index) const
{
    if (!index.isValid() || index.model() != this)
        return nullptr;
    const int tensor = m_nodes[static_cast<std::size_t>(nodeOf(index))].tensor;
    return tensor < 0 ? nullptr : &m_checkpoint->tensors()[static_cast<std::size_t>(tensor)];
}

QModelIndex TensorTreeModel::indexOfTensor(const TensorInfo *info) const
{
    if (!m_checkpoint || !info)
        return {};
    const auto &tensors = m_checkpoint->tensors();
    for (std::size_t i = 0; i < tensors.size(); ++i) {
        if (tensors[i].info == info) {
            const int id = m_nodeOfTensor[i];
            return createIndex(m_nodes[static_cast<std::size_t>(id)].row, 0, static_cast<quintptr>(id));
        }
    }
    return {};
}

QModelIndex TensorTreeModel::indexOfPath(const QString &fullName) const
{
    if (!m_checkpoint)
        return {};
    const std::string name = fullName.toStdString();
    for (const auto &tensor : m_checkpoint->tensors()) {
        if (tensor.info->name == name)
            return indexOfTensor(tensor.info);
    }
    if (m_flat)
        return {};
    int node = 0;
    std::size_t start = 0;
    while (start <= name.size()) {
        const std::size_t dot = std::min(name.find('.', start), name.size());
        const std::string_view segment = std::string_view(name).substr(start, dot - start);
        const auto &children = m_nodes[static_cast<std::size_t>(node)].children;
        const auto it = std::find_if(children.begin(), children.end(), [&](int child) {
            const Node &c = m_nodes[static_cast<std::size_t>(child)];
            return c.tensor < 0 && c.name == segment;
        });
        if (it == children.end())
            return {};
        node = *it;
        start = dot + 1;
    }
    return createIndex(m_nodes[static_cast<std::size_t>(node)].row, 0, static_cast<quintptr>(node));
}

QString TensorTreeModel::fullPath(const QModelIndex &index) const
{
    const int id = nodeOf(index);
    const Node &node = m_nodes[static_cast<std::size_t>(id)];
    if (node.tensor >= 0)
        return toQString(m_checkpoint->tensors()[static_cast<std::size_t>(node.tensor)].info->name);
    QString path;
    for (int n = id; n > 0; n = m_nodes[static_cast<std::size_t>(n)].parent)
        path.prepend(n == id ? toQString(m_nodes[static_cast<std::size_t>(n)].name)
                             : toQString(m_nodes[static_cast<std::size_t>(n)].name) + u'.');
    return path;
}

TensorTreeModel::Totals TensorTreeModel::totals(const QModelIndex &index) const
{
    return m_nodes[static_cast<std::size_t>(nodeOf(index))].totals;
}

std::vector<TensorTreeModel::DTypeTotals> TensorTreeModel::dtypeBreakdown(const QModelIndex &index) const
{
    std::vector<Totals> byDType(kDTypeCount);
    std::vector<int> stack { nodeOf(index) };
    while (!stack.empty()) {
        const Node &node = m_nodes[static_cast<std::size_t>(stack.back())];
        stack.pop_back();
        if (node.tensor >= 0)
            accumulate(
                byDType[static_cast<std::size_t>(std::countr_zero(node.totals.dtypeMask))], node.totals);
        stack.insert(stack.end(), node.children.begin(), node.children.end());
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

QModelIndex TensorTreeModel::index(int row, int column, const QModelIndex &parent) const
{
    if (row < 0 || column < 0 || column >= ColumnCount)
        return {};
    const auto &children = m_nodes[static_cast<std::size_t>(nodeOf(parent))].children;
    if (static_cast<std::size_t>(row) >= children.size())
        return {};
    return createIndex(row, column, static_cast<quintptr>(children[static_cast<std::size_t>(row)]));
}

QModelIndex TensorTreeModel::parent(const QModelIndex &child) const
{
    if (!child.isValid())
        return {};
    const int parent = m_nodes[static_cast<std::size_t>(nodeOf(child))].parent;
    if (parent <= 0)
        return {};
    return createIndex(m_nodes[static_cast<std::size_t>(parent)].row, 0, static_cast<quintptr>(parent));
}

int TensorTreeModel::rowCount(const QModelIndex &parent) const
{
    if (parent.column() > 0)
        return 0;
    return static_cast<int>(m_nodes[static_cast<std::size_t>(nodeOf(parent))].children.size());
}

int TensorTreeModel::columnCount(const QModelIndex &) const
{
    return ColumnCount;
}

bool TensorTreeModel::hasChildren(const QModelIndex &parent) const
{
    return rowCount(parent) > 0;
}

QVariant TensorTreeModel::data(const QModelIndex &index, int role) const
{
    if (!index.isValid())
        return {};
    const Node &node = m_nodes[static_cast<std::size_t>(nodeOf(index))];
    const TensorInfo *info
        = node.tensor < 0 ? nullptr : m_checkpoint->tensors()[static_cast<std::size_t>(node.tensor)].info;
    switch (role) {
    case Qt::DisplayRole:
        return displayData(node, index.column());
    case Qt::ToolTipRole:
        if (index.column() == NameColumn)
            return fullPath(index);
        if (index.column() == SizeColumn)
            return tr("%1 bytes").arg(countText(node.totals.bytes));
        return {};
    case Qt::TextAlignmentRole:
        if (index.column() == ParametersColumn || index.column() == SizeColumn)
            return QVariant::fromValue(Qt::Alignment(Qt::AlignRight | Qt::AlignVCenter));
        return {};
    case TensorIndexRole:
        return node.tensor;
    case TensorInfoRole:
        return QVariant::fromValue(info);
    case IsGroupRole:
        return node.tensor < 0;
    case FullPathRole:
        return fullPath(index);
    case SortRole:
        return sortKey(node, index.column());
    case ParametersRole:
        return static_cast<qulonglong>(node.totals.parameters);
    case BytesRole:
        return static_cast<qulonglong>(node.totals.bytes);
    default:
        return {};
    }
}

QVariant TensorTreeModel::displayData(const Node &node, int column) const
{
    const TensorInfo *info
        = node.tensor < 0 ? nullptr : m_checkpoint->tensors()[static_cast<std::size_t>(node.tensor)].info;
    switch (column) {
    case NameColumn:
        return node.name.empty() ? tr("(empty)") : toQString(node.name);
    case DTypeColumn:
        if (std::popcount(node.totals.dtypeMask) == 1)
            return toQString(dtypeName(static_cast<DType>(std::countr_zero(node.totals.dtypeMask))));
        return node.totals.dtypeMask ? tr("mixed") : QString();
    case ShapeColumn:
        return info ? shapeText(info->shape) : countNoun(node.totals.tensors, tr("tensor"), tr("tensors"));
    case ParametersColumn:
        return node.totals.parameters == UINT64_MAX ? tr("overflow") : countText(node.totals.parameters);
    case SizeColumn:
        return sizeText(node.totals.bytes);
    default:
        return {};
    }
}

QVariant TensorTreeModel::sortKey(const Node &node, int column) const
{
    switch (column) {
    case NameColumn:
        return node.row; // rows are already in natural order
    case DTypeColumn:
        return displayData(node, column);
    case ShapeColumn:
    case ParametersColumn:
        return static_cast<qulonglong>(node.totals.parameters);
    case SizeColumn:
        return static_cast<qulonglong>(node.totals.bytes);
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

Qt::ItemFlags TensorTreeModel::flags(const QModelIndex &index) const
{
    if (!index.isValid())
        return Qt::NoItemFlags;
    Qt::ItemFlags flags = Qt::ItemIsEnabled | Qt::ItemIsSelectable;
    if (m_nodes[static_cast<std::size_t>(nodeOf(index))].tensor >= 0)
        flags |= Qt::ItemNeverHasChildren;
    return flags;
}

} // namespace stb
