#pragma once

#include "core/io/safetensorsfile.h"
#include "core/quant/dequantizer.h"
#include "core/values/stridedview.h"

#include <QAbstractTableModel>
#include <QCache>

#include <memory>
#include <vector>

namespace stb {

// The values of one plane of a tensor as a virtual table: rows and columns are indices along
// the plane's two axes (a 1-D tensor is one column, a scalar one cell), and data() decodes only
// the cell asked for, straight from the mapping under the SIGBUS guard, so a table over 10⁹
// elements costs what the visible cells cost. Immutable data: setPlane() resets the model.
// A quantized weight's dequantized values (setDequantizedPlane) are decoded a tile of cells at a
// time (decodeRect), tiles kept in a small cache, so a repaint decodes only the tiles on screen.
class ValueTableModel : public QAbstractTableModel {
    Q_OBJECT
public:
    enum Role {
        ValueRole = Qt::UserRole + 1, // double
        FlatIndexRole, // qulonglong: the element's flat index in the tensor
        KindRole, // ValueKind
    };
    enum ValueKind { Finite, Zero, NaN, PosInf, NegInf, Unreadable };
    Q_ENUM(ValueKind)

    explicit ValueTableModel(QObject *parent = nullptr);

    // The tensor and the plane to show (a view of at most two axes; see planeView); nullptr to
    // show nothing.
    void setPlane(
        std::shared_ptr<const SafetensorsFile> file, const TensorInfo *info, const StridedView &view);
    // A plane of a quantized weight's dequantized values in its logical shape `shape`; `codes`
    // is the tensor of its stored codes (what tensor() returns). `dequantizer` points into the
    // checkpoint's mappings, which `checkpoint` keeps alive.
    void setDequantizedPlane(std::shared_ptr<const Checkpoint> checkpoint,
        std::shared_ptr<const Dequantizer> dequantizer, const TensorInfo *codes,
        std::vector<std::uint64_t> shape, const StridedView &view);
    void clear();
    bool isDequantized() const { return m_dequantizer != nullptr; }
    // The shape flat indices refer to: the tensor's, or the weight's logical shape.
    const std::vector<std::uint64_t> &shape() const { return m_shape; }
    static constexpr int kTileRows = 32, kTileColumns = 64;
    // Significant digits shown; 0 for the shortest text that reads back as the same value.
    void setPrecision(int digits);
    int precision() const { return m_precision; }

    const TensorInfo *tensor() const { return m_info; }
    // The cell holding the tensor's flat element, if it lies in this plane.
    QModelIndex indexOfElement(std::uint64_t flat) const;
    std::uint64_t flatIndex(int row, int column) const;
    // Rows × columns the plane really has (the table shows at most INT_MAX of each).
    std::uint64_t planeRows() const { return m_rows; }
    std::uint64_t planeColumns() const { return m_cols; }

    int rowCount(const QModelIndex &parent = {}) const override;
    int columnCount(const QModelIndex &parent = {}) const override;
    QVariant data(const QModelIndex &index, int role = Qt::DisplayRole) const override;
    QVariant headerData(int section, Qt::Orientation orientation, int role = Qt::DisplayRole) const override;

    // Text of one value as the table shows it at `digits` (0: shortest round trip).
    static QString valueText(DType dtype, double value, int digits);
    // A value of this plane as its cell shows it now (dtype and precision).
    QString cellText(double value) const { return valueText(m_textType, value, m_precision); }

private:
    struct Tile {
        std::vector<double> values; // kTileRows × kTileColumns, row-major, clipped at the plane's edge
        bool readable = false;
    };
    std::optional<double> valueAt(int row, int column) const;
    void setView(const TensorInfo *info, const StridedView &view); // inside a model reset

    std::shared_ptr<const SafetensorsFile> m_file;
    std::shared_ptr<const Checkpoint> m_checkpoint; // keeps a dequantizer's mappings alive
    std::shared_ptr<const Dequantizer> m_dequantizer;
    mutable QCache<quint64, Tile> m_tiles; // decoded tiles of dequantized values, by tile row and column
    std::vector<std::uint64_t> m_shape;
    DType m_textType = DType::F32; // how values are printed: the tensor's dtype, or F32 when dequantized
    const TensorInfo *m_info = nullptr;
    StridedView m_view;
    std::span<const std::byte> m_bytes;
    std::uint64_t m_rows = 0, m_cols = 0, m_rowStride = 0, m_colStride = 0;
    int m_precision = 0;
};

} // namespace stb
