#include "ui/values/planeselector.h"

#include <QComboBox>
#include <QHBoxLayout>
#include <QLabel>
#include <QSpinBox>

#include <climits>

using namespace Qt::StringLiterals;

namespace stb {

PlaneSelector::PlaneSelector(QWidget *parent)
    : QWidget(parent)
    , m_rows(new QComboBox(this))
    , m_columns(new QComboBox(this))
    , m_spinLayout(new QHBoxLayout)
{
    auto *layout = new QHBoxLayout(this);
    layout->setContentsMargins(0, 0, 0, 0);
    layout->addWidget(new QLabel(tr("Rows:"), this));
    layout->addWidget(m_rows);
    layout->addWidget(new QLabel(tr("Columns:"), this));
    layout->addWidget(m_columns);
    layout->addLayout(m_spinLayout);
    m_rows->setToolTip(tr("The axis shown down the rows"));
    m_columns->setToolTip(tr("The axis shown across the columns"));
    connect(m_rows, &QComboBox::currentIndexChanged, this, &PlaneSelector::axisPicked);
    connect(m_columns, &QComboBox::currentIndexChanged, this, &PlaneSelector::axisPicked);
    hide();
}

void PlaneSelector::setShape(const std::vector<std::uint64_t> &shape)
{
    m_shape = shape;
    m_fixed.assign(shape.size(), 0);
    m_rowAxis = shape.size() >= 2 ? shape.size() - 2 : 0;
    m_columnAxis = shape.size() >= 2 ? shape.size() - 1 : 0;
    setVisible(shape.size() >= 3);
    rebuild();
}

void PlaneSelector::setAxes(std::size_t rowAxis, std::size_t columnAxis)
{
    if (rowAxis == columnAxis || rowAxis >= m_shape.size() || columnAxis >= m_shape.size())
        return;
    m_rowAxis = rowAxis;
    m_columnAxis = columnAxis;
    rebuild();
    emit planeChanged();
}

void PlaneSelector::setFixedFrom(const std::vector<std::uint64_t> &index)
{
    bool changed = false;
    for (std::size_t k = 0; k < m_shape.size() && k < index.size(); ++k) {
        if (k != m_rowAxis && k != m_columnAxis && m_fixed[k] != index[k]) {
            m_fixed[k] = index[k];
            changed = true;
        }
    }
    if (!changed)
        return;
    rebuild();
    emit planeChanged();
}

std::vector<std::uint64_t> PlaneSelector::fixedIndices() const
{
    return m_fixed;
}

StridedView PlaneSelector::view() const
{
    if (m_shape.size() < 3)
        return wholeView(m_shape);
    std::string error;
    return planeView(m_shape, m_rowAxis, m_columnAxis, m_fixed, error).value_or(wholeView(m_shape));
}

void PlaneSelector::axisPicked()
{
    if (m_updating)
        return;
    auto rowAxis = static_cast<std::size_t>(m_rows->currentIndex());
    auto columnAxis = static_cast<std::size_t>(m_columns->currentIndex());
    if (rowAxis == columnAxis) // picking the other's axis swaps them
        (sender() == m_rows ? columnAxis : rowAxis) = sender() == m_rows ? m_rowAxis : m_columnAxis;
    setAxes(rowAxis, columnAxis);
}

void PlaneSelector::rebuild()
{
    m_updating = true;
    m_rows->clear();
    m_columns->clear();
    for (std::size_t k = 0; k < m_shape.size(); ++k) {
        const QString label = tr("axis %1 (%2)").arg(k).arg(m_shape[k]);
        m_rows->addItem(label);
        m_columns->addItem(label);
    }
    m_rows->setCurrentIndex(static_cast<int>(m_rowAxis));
    m_columns->setCurrentIndex(static_cast<int>(m_columnAxis));
    while (QLayoutItem *item = m_spinLayout->takeAt(0)) { // the labels and spin boxes
        delete item->widget();
        delete item;
    }
    m_spins.assign(m_shape.size(), nullptr);
    for (std::size_t k = 0; k < m_shape.size(); ++k) {
        if (k == m_rowAxis || k == m_columnAxis || m_shape.size() < 3)
            continue;
        m_spinLayout->addWidget(new QLabel(tr("axis %1:").arg(k), this));
        auto *spin = new QSpinBox(this);
        spin->setRange(
            0, static_cast<int>(std::min<std::uint64_t>(m_shape[k] ? m_shape[k] - 1 : 0, INT_MAX)));
        spin->setValue(static_cast<int>(std::min<std::uint64_t>(m_fixed[k], INT_MAX)));
        spin->setToolTip(tr("Index along axis %1 (of %2)").arg(k).arg(m_shape[k]));
        connect(spin, &QSpinBox::valueChanged, this, [this, k](int value) {
            if (m_updating)
                return;
            m_fixed[k] = static_cast<std::uint64_t>(value);
            emit planeChanged();
        });
        m_spinLayout->addWidget(spin);
        m_spins[k] = spin;
    }
    m_updating = false;
}

} // namespace stb
