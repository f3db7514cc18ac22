#include "ui/compare/comparedepthpane.h"

#include "ui/common/qtformat.h"
#include "ui/layers/depthview.h"

#include <QComboBox>
#include <QVBoxLayout>

using namespace Qt::StringLiterals;

namespace stb {

CompareDepthPane::CompareDepthPane(QWidget *parent)
    : QWidget(parent)
    , m_repeats(new QComboBox(this))
    , m_view(new DepthView(
          { toQString(diffMetricName(DiffMetric::RelL2)), toQString(diffMetricName(DiffMetric::Cosine)) },
          this))
{
    m_repeats->setToolTip(tr("The repeated blocks drawn over depth"));
    auto *layout = new QVBoxLayout(this);
    layout->setContentsMargins(4, 4, 4, 4);
    layout->addWidget(m_repeats);
    layout->addWidget(m_view, 1);
    connect(m_repeats, &QComboBox::currentIndexChanged, this, &CompareDepthPane::show);
    connect(m_view, &DepthView::blockClicked, this,
        [this](std::size_t row, std::size_t column, std::size_t role) {
            const int entry = m_repeats->currentIndex();
            if (!m_result || entry < 0)
                return;
            const std::size_t pair
                = m_entries[static_cast<std::size_t>(entry)].first->tensorAt(row, column, role);
            if (pair != kNoTensor)
                emit pathActivated(toQString(m_result->comparison.pairs[pair].name));
        });
    setResult(nullptr);
}

CompareDepthPane::~CompareDepthPane() = default;

int CompareDepthPane::repeatCount() const
{
    return static_cast<int>(m_entries.size());
}

void CompareDepthPane::setResult(std::shared_ptr<const CompareResult> result)
{
    m_result = std::move(result);
    m_diff = m_result ? diffByLayer(m_result->comparison) : LayerDiff {};
    m_entries.clear();
    for (std::size_t i = 0; i < m_diff.repeats.size(); ++i) {
        m_entries.emplace_back(&m_diff.repeats[i], &m_diff.diffs[i]);
        for (std::size_t j = 0; j < m_diff.repeats[i].repeats.size(); ++j)
            m_entries.emplace_back(&m_diff.repeats[i].repeats[j], &m_diff.diffs[i].repeats[j]);
    }
    const QSignalBlocker block(m_repeats);
    m_repeats->clear();
    for (const auto &[repeat, diff] : m_entries)
        m_repeats->addItem(toQString(repeat->label()));
    m_repeats->setEnabled(!m_entries.empty());
    show();
}

void CompareDepthPane::setRepeat(int entry)
{
    m_repeats->setCurrentIndex(entry);
}

void CompareDepthPane::show()
{
    const int entry = m_repeats->currentIndex();
    if (entry < 0) {
        m_view->setRepeat(nullptr, -1,
            m_result ? tr("No repeated blocks: the names have no numbered layers.") : tr("Comparing\u2026"));
        return;
    }
    const auto &[repeat, diff] = m_entries[static_cast<std::size_t>(entry)];
    m_view->setRepeat(repeat, -1, {});
    DepthView::Series series;
    for (const auto &metrics : diff->roles)
        series.emplace_back(metrics.begin(), metrics.end());
    m_view->setSeries(std::move(series));
}

} // namespace stb
