#include "ui/audit/auditmodel.h"

#include "core/audit/auditflags.h"
#include "core/audit/auditreport.h"
#include "ui/common/qtformat.h"
#include "ui/common/statuscolors.h"

#include <QBrush>
#include <QColor>
#include <QFont>
#include <QLocale>

#include <cmath>
#include <optional>
#include <limits>

using namespace Qt::StringLiterals;

namespace stb {

namespace {

// NaN has no place in an order: statistics of tensors without finite values sort first.
double sortable(double value)
{
    return std::isnan(value) ? -std::numeric_limits<double>::infinity() : value;
}

QString statText(double value)
{
    return std::isnan(value) ? u"—"_s : QLocale().toString(value, 'g', 6);
}

// The most severe flag that counts, or nullopt when every flag is expected (or there is none).
std::optional<AuditSeverity> worstSeverity(const AuditEntry &entry)
{
    std::optional<AuditSeverity> worst;
    for (const auto &flag : entry.flags) {
        const AuditSeverity severity = auditSeverity(flag.kind);
        if (flag.expected == AuditExpectation::None && (!worst || severity < *worst))
            worst = severity;
    }
    return worst;
}

// Red for values a model cannot use, amber for what deserves a look, blue for notes, grey for
// what is expected: statuscolors' tones, so a dark palette reads too.
Tone severityTone(std::optional<AuditSeverity> severity)
{
    if (!severity)
        return Tone::Muted;
    switch (*severity) {
    case AuditSeverity::Error:
        return Tone::Bad;
    case AuditSeverity::Warning:
        return Tone::Warning;
    case AuditSeverity::Note:
        return Tone::Information;
    }
    return Tone::Muted;
}

} // namespace

AuditModel::AuditModel(QObject *parent)
    : QAbstractTableModel(parent)
{ }

void AuditModel::setResult(std::shared_ptr<const Checkpoint> checkpoint, AuditResult result)
{
    beginResetModel();
    m_checkpoint = std::move(checkpoint);
    m_result = std::move(result);
    endResetModel();
}

void AuditModel::clear()
{
    beginResetModel();
    m_checkpoint.reset();
    m_result = {};
    endResetModel();
}

int AuditModel::rowOf(const QString &name) const
{
    if (!m_checkpoint)
        return -1;
    const std::string key = name.toStdString();
    const auto &tensors = m_checkpoint->tensors();
    // Entries are in name order (core sorts them by byte value): a binary search finds the row.
    const auto it = std::lower_bound(m_result.entries.begin(), m_result.entries.end(), key,
        [&](const AuditEntry &e, const std::string &n) { return tensors[e.tensor].info->name < n; });
    if (it == m_result.entries.end() || tensors[it->tensor].info->name != key)
        return -1;
    return static_cast<int>(it - m_result.entries.begin());
}

const AuditEntry *AuditModel::entryAt(int row) const
{
    return row >= 0 && row < rowCount() ? &m_result.entries[static_cast<std::size_t>(row)] : nullptr;
}

int AuditModel::rowCount(const QModelIndex &parent) const
{
    return parent.isValid() ? 0 : static_cast<int>(m_result.entries.size());
}

int AuditModel::columnCount(const QModelIndex &parent) const
{
    return parent.isValid() ? 0 : ColumnCount;
}

QVariant AuditModel::data(const QModelIndex &index, int role) const
{
    const AuditEntry *entry = index.isValid() ? entryAt(index.row()) : nullptr;
    if (!entry)
        return {};
    switch (role) {
    case Qt::DisplayRole:
        return display(*entry, index.column());
    case SortRole:
        return sortKey(*entry, index.column());
    case FlaggedRole:
        return entry->hasFindings();
    case NameRole:
        return toQString(m_checkpoint->tensors()[entry->tensor].info->name);
    case Qt::ForegroundRole:
        if (index.column() == FlagsColumn && !entry->flags.empty())
            return QBrush(toneText(severityTone(worstSeverity(*entry))));
        break;
    case Qt::FontRole:
        if (index.column() == FlagsColumn && !entry->flags.empty()) {
            // Findings stand out; expected flags are there for the record.
            QFont font;
            font.setBold(entry->hasFindings());
            font.setItalic(!entry->hasFindings());
            return font;
        }
        break;
    case SeverityRole: {
        const auto severity = worstSeverity(*entry);
        return severity ? QVariant(static_cast<int>(*severity)) : QVariant();
    }
    case Qt::TextAlignmentRole:
        if (index.column() >= MinColumn && index.column() <= ZerosColumn)
            return QVariant::fromValue(Qt::AlignRight | Qt::AlignVCenter);
        break;
    case Qt::ToolTipRole: {
        const TensorStats &s = entry->analysis.stats;
        if (index.column() == InfColumn)
            return tr("+Inf: %1, −Inf: %2").arg(countText(s.posInf), countText(s.negInf));
        if (index.column() >= MinColumn && index.column() <= StdColumn) {
            const double values[] = { s.min, s.max, s.mean, s.std };
            return toQString(formatValue(values[index.column() - MinColumn]));
        }
        if (index.column() == FlagsColumn)
            return flagsToolTip(*entry);
        if (index.column() == NameColumn)
            return display(*entry, index.column());
        break;
    }
    default:
        break;
    }
    return {};
}

QVariant AuditModel::display(const AuditEntry &entry, int column) const
{
    const TensorInfo &info = *m_checkpoint->tensors()[entry.tensor].info;
    const TensorStats &s = entry.analysis.stats;
    switch (column) {
    case NameColumn:
        return shownName(info.name, 1000);
    case DTypeColumn:
        return toQString(dtypeName(info.dtype));
    case ShapeColumn:
        return shapeText(info.shape);
    case MinColumn:
        return entry.readable ? statText(s.min) : QString();
    case MaxColumn:
        return entry.readable ? statText(s.max) : QString();
    case MeanColumn:
        return entry.readable ? statText(s.mean) : QString();
    case StdColumn:
        return entry.readable ? statText(s.std) : QString();
    case NaNColumn:
        return entry.readable ? countText(s.nan) : QString();
    case InfColumn:
        return entry.readable ? countText(s.posInf + s.negInf) : QString();
    case ZerosColumn:
        return entry.readable ? countText(s.zeros) : QString();
    case FlagsColumn:
        return toQString(auditFlagsText(*m_checkpoint, m_result, entry));
    default:
        return {};
    }
}

QVariant AuditModel::sortKey(const AuditEntry &entry, int column) const
{
    const TensorInfo &info = *m_checkpoint->tensors()[entry.tensor].info;
    const TensorStats &s = entry.analysis.stats;
    switch (column) {
    case ShapeColumn:
        return static_cast<qulonglong>(info.elementCount().value_or(0));
    case MinColumn:
        return sortable(s.min);
    case MaxColumn:
        return sortable(s.max);
    case MeanColumn:
        return sortable(s.mean);
    case StdColumn:
        return sortable(s.std);
    case NaNColumn:
        return static_cast<qulonglong>(s.nan);
    case InfColumn:
        return static_cast<qulonglong>(s.posInf + s.negInf);
    case ZerosColumn:
        return static_cast<qulonglong>(s.zeros);
    case FlagsColumn: {
        // Errors outrank warnings, warnings notes, put together; expected flags count nothing.
        int weight = 0;
        for (const auto &flag : entry.flags) {
            if (flag.expected == AuditExpectation::None) {
                const AuditSeverity severity = auditSeverity(flag.kind);
                weight += severity == AuditSeverity::Error ? 10000 : severity == AuditSeverity::Warning ? 100 : 1;
            }
        }
        return weight;
    }
    default:
        return display(entry, column);
    }
}

// One line per flag: "error: NaN values", "note: duplicate of x (expected: tied embeddings)".
QString AuditModel::flagsToolTip(const AuditEntry &entry) const
{
    QStringList lines;
    for (const auto &flag : entry.flags) {
        QString line = u"%1: %2"_s.arg(toQString(auditSeverityName(auditSeverity(flag.kind))),
            toQString(auditFlagLabel(flag)));
        if (flag.kind == AuditFlag::Kind::Duplicate && entry.duplicateOf >= 0)
            line += tr(" of %1").arg(shownName(
                m_checkpoint->tensors()[m_result.entries[static_cast<std::size_t>(entry.duplicateOf)].tensor].info->name,
                200));
        if (flag.expected != AuditExpectation::None)
            line += tr(" (expected: %1; not counted)").arg(toQString(auditExpectationText(flag.expected)));
        lines << line;
    }
    return lines.join(u'\n');
}

void AuditModel::setIgnores(const AuditIgnores &ignores)
{
    if (!m_checkpoint)
        return;
    applyIgnores(*m_checkpoint, m_result, ignores);
    if (rowCount() > 0)
        emit dataChanged(index(0, 0), index(rowCount() - 1, ColumnCount - 1));
}

QVariant AuditModel::headerData(int section, Qt::Orientation orientation, int role) const
{
    if (orientation != Qt::Horizontal || role != Qt::DisplayRole)
        return {};
    static const char *const titles[ColumnCount]
        = { "Tensor", "DType", "Shape", "Min", "Max", "Mean", "Std", "NaN", "Inf", "Zeros", "Flags" };
    return section >= 0 && section < ColumnCount ? tr(titles[section]) : QVariant();
}

} // namespace stb
