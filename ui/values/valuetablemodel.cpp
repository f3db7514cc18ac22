#include "ui/values/valuetablemodel.h"

#include "core/quant/dequantvalues.h"
#include "core/values/colourscale.h"
#include "core/values/valuereader.h"
#include "ui/common/qtformat.h"
#include "ui/common/statuscolors.h"

#include <QBrush>
#include <QColor>
#include <QFontDatabase>

#include <charconv>
#include <climits>
#include <cmath>

using namespace Qt::StringLiterals;

namespace stb {

namespace {

int clampToInt(std::uint64_t n)
{
    return static_cast<int>(std::min<std::uint64_t>(n, INT_MAX));
}

QColor specialTint(Rgb rgb)
{
    return QColor(rgb.r, rgb.g, rgb.b, 70);
}

} // namespace

ValueTableModel::ValueTableModel(QObject *parent)
    : QAbstractTableModel(parent)
    , m_tiles(256) // 256 tiles of 2,048 doubles: 4 MiB, several screens of cells
{ }

void ValueTableModel::setPlane(
    std::shared_ptr<const SafetensorsFile> file, const TensorInfo *info, const StridedView &view)
{
    beginResetModel();
    m_file = std::move(file);
    m_checkpoint.reset();
    m_dequantizer.reset();
    m_info = m_file ? info : nullptr;
    m_shape = m_info ? m_info->shape : std::vector<std::uint64_t> {};
    m_textType = m_info ? m_info->dtype : DType::F32;
    if (m_info)
        m_bytes = m_file->tensorBytes(*m_info);
    setView(m_info, view);
    endResetModel();
}

void ValueTableModel::setDequantizedPlane(std::shared_ptr<const Checkpoint> checkpoint,
    std::shared_ptr<const Dequantizer> dequantizer, const TensorInfo *codes, std::vector<std::uint64_t> shape,
    const StridedView &view)
{
    beginResetModel();
    m_file.reset();
    m_bytes = {};
    m_checkpoint = std::move(checkpoint);
    m_dequantizer = std::move(dequantizer);
    m_info = m_dequantizer ? codes : nullptr;
    m_shape = std::move(shape);
    m_textType = DType::F32; // dequantized values are floats
    setView(m_info, view);
    endResetModel();
}

void ValueTableModel::setView(const TensorInfo *info, const StridedView &view)
{
    m_tiles.clear();
    m_view = view;
    m_rows = m_cols = 0;
    if (info) {
        if (const auto matrix = asMatrix(view)) {
            // A single axis reads better down a column than along a row.
            const bool column = view.axes.size() == 1;
            m_rows = column ? matrix->cols : matrix->rows;
            m_cols = column ? 1 : matrix->cols;
            m_rowStride = column ? matrix->colStride : matrix->rowStride;
            m_colStride = column ? 0 : matrix->colStride;
        }
    }
}

void ValueTableModel::clear()
{
    setPlane(nullptr, nullptr, {});
}

void ValueTableModel::setPrecision(int digits)
{
    if (digits == m_precision)
        return;
    m_precision = digits;
    if (rowCount() > 0 && columnCount() > 0)
        emit dataChanged(index(0, 0), index(rowCount() - 1, columnCount() - 1), { Qt::DisplayRole });
}

std::uint64_t ValueTableModel::flatIndex(int row, int column) const
{
    return m_view.base + std::uint64_t(row) * m_rowStride + std::uint64_t(column) * m_colStride;
}

QModelIndex ValueTableModel::indexOfElement(std::uint64_t flat) const
{
    if (!m_info || m_view.axes.empty())
        return m_info && flat == m_view.base ? index(0, 0) : QModelIndex();
    // The element's coordinates along the shown axes; it is in this plane when they lead back to it.
    const std::vector<std::uint64_t> nd = unravelIndex(flat, m_shape);
    const std::uint64_t row = nd[m_view.axes[0].sourceAxis];
    const std::uint64_t column = m_view.axes.size() > 1 ? nd[m_view.axes[1].sourceAxis] : 0;
    if (row >= m_rows || row > INT_MAX || column > INT_MAX || (m_cols && column >= m_cols))
        return {};
    if (flatIndex(static_cast<int>(row), static_cast<int>(column)) != flat)
        return {};
    return index(static_cast<int>(row), static_cast<int>(column));
}

int ValueTableModel::rowCount(const QModelIndex &parent) const
{
    return parent.isValid() ? 0 : clampToInt(m_rows);
}

int ValueTableModel::columnCount(const QModelIndex &parent) const
{
    return parent.isValid() || m_rows == 0 ? 0 : clampToInt(m_cols);
}

std::optional<double> ValueTableModel::valueAt(int row, int column) const
{
    if (m_dequantizer) {
        // The tile holding the cell, decoded whole on first use: rows of a weight are decoded in
        // runs, and a screen of cells costs a handful of tiles.
        const std::uint64_t tileRow = std::uint64_t(row) / kTileRows,
                            tileColumn = std::uint64_t(column) / kTileColumns;
        const quint64 key = (tileRow << 32) | tileColumn;
        Tile *tile = m_tiles.object(key);
        const std::uint64_t r0 = tileRow * kTileRows, c0 = tileColumn * kTileColumns;
        const std::uint64_t width = std::min<std::uint64_t>(kTileColumns, m_cols - c0);
        if (!tile) {
            tile = new Tile;
            const std::uint64_t height = std::min<std::uint64_t>(kTileRows, m_rows - r0);
            tile->values.resize(height * width);
            // decodeRect reads the plane as asMatrix does; a single axis is shown down a column.
            tile->readable = m_view.axes.size() == 1
                ? decodeRect(*m_dequantizer, m_view, 0, 1, r0, height, tile->values.data())
                : decodeRect(*m_dequantizer, m_view, r0, height, c0, width, tile->values.data());
            m_tiles.insert(key, tile);
        }
        if (!tile->readable)
            return std::nullopt;
        return tile->values[(std::uint64_t(row) - r0) * width + (std::uint64_t(column) - c0)];
    }
    double value = 0;
    if (!readStrided(m_info->dtype, m_bytes, flatIndex(row, column), 1, 1, &value))
        return std::nullopt;
    return value;
}

QString ValueTableModel::valueText(DType dtype, double value, int digits)
{
    if (std::isnan(value))
        return u"nan"_s;
    if (std::isinf(value))
        return value > 0 ? u"inf"_s : u"-inf"_s;
    const DTypeKind kind = dtypeInfo(dtype).kind;
    if (kind == DTypeKind::Bool)
        return value != 0 ? u"true"_s : u"false"_s;
    char buffer[64];
    std::to_chars_result result;
    if (kind == DTypeKind::Signed || kind == DTypeKind::Unsigned)
        result = std::to_chars(buffer, buffer + sizeof buffer, value, std::chars_format::fixed, 0);
    else if (digits <= 0 && dtype != DType::F64)
        // Every narrower float is exactly a float: its shortest text as a float reads back to it
        // (as a double it would print 17 digits of binary noise).
        result = std::to_chars(buffer, buffer + sizeof buffer, static_cast<float>(value));
    else if (digits <= 0)
        result = std::to_chars(buffer, buffer + sizeof buffer, value); // shortest round trip
    else
        result = std::to_chars(buffer, buffer + sizeof buffer, value, std::chars_format::general, digits);
    return QString::fromLatin1(buffer, result.ptr - buffer);
}

QVariant ValueTableModel::data(const QModelIndex &index, int role) const
{
    if (!m_info || !checkIndex(index, CheckIndexOption::IndexIsValid))
        return {};
    switch (role) {
    case Qt::DisplayRole:
    case Qt::ToolTipRole:
    case ValueRole:
    case KindRole:
    case Qt::ForegroundRole:
    case Qt::BackgroundRole:
        break;
    case FlatIndexRole:
        return qulonglong(flatIndex(index.row(), index.column()));
    case Qt::TextAlignmentRole:
        return QVariant::fromValue(Qt::AlignRight | Qt::AlignVCenter);
    default:
        return {};
    }
    const auto value = valueAt(index.row(), index.column());
    ValueKind kind = Unreadable;
    if (value)
        kind = std::isnan(*value) ? NaN
            : std::isinf(*value)  ? (*value > 0 ? PosInf : NegInf)
            : *value == 0         ? Zero
                                  : Finite;
    switch (role) {
    case Qt::DisplayRole:
        return value ? valueText(m_textType, *value, m_precision) : tr("unreadable");
    case ValueRole:
        return value ? QVariant(*value) : QVariant();
    case KindRole:
        return kind;
    case Qt::ToolTipRole: {
        const std::uint64_t flat = flatIndex(index.row(), index.column());
        return tr("element %1 %2: %3")
            .arg(countText(flat), shapeText(unravelIndex(flat, m_shape)),
                value ? valueText(m_textType, *value, 0) : tr("unreadable (the file changed on disk)"));
    }
    case Qt::ForegroundRole:
        // Zeros recede; everything else keeps the palette's text colour, readable on the tints below.
        return kind == Zero ? QVariant(QBrush(toneText(Tone::Muted))) : QVariant();
    case Qt::BackgroundRole:
        // NaN and ±Inf wear the heatmap's colours for them (translucent, so a light and a dark
        // palette both keep the text readable): the same meaning in both panes.
        switch (kind) {
        case NaN:
            return QBrush(specialTint(kNaNColour));
        case PosInf:
            return QBrush(specialTint(kPosInfColour));
        case NegInf:
            return QBrush(specialTint(kNegInfColour));
        case Unreadable:
            return QBrush(toneTint(Tone::Bad));
        default:
            return {};
        }
    default:
        return {};
    }
}

QVariant ValueTableModel::headerData(int section, Qt::Orientation orientation, int role) const
{
    if (role == Qt::DisplayRole)
        return QString::number(section); // indices along the axis
    if (role == Qt::ToolTipRole && m_info && section >= 0) {
        const bool rows = orientation == Qt::Vertical;
        const auto &axes = m_view.axes;
        const std::size_t k = axes.size() == 1 ? 0 : rows ? 0 : 1;
        if (k < axes.size())
            return tr("index %1 along axis %2").arg(section).arg(axes[k].sourceAxis);
    }
    return QAbstractTableModel::headerData(section, orientation, role);
}

} // namespace stb
