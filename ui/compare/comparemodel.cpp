#include "ui/compare/comparemodel.h"

#include "core/compare/comparereport.h"

#include "ui/common/qtformat.h"
#include "ui/common/statuscolors.h"
#include "ui/document/tensortreemodel.h"

#include <QFont>
#include <QPalette>

using namespace Qt::StringLiterals;

namespace stb {

namespace {

// The order in which counts are listed: the differences a reviewer looks for first, after what
// could not be compared at all (comparisonSummaryText's order).
constexpr PairStatus kListOrder[] = { PairStatus::Unreadable, PairStatus::Changed, PairStatus::DTypeChanged,
    PairStatus::ShapeChanged, PairStatus::OnlyInA, PairStatus::OnlyInB, PairStatus::Identical };

const CompareTree::Counts kNoCounts {};

} // namespace

CompareModel::CompareModel(Side side, QObject *parent)
    : NameTreeModel(parent)
    , m_side(side)
{ }

void CompareModel::setResult(std::shared_ptr<const CompareResult> result)
{
    beginResetModel();
    m_result = std::move(result);
    endResetModel();
}

QColor CompareModel::statusColor(PairStatus status, bool withinTolerance)
{
    // Tints under the palette's text colour: it stays readable, and the selection still shows.
    switch (status) {
    case PairStatus::Identical:
        return {};
    case PairStatus::Changed:
        return toneTint(withinTolerance ? Tone::WithinTolerance : Tone::Changed);
    case PairStatus::DTypeChanged:
        return toneTint(Tone::DTypeChanged);
    case PairStatus::ShapeChanged:
        return toneTint(Tone::ShapeChanged);
    case PairStatus::OnlyInA:
        return toneTint(Tone::Removed); // removed in B, as a diff shows a deletion
    case PairStatus::OnlyInB:
        return toneTint(Tone::Added); // added in B
    case PairStatus::Unreadable:
        return toneTint(Tone::Muted); // grey, no values: the error tint was the pink of "only in A"
    }
    return {};
}

QString CompareModel::swatchHtml(PairStatus status, bool withinTolerance)
{
    const QPalette palette;
    const QColor color = statusColor(status, withinTolerance);
    return u"<span style='background:%1; border:1px solid %2'>&nbsp;&nbsp;&nbsp;&nbsp;</span>"_s.arg(
        (color.isValid() ? color : palette.color(QPalette::Base)).name(),
        palette.color(QPalette::Mid).name());
}

QString CompareModel::statusLabel(PairStatus status)
{
    switch (status) {
    case PairStatus::Identical:
        return tr("identical");
    case PairStatus::Changed:
        return tr("changed");
    case PairStatus::DTypeChanged:
        return tr("dtype changed");
    case PairStatus::ShapeChanged:
        return tr("shape changed");
    case PairStatus::OnlyInA:
        return tr("only in A");
    case PairStatus::OnlyInB:
        return tr("only in B");
    case PairStatus::Unreadable:
        return tr("unreadable");
    }
    return {};
}

QString CompareModel::countsText(const CompareTree::Counts &counts, bool withIdentical)
{
    // Changes within tolerance do not make a difference, but they are not identical either.
    if (!CompareTree::differing(counts) && !counts[CompareTree::kWithinTolerance])
        return tr("all identical");
    QStringList parts;
    for (PairStatus status : kListOrder) {
        if (status == PairStatus::Identical && !withIdentical)
            continue;
        if (const std::size_t n = counts[static_cast<std::size_t>(status)])
            parts << u"%1 %2"_s.arg(countText(n), statusLabel(status));
        if (status == PairStatus::Changed && counts[CompareTree::kWithinTolerance])
            parts << tr("%1 within tolerance").arg(countText(counts[CompareTree::kWithinTolerance]));
    }
    return parts.join(u" · "_s);
}

QStringList CompareModel::statusTexts(const CompareTree::Counts &counts)
{
    const QString full = countsText(counts, false);
    const std::size_t differing = CompareTree::differing(counts);
    const std::size_t tolerated = counts[CompareTree::kWithinTolerance];
    if (!differing && !tolerated)
        return { full };
    QStringList parts;
    for (PairStatus status : kListOrder) {
        const std::size_t n = counts[static_cast<std::size_t>(status)];
        if (status != PairStatus::Identical && n)
            parts << u"%1 %2"_s.arg(countText(n), shortStatusLabel(status));
        if (status == PairStatus::Changed && tolerated)
            parts << tr("%1 ≈ tol.").arg(countText(tolerated));
    }
    const QString total = differing ? tr("%1 differ").arg(countText(differing))
                                    : tr("%1 ≈ tol.").arg(countText(tolerated));
    return { full, parts.join(u" · "_s), total };
}

QString CompareModel::shortStatusLabel(PairStatus status)
{
    switch (status) {
    case PairStatus::DTypeChanged:
        return tr("dtype");
    case PairStatus::ShapeChanged:
        return tr("shape");
    case PairStatus::OnlyInA:
        return tr("A only");
    case PairStatus::OnlyInB:
        return tr("B only");
    default:
        return statusLabel(status);
    }
}

const NameTree *CompareModel::shownTree() const
{
    return m_result ? &m_result->tree.names : nullptr;
}

const CompareTree::Counts &CompareModel::counts(const QModelIndex &index) const
{
    return m_result ? m_result->tree.countsOf(nodeOf(index)) : kNoCounts;
}

const TensorPair *CompareModel::pairAt(const QModelIndex &index) const
{
    if (!m_result || !index.isValid() || index.model() != this)
        return nullptr;
    const int pair = node(index).leaf;
    return pair < 0 ? nullptr : &m_result->comparison.pairs[static_cast<std::size_t>(pair)];
}

const Checkpoint::Tensor *CompareModel::sideOf(const TensorPair &pair) const
{
    return m_side == Side::A ? pair.a : pair.b;
}

QModelIndex CompareModel::indexOfPath(const QString &fullName) const
{
    return m_result ? indexOfNode(m_result->tree.find(fullName.toStdString())) : QModelIndex();
}

QString CompareModel::fullPath(const QModelIndex &index) const
{
    return m_result && index.isValid() ? toQString(m_result->tree.path(nodeOf(index))) : QString();
}

int CompareModel::columnCount(const QModelIndex &) const
{
    return ColumnCount;
}

QVariant CompareModel::data(const QModelIndex &index, int role) const
{
    if (!index.isValid())
        return {};
    const NameTree::Node &n = node(index);
    const TensorPair *pair = pairAt(index);
    const bool present = !pair || sideOf(*pair);
    switch (role) {
    case Qt::DisplayRole:
        return displayData(index);
    case StatusTextsRole:
        return index.column() == StatusColumn && !pair ? statusTexts(counts(index)) : QVariant();
    case Qt::ToolTipRole:
        if (!pair)
            return u"%1\n%2"_s.arg(fullPath(index), countsText(counts(index)));
        if (!pair->readable) // which side, and why
            return u"%1\n%2 %3"_s.arg(fullPath(index), statusLabel(pair->status),
                toQString(unreadableSidesText(*m_result->a, *m_result->b, *pair)));
        return u"%1\n%2"_s.arg(fullPath(index),
            m_result->withinTolerance(*pair) ? tr("changed, within tolerance") : statusLabel(pair->status));
    case Qt::BackgroundRole:
        if (pair && pair->status != PairStatus::Identical)
            return statusColor(pair->status, m_result->withinTolerance(*pair));
        return {};
    case Qt::ForegroundRole:
        if (!present)
            return QPalette().color(QPalette::Disabled, QPalette::Text);
        if (!pair && index.column() == StatusColumn && CompareTree::differing(counts(index)))
            return toneText(Tone::Warning);
        return {};
    case Qt::FontRole:
        if (!present) {
            QFont font;
            font.setItalic(true);
            return font;
        }
        return {};
    case TensorTreeModel::IsGroupRole:
        return !pair;
    case TensorTreeModel::FullPathRole:
        return fullPath(index);
    case TensorTreeModel::SortRole:
        return n.row;
    case StatusRole:
        return pair ? static_cast<int>(pair->status) : -1;
    case PairRole:
        return n.leaf;
    case PresentRole:
        return present;
    case DifferingRole:
        if (pair)
            return pair->status != PairStatus::Identical && !m_result->withinTolerance(*pair);
        return CompareTree::differing(counts(index)) > 0;
    default:
        return {};
    }
}

QVariant CompareModel::displayData(const QModelIndex &index) const
{
    const NameTree::Node &n = node(index);
    const int column = index.column();
    const TensorPair *pair = pairAt(index);
    const Checkpoint::Tensor *tensor = pair ? sideOf(*pair) : nullptr;
    switch (column) {
    case NameColumn:
        return n.name.empty() ? tr("(empty)") : shownName(n.name, 200);
    case DTypeColumn:
        return tensor ? toQString(dtypeName(tensor->info->dtype)) : QString();
    case ShapeColumn:
        if (!pair) {
            std::size_t total = 0;
            for (std::size_t c : counts(index))
                total += c;
            return countNoun(total, tr("tensor"), tr("tensors"));
        }
        return tensor ? shapeText(tensor->info->shape) : QString();
    case StatusColumn:
        if (!pair)
            return countsText(counts(index), false);
        // A name its index lists in a missing shard is unreadable there, not absent.
        if (!tensor && pair->status != PairStatus::Unreadable)
            return m_side == Side::A ? tr("only in B") : tr("only in A");
        return m_result->withinTolerance(*pair) ? tr("within tolerance") : statusLabel(pair->status);
    default:
        return {};
    }
}

QVariant CompareModel::headerData(int section, Qt::Orientation orientation, int role) const
{
    if (orientation != Qt::Horizontal || role != Qt::DisplayRole)
        return {};
    switch (section) {
    case NameColumn:
        return m_side == Side::A ? tr("A: name") : tr("B: name");
    case DTypeColumn:
        return tr("DType");
    case ShapeColumn:
        return tr("Shape");
    case StatusColumn:
        return tr("Status");
    default:
        return {};
    }
}

} // namespace stb
