#include "ui/layers/layersmodel.h"

#include "core/layers/repeatdetector.h"
#include "core/text/naturalorder.h"
#include "core/text/textformat.h"
#include "ui/common/qtformat.h"

#include <QApplication>
#include <QIcon>
#include <QStyle>

#include <algorithm>
#include <map>

using namespace Qt::StringLiterals;

namespace stb {

namespace {

constexpr int kToolTipLines = 20; // a tooltip lists this many deviations, then a count

constexpr qsizetype kShownName = 200; // characters of a hostile name a tooltip line shows

std::string_view lastSegment(std::string_view path)
{
    const auto dot = path.rfind('.');
    return dot == std::string_view::npos ? path : path.substr(dot + 1);
}

// (outer index or 0, index): where a deviation or a block sits in a repeat.
using Place = std::pair<std::uint64_t, std::uint64_t>;

} // namespace

// Builds the rows in one pass over the repeats; deviations are counted onto the rows they
// concern through lookup tables filled on the way.
class LayersModel::Builder {
public:
    explicit Builder(LayersModel &model)
        : m(model)
    { }

    void build()
    {
        const auto &tensors = m.m_checkpoint->tensors();
        m.m_nodeOfTensor.assign(tensors.size(), -1);
        m.m_nodes.emplace_back();
        m.m_nodes[0].kind = Kind::Group;
        for (const Repeat &repeat : m.m_repeats)
            addRepeat(repeat);
        // Tensors outside every repeat, by name.
        std::vector<std::size_t> others;
        for (std::size_t t = 0; t < tensors.size(); ++t) {
            if (m.m_nodeOfTensor[t] < 0)
                others.push_back(t);
        }
        std::sort(others.begin(), others.end(), [&](std::size_t a, std::size_t b) {
            return naturalLess(tensors[a].info->name, tensors[b].info->name);
        });
        for (std::size_t t : others)
            addTensor(0, t, toQString(tensors[t].info->name), -1);
        countDeviations();
    }

private:
    int add(int parent, Kind kind, const Repeat *repeat, QString text)
    {
        const int id = static_cast<int>(m.m_nodes.size());
        Node node;
        node.kind = kind;
        node.parent = parent;
        node.row = static_cast<int>(m.m_nodes[static_cast<std::size_t>(parent)].children.size());
        node.repeat = repeat;
        node.text = std::move(text);
        m.m_nodes.push_back(std::move(node));
        m.m_nodes[static_cast<std::size_t>(parent)].children.push_back(id);
        return id;
    }

    void addTensor(int parent, std::size_t tensor, QString text, int role)
    {
        const int id
            = add(parent, Kind::Tensor, m.m_nodes[static_cast<std::size_t>(parent)].repeat, std::move(text));
        m.m_nodes[static_cast<std::size_t>(id)].tensor = tensor;
        m.m_nodes[static_cast<std::size_t>(id)].role = role;
        if (tensor < m.m_nodeOfTensor.size() && m.m_nodeOfTensor[tensor] < 0)
            m.m_nodeOfTensor[tensor] = id;
    }

    void addRoles(int parent, const Repeat &repeat)
    {
        for (std::size_t r = 0; r < repeat.roles.size(); ++r) {
            const int id = add(parent, Kind::Role, &repeat, toQString(repeat.roles[r].name));
            m.m_nodes[static_cast<std::size_t>(id)].role = static_cast<int>(r);
            m_roleNodes[{ &repeat, repeat.roles[r].name }] = id;
        }
    }

    // The block's tensors: its roles, then its extra tensors.
    void addBlockTensors(int block, const Repeat &repeat, std::size_t row, std::size_t column)
    {
        for (std::size_t r = 0; r < repeat.roles.size(); ++r) {
            const std::size_t tensor = repeat.tensorAt(row, column, r);
            if (tensor != kNoTensor)
                addTensor(block, tensor, toQString(repeat.roles[r].name), static_cast<int>(r));
        }
        const Place place { repeat.nested() ? repeat.outerIndices[row] : 0, repeat.indices[column] };
        for (const RepeatDeviation &d : repeat.deviations) {
            if (d.kind == DeviationKind::ExtraRole && d.tensor != kNoTensor
                && Place { d.outerIndex.value_or(0), d.index } == place)
                addTensor(block, d.tensor, toQString(d.role), -1);
        }
        m_blockNodes[{ &repeat, place }] = block;
    }

    bool present(const Repeat &repeat, std::size_t row, std::size_t column) const
    {
        for (std::size_t r = 0; r < repeat.roles.size(); ++r) {
            if (repeat.tensorAt(row, column, r) != kNoTensor)
                return true;
        }
        return false;
    }

    void addRepeat(const Repeat &repeat)
    {
        const int node = add(0, Kind::Repeat, &repeat, toQString(repeat.label()));
        addRoles(node, repeat);
        for (const Repeat &inner : repeat.repeats) {
            // "mlp.experts.{0–127} × 128 in 94 blocks": the nested repeat over every layer.
            const std::string label = inner.label();
            const int summary = add(node, Kind::Repeat, &inner,
                toQString(inner.innerPath) + toQString(std::string_view(label).substr(inner.prefix.size())));
            addRoles(summary, inner);
        }
        const std::string_view segment = lastSegment(repeat.prefix);
        for (std::size_t column = 0; column < repeat.indices.size(); ++column) {
            const std::uint64_t index = repeat.indices[column];
            const int block
                = add(node, Kind::Block, &repeat, toQString(segment) + u'.' + QString::number(index));
            m.m_nodes[static_cast<std::size_t>(block)].column = column;
            addBlockTensors(block, repeat, 0, column);
            for (const Repeat &inner : repeat.repeats) {
                const auto it = std::lower_bound(inner.outerIndices.begin(), inner.outerIndices.end(), index);
                if (it != inner.outerIndices.end() && *it == index)
                    addGroup(block, inner, static_cast<std::size_t>(it - inner.outerIndices.begin()));
            }
        }
    }

    // One layer's experts, collapsed like a repeat: "mlp.experts.{0–127} × 128".
    void addGroup(int block, const Repeat &inner, std::size_t row)
    {
        std::vector<std::size_t> columns;
        for (std::size_t column = 0; column < inner.indices.size(); ++column) {
            if (present(inner, row, column))
                columns.push_back(column);
        }
        if (columns.empty())
            return;
        QString text = toQString(inner.innerPath) + u".{"_s + QString::number(inner.indices[columns.front()]);
        if (columns.size() > 1)
            text += u'\u2013' + QString::number(inner.indices[columns.back()]);
        text += u"} \u00d7 "_s + countText(columns.size());
        const int group = add(block, Kind::Group, &inner, text);
        m.m_nodes[static_cast<std::size_t>(group)].blockRow = row;
        m_groupNodes[{ &inner, inner.outerIndices[row] }] = group;
        const std::string_view segment = lastSegment(inner.innerPath);
        for (std::size_t column : columns) {
            const int expert = add(group, Kind::Block, &inner,
                toQString(segment) + u'.' + QString::number(inner.indices[column]));
            m.m_nodes[static_cast<std::size_t>(expert)].blockRow = row;
            m.m_nodes[static_cast<std::size_t>(expert)].column = column;
            addBlockTensors(expert, inner, row, column);
        }
    }

    void countDeviations()
    {
        auto bump = [&](int node) {
            if (node > 0)
                ++m.m_nodes[static_cast<std::size_t>(node)].deviations;
        };
        auto find = [](const auto &map, const auto &key) {
            const auto it = map.find(key);
            return it == map.end() ? -1 : it->second;
        };
        for (std::size_t id = 1; id < m.m_nodes.size(); ++id) {
            Node &node = m.m_nodes[id];
            if (node.kind != Kind::Repeat)
                continue;
            // A top-level row counts its nested repeats' deviations too: a broken expert shows
            // without expanding anything.
            node.deviations = static_cast<int>(node.repeat->deviations.size());
            if (node.parent == 0) {
                for (const Repeat &inner : node.repeat->repeats)
                    node.deviations += static_cast<int>(inner.deviations.size());
            }
            for (const RepeatDeviation &d : node.repeat->deviations) {
                const Place place { d.outerIndex.value_or(0), d.index };
                bump(find(m_blockNodes, std::pair { node.repeat, place }));
                if (d.kind != DeviationKind::ExtraRole)
                    bump(find(
                        m_roleNodes, std::pair<const Repeat *, std::string_view> { node.repeat, d.role }));
                if (d.outerIndex)
                    bump(find(m_groupNodes, std::pair { node.repeat, *d.outerIndex }));
                if (d.tensor < m.m_nodeOfTensor.size())
                    bump(m.m_nodeOfTensor[d.tensor]);
            }
        }
    }

    LayersModel &m;
    std::map<std::pair<const Repeat *, std::string_view>, int> m_roleNodes;
    std::map<std::pair<const Repeat *, Place>, int> m_blockNodes;
    std::map<std::pair<const Repeat *, std::uint64_t>, int> m_groupNodes;
};

LayersModel::LayersModel(QObject *parent)
    : QAbstractItemModel(parent)
{ }

LayersModel::~LayersModel() = default;

void LayersModel::setCheckpoint(std::shared_ptr<const Checkpoint> checkpoint)
{
    beginResetModel();
    m_checkpoint = std::move(checkpoint);
    m_nodes.clear();
    m_nodeOfTensor.clear();
    m_repeats = m_checkpoint ? detectRepeats(*m_checkpoint) : std::vector<Repeat> {};
    if (m_checkpoint)
        Builder(*this).build();
    endResetModel();
}

int LayersModel::nodeOf(const QModelIndex &index) const
{
    return index.isValid() ? static_cast<int>(index.internalId()) : 0;
}

LayersModel::Kind LayersModel::kind(const QModelIndex &index) const
{
    return index.isValid() ? m_nodes[static_cast<std::size_t>(nodeOf(index))].kind : Kind::Group;
}

const Repeat *LayersModel::repeatAt(const QModelIndex &index) const
{
    return index.isValid() ? m_nodes[static_cast<std::size_t>(nodeOf(index))].repeat : nullptr;
}

int LayersModel::roleAt(const QModelIndex &index) const
{
    return index.isValid() ? m_nodes[static_cast<std::size_t>(nodeOf(index))].role : -1;
}

std::size_t LayersModel::tensorAt(const QModelIndex &index) const
{
    return index.isValid() ? m_nodes[static_cast<std::size_t>(nodeOf(index))].tensor : kNoTensor;
}

QModelIndex LayersModel::indexOfTensor(std::size_t tensor) const
{
    if (tensor >= m_nodeOfTensor.size() || m_nodeOfTensor[tensor] < 0)
        return {};
    const int id = m_nodeOfTensor[tensor];
    return createIndex(m_nodes[static_cast<std::size_t>(id)].row, 0, static_cast<quintptr>(id));
}

QModelIndex LayersModel::indexOfRepeat(const Repeat *repeat) const
{
    for (std::size_t id = 1; id < m_nodes.size(); ++id) {
        if (m_nodes[id].kind == Kind::Repeat && m_nodes[id].repeat == repeat)
            return createIndex(m_nodes[id].row, 0, static_cast<quintptr>(id));
    }
    return {};
}

QModelIndex LayersModel::index(int row, int column, const QModelIndex &parent) const
{
    if (row < 0 || column < 0 || column >= ColumnCount || m_nodes.empty())
        return {};
    const Node &p = m_nodes[static_cast<std::size_t>(nodeOf(parent))];
    if (row >= static_cast<int>(p.children.size()))
        return {};
    return createIndex(row, column, static_cast<quintptr>(p.children[static_cast<std::size_t>(row)]));
}

QModelIndex LayersModel::parent(const QModelIndex &child) const
{
    if (!child.isValid())
        return {};
    const int parent = m_nodes[static_cast<std::size_t>(nodeOf(child))].parent;
    if (parent <= 0)
        return {};
    return createIndex(m_nodes[static_cast<std::size_t>(parent)].row, 0, static_cast<quintptr>(parent));
}

int LayersModel::rowCount(const QModelIndex &parent) const
{
    if (m_nodes.empty() || parent.column() > 0)
        return 0;
    return static_cast<int>(m_nodes[static_cast<std::size_t>(nodeOf(parent))].children.size());
}

int LayersModel::columnCount(const QModelIndex &) const
{
    return ColumnCount;
}

QVariant LayersModel::data(const QModelIndex &index, int role) const
{
    if (!index.isValid())
        return {};
    const Node &node = m_nodes[static_cast<std::size_t>(nodeOf(index))];
    const TensorInfo *info = node.tensor != kNoTensor ? m_checkpoint->tensors()[node.tensor].info : nullptr;
    const RepeatRole *repeatRole
        = node.kind == Kind::Role ? &node.repeat->roles[static_cast<std::size_t>(node.role)] : nullptr;
    switch (role) {
    case Qt::DisplayRole:
        switch (index.column()) {
        case NameColumn:
            return node.text;
        case DTypeColumn:
            return info      ? toQString(dtypeName(info->dtype))
                : repeatRole ? toQString(dtypeName(repeatRole->dtype))
                             : QVariant();
        case ShapeColumn:
            return info      ? toQString(formatShape(info->shape))
                : repeatRole ? toQString(formatShape(repeatRole->shape))
                             : QVariant();
        case BlocksColumn:
            if (node.kind == Kind::Repeat)
                return countText(node.repeat->blockCount());
            if (node.kind == Kind::Role)
                return countText(repeatRole->blocks);
            if (node.kind == Kind::Group)
                return countText(node.children.size());
            return {};
        case DeviationsColumn:
            return node.deviations ? QVariant(countText(static_cast<std::uint64_t>(node.deviations)))
                                   : QVariant();
        }
        return {};
    case Qt::DecorationRole:
        if (index.column() == NameColumn && node.deviations)
            return QApplication::style()->standardIcon(QStyle::SP_MessageBoxWarning);
        return {};
    case Qt::ToolTipRole:
        return node.deviations ? toolTip(node) : node.text;
    case Qt::TextAlignmentRole:
        if (index.column() >= BlocksColumn)
            return QVariant(Qt::AlignRight | Qt::AlignVCenter);
        return {};
    case TensorIndexRole:
        return node.tensor == kNoTensor ? -1 : static_cast<int>(node.tensor);
    case KindRole:
        return static_cast<int>(node.kind);
    default:
        return {};
    }
}

// The deviations that concern this row, bounded: a broken checkpoint can have thousands.
QString LayersModel::toolTip(const Node &node) const
{
    QStringList lines;
    int matching = 0;
    if (node.kind == Kind::Repeat && node.parent == 0) {
        for (const RepeatDeviation &d : node.repeat->deviations)
            addLine(lines, matching, *node.repeat, d);
        for (const Repeat &inner : node.repeat->repeats) {
            for (const RepeatDeviation &d : inner.deviations)
                addLine(lines, matching, inner, d);
        }
    } else {
        for (const RepeatDeviation &d : node.repeat->deviations) {
            if (concerns(node, d))
                addLine(lines, matching, *node.repeat, d);
        }
    }
    if (matching > kToolTipLines)
        lines << tr("\u2026 and %1 more").arg(matching - kToolTipLines);
    return lines.join(u'\n');
}

bool LayersModel::concerns(const Node &node, const RepeatDeviation &d) const
{
    const Repeat &repeat = *node.repeat;
    switch (node.kind) {
    case Kind::Repeat:
        return true;
    case Kind::Role:
        return d.kind != DeviationKind::ExtraRole
            && d.role == repeat.roles[static_cast<std::size_t>(node.role)].name;
    case Kind::Block:
        return d.index == repeat.indices[node.column]
            && (!repeat.nested() || d.outerIndex == repeat.outerIndices[node.blockRow]);
    case Kind::Group:
        return d.outerIndex == repeat.outerIndices[node.blockRow];
    case Kind::Tensor:
        return d.tensor == node.tensor;
    }
    return false;
}

void LayersModel::addLine(
    QStringList &lines, int &matching, const Repeat &repeat, const RepeatDeviation &d) const
{
    if (++matching > kToolTipLines)
        return;
    const QString where
        = (d.outerIndex ? QString::number(*d.outerIndex) + u'/' : QString()) + QString::number(d.index);
    QString line = tr("%1 %2: %3 (%4)")
                       .arg(where, toQString(d.role).left(kShownName), toQString(deviationKindName(d.kind)),
                           toQString(d.detail));
    if (repeat.nested())
        line = toQString(repeat.innerPath).left(kShownName) + u' ' + line;
    lines << line;
}

QVariant LayersModel::headerData(int section, Qt::Orientation orientation, int role) const
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
    case BlocksColumn:
        return tr("Blocks");
    case DeviationsColumn:
        return tr("Deviations");
    }
    return {};
}

} // namespace stb
