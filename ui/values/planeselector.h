#pragma once

#include "core/values/stridedview.h"

#include <QWidget>

#include <optional>
#include <vector>

class QComboBox;
class QHBoxLayout;
class QSpinBox;

namespace stb {

// Which plane of an N-D tensor to show: an axis for the rows, one for the columns, and a spin
// box for the index of every other axis. Hidden for tensors of fewer than three axes (their one
// plane needs no choosing). Spin boxes hold int indices: axes longer than INT_MAX are capped.
class PlaneSelector : public QWidget {
    Q_OBJECT
public:
    explicit PlaneSelector(QWidget *parent = nullptr);

    // A new tensor: rows = the second-to-last axis, columns = the last, other indices 0.
    void setShape(const std::vector<std::uint64_t> &shape);
    const std::vector<std::uint64_t> &shape() const { return m_shape; }
    std::size_t rowAxis() const { return m_rowAxis; }
    std::size_t columnAxis() const { return m_columnAxis; }
    void setAxes(std::size_t rowAxis, std::size_t columnAxis);
    // Fixes every other axis at the element's coordinates (the shown axes keep theirs).
    void setFixedFrom(const std::vector<std::uint64_t> &index);
    std::vector<std::uint64_t> fixedIndices() const;
    // The plane now chosen (the whole tensor for fewer than three axes).
    StridedView view() const;

signals:
    void planeChanged();

private:
    void rebuild();
    void axisPicked();

    std::vector<std::uint64_t> m_shape;
    std::size_t m_rowAxis = 0, m_columnAxis = 1;
    std::vector<std::uint64_t> m_fixed;
    QComboBox *m_rows;
    QComboBox *m_columns;
    QHBoxLayout *m_spinLayout;
    std::vector<QSpinBox *> m_spins; // one per axis; nullptr for the shown ones
    bool m_updating = false;
};

} // namespace stb
