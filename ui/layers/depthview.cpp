#include "ui/layers/depthview.h"

#include "ui/charts/depthchart.h"
#include "ui/common/qtformat.h"

#include <QComboBox>
#include <QIcon>
#include <QPixmap>
#include <QHBoxLayout>
#include <QLabel>
#include <QListWidget>
#include <QVBoxLayout>

using namespace Qt::StringLiterals;

namespace stb {

DepthView::DepthView(const QStringList &metrics, QWidget *parent)
    : QWidget(parent)
    , m_chart(new DepthChart(this))
    , m_metric(new QComboBox(this))
    , m_outer(new QComboBox(this))
    , m_roles(new QListWidget(this))
{
    m_metric->addItems(metrics);
    m_metric->setToolTip(tr("What is drawn over depth"));
    m_outer->setToolTip(tr("The enclosing block whose nested blocks are drawn"));
    m_outer->hide();
    m_roles->setMaximumWidth(200);
    m_roles->setToolTip(tr("Roles drawn as lines: uncheck to hide"));
    auto *bar = new QHBoxLayout;
    bar->setContentsMargins(0, 0, 0, 0);
    bar->addWidget(m_metric);
    bar->addWidget(m_outer);
    bar->addStretch(1);
    auto *body = new QHBoxLayout;
    body->addWidget(m_chart, 1);
    body->addWidget(m_roles);
    auto *layout = new QVBoxLayout(this);
    layout->setContentsMargins(0, 0, 0, 0);
    layout->addLayout(bar);
    layout->addLayout(body, 1);

    connect(m_metric, &QComboBox::currentIndexChanged, this, &DepthView::draw);
    connect(m_outer, &QComboBox::currentIndexChanged, this, &DepthView::draw);
    connect(m_roles, &QListWidget::itemChanged, this, [this](QListWidgetItem *item) {
        m_chart->setLineVisible(m_roles->row(item), item->checkState() == Qt::Checked);
    });
    connect(m_chart, &DepthChart::pointClicked, this, [this](int line, int position) {
        if (m_repeat && line >= 0 && position >= 0)
            emit blockClicked(row(), static_cast<std::size_t>(position), static_cast<std::size_t>(line));
    });
}

std::size_t DepthView::row() const
{
    return m_repeat && m_repeat->nested() ? static_cast<std::size_t>(std::max(0, m_outer->currentIndex()))
                                          : 0;
}

void DepthView::setMetric(int metric)
{
    m_metric->setCurrentIndex(metric);
}

void DepthView::setOuterRow(int row)
{
    m_outer->setCurrentIndex(row);
}

void DepthView::showMessage(const QString &text)
{
    m_chart->showMessage(text);
}

void DepthView::setRepeat(const Repeat *repeat, int role, const QString &message)
{
    m_repeat = repeat;
    m_series.clear();
    m_outliers.clear();
    const QSignalBlocker blockRoles(m_roles), blockOuter(m_outer);
    m_roles->clear();
    m_outer->clear();
    m_outer->setVisible(repeat && repeat->nested());
    m_chart->showMessage(message);
    if (!repeat)
        return;
    for (std::size_t r = 0; r < repeat->roles.size(); ++r) {
        // The line's colour beside its name: the chart itself has no legend.
        QPixmap swatch(12, 12);
        swatch.fill(DepthChart::lineColor(static_cast<int>(r), palette()));
        auto *item = new QListWidgetItem(QIcon(swatch), shownName(repeat->roles[r].name), m_roles);
        item->setToolTip(shownName(repeat->roles[r].name, 2000)); // escaped and bounded: names are file text
        item->setCheckState(role < 0 || role == static_cast<int>(r) ? Qt::Checked : Qt::Unchecked);
    }
    for (std::uint64_t index : repeat->outerIndices)
        m_outer->addItem(u"%1.%2"_s.arg(shownName(repeat->outerPrefix)).arg(index));
}

void DepthView::setSeries(Series series, std::vector<DepthOutlier> outliers)
{
    m_series = std::move(series);
    m_outliers = std::move(outliers);
    draw();
}

void DepthView::draw()
{
    if (!m_repeat || m_series.size() != m_repeat->roles.size())
        return;
    const auto metric = static_cast<std::size_t>(std::max(0, m_metric->currentIndex()));
    const std::size_t columns = m_repeat->indices.size(), r0 = row() * columns;
    std::vector<DepthChart::Line> lines;
    for (std::size_t r = 0; r < m_series.size(); ++r) {
        const DepthSeries &series = m_series[r][metric];
        DepthChart::Line line;
        line.name = shownName(m_repeat->roles[r].name);
        line.values.assign(series.begin() + static_cast<std::ptrdiff_t>(r0),
            series.begin() + static_cast<std::ptrdiff_t>(r0 + columns));
        line.visible = m_roles->item(static_cast<int>(r))->checkState() == Qt::Checked;
        lines.push_back(std::move(line));
    }
    std::vector<DepthChart::Marker> markers;
    QStringList wholeRow; // roles whose blocks in this row, taken together, stand out from the other rows
    for (const DepthOutlier &o : m_outliers) {
        if (static_cast<std::size_t>(o.stat) != metric || o.row != row())
            continue;
        if (o.column == kWholeRow && wholeRow.size() < 3) // a few say it; the Layers tree lists roles
            wholeRow << tr("%1 (z = %2)").arg(shownName(m_repeat->roles[o.role].name, 80)).arg(o.z, 0, 'f', 1);
        else if (o.column == kWholeRow)
            continue;
        else
            markers.push_back(
                { static_cast<int>(o.role), static_cast<int>(o.column), tr("z = %1").arg(o.z, 0, 'f', 1) });
    }
    m_chart->setData(m_metric->currentText(), m_repeat->indices, lines, markers);
    m_status = markers.empty()    ? tr("No outliers along depth")
        : markers.size() == 1 ? tr("1 outlier along depth (|z| > %1)").arg(kDepthOutlierZ)
                              : tr("%1 outliers along depth (|z| > %2)").arg(markers.size()).arg(kDepthOutlierZ);
    if (!wholeRow.isEmpty())
        m_status += tr("; this row as a whole stands out from the others in: %1").arg(wholeRow.join(u", "_s));
    emit statusChanged(m_status);
}

} // namespace stb
