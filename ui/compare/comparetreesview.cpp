#include "ui/compare/comparetreesview.h"

#include "ui/common/fittingtextdelegate.h"
#include "ui/common/statuscolors.h"
#include "ui/compare/comparefiltermodel.h"
#include "ui/compare/comparemodel.h"

#include <QHeaderView>
#include <QLabel>
#include <QScopedValueRollback>
#include <QScrollBar>
#include <QSplitter>
#include <QTreeView>
#include <QVBoxLayout>

using namespace Qt::StringLiterals;

namespace stb {

namespace {

constexpr int kExpandLimit = 400; // rows opened for the user on a new result: enough to see, still fast
constexpr int kExpandAllLimit = 20'000;

// The same row in the other tree: both proxies filter one tree the same way, so row numbers match.
QModelIndex mirror(const QModelIndex &index, const QAbstractItemModel *to)
{
    if (!index.isValid())
        return {};
    return to->index(index.row(), index.column(), mirror(index.parent(), to));
}

} // namespace

CompareTreesView::CompareTreesView(QWidget *parent)
    : QWidget(parent)
    , m_modelA(new CompareModel(CompareModel::Side::A, this))
    , m_modelB(new CompareModel(CompareModel::Side::B, this))
    , m_proxyA(new CompareFilterModel(this))
    , m_proxyB(new CompareFilterModel(this))
    , m_treeA(new QTreeView(this))
    , m_treeB(new QTreeView(this))
    , m_titleA(new QLabel(this))
    , m_titleB(new QLabel(this))
{
    m_proxyA->setSourceModel(m_modelA);
    m_proxyB->setSourceModel(m_modelB);
    m_treeA->setModel(m_proxyA);
    m_treeB->setModel(m_proxyB);
    auto *layout = new QVBoxLayout(this);
    layout->setContentsMargins(0, 0, 0, 0);
    auto *splitter = new QSplitter(Qt::Horizontal, this);
    splitter->addWidget(createSide(m_treeA, m_titleA));
    splitter->addWidget(createSide(m_treeB, m_titleB));
    splitter->setChildrenCollapsible(false);
    layout->addWidget(splitter, 1);
    layout->addWidget(createLegend());
    connectPair(m_treeA, m_treeB);
    connectPair(m_treeB, m_treeA);
    // A row's status is the pair's, the same on both sides: B's column says it for both, and A's
    // names get the room.
    m_treeA->setColumnHidden(CompareModel::StatusColumn, true);
    // A group's counts say less where the column is narrow instead of losing their middle.
    for (QTreeView *tree : { m_treeA, m_treeB })
        tree->setItemDelegateForColumn(
            CompareModel::StatusColumn, new FittingTextDelegate(CompareModel::StatusTextsRole, tree));
}

QWidget *CompareTreesView::createSide(QTreeView *tree, QLabel *title)
{
    auto *side = new QWidget(this);
    auto *layout = new QVBoxLayout(side);
    layout->setContentsMargins(0, 0, 0, 0);
    layout->setSpacing(2);
    title->setTextFormat(Qt::PlainText);
    title->setTextInteractionFlags(Qt::TextSelectableByMouse);
    QFont bold = title->font();
    bold.setBold(true);
    title->setFont(bold);
    layout->addWidget(title);
    layout->addWidget(tree, 1);
    tree->setUniformRowHeights(true);
    tree->setIndentation(tree->fontMetrics().horizontalAdvance(u'0') * 2); // dotted names nest deep
    tree->setSelectionMode(QAbstractItemView::SingleSelection);
    tree->setSelectionBehavior(QAbstractItemView::SelectRows);
    // The name takes what the other columns leave (cut in the middle); they are as wide as what
    // they hold: "[128256, 4096]", "1,000 tensors", "within tolerance", "all identical".
    tree->setTextElideMode(Qt::ElideMiddle);
    QHeaderView *header = tree->header();
    header->setStretchLastSection(false);
    header->setSectionResizeMode(CompareModel::NameColumn, QHeaderView::Stretch);
    const QFontMetrics metrics = tree->fontMetrics();
    const int padding = metrics.horizontalAdvance(u'0') * 2 + 8;
    const auto fit = [&](int column, std::initializer_list<QString> samples) {
        int width = header->fontMetrics().horizontalAdvance(
            tree->model()->headerData(column, Qt::Horizontal).toString());
        for (const QString &sample : samples)
            width = std::max(width, metrics.horizontalAdvance(sample));
        header->resizeSection(column, width + padding);
    };
    fit(CompareModel::DTypeColumn, { u"BF16"_s });
    fit(CompareModel::ShapeColumn, { u"[128256, 4096]"_s, u"1,000 tensors"_s });
    fit(CompareModel::StatusColumn,
        { CompareModel::statusLabel(PairStatus::ShapeChanged), tr("within tolerance") });
    header->setMinimumSectionSize(metrics.horizontalAdvance(u'0') * 6);
    return side;
}

QWidget *CompareTreesView::createLegend()
{
    auto *legend = new QLabel(this);
    legend->setObjectName(u"compareLegend"_s);
    QString html;
    const auto item = [](PairStatus status, bool withinTolerance, const QString &text) {
        return u"%1&nbsp;%2&nbsp;&nbsp; "_s.arg(CompareModel::swatchHtml(status, withinTolerance), text);
    };
    for (PairStatus status : { PairStatus::Identical, PairStatus::Changed })
        html += item(status, false, CompareModel::statusLabel(status));
    html += item(PairStatus::Changed, true, tr("within tolerance"));
    for (PairStatus status : { PairStatus::DTypeChanged, PairStatus::ShapeChanged, PairStatus::OnlyInA,
             PairStatus::OnlyInB, PairStatus::Unreadable })
        html += item(status, false, CompareModel::statusLabel(status));
    legend->setText(html);
    // One line: it fits at 1024 px; a narrower window cuts it rather than being held wider. The
    // grey italic rows need no entry: they say "only in A" or "only in B" themselves.
    legend->setWordWrap(false);
    legend->setSizePolicy(QSizePolicy::Ignored, QSizePolicy::Preferred);
    legend->setToolTip(tr("Row colours: what happened to each tensor between A and B. Grey italic rows "
                          "stand for a tensor missing on that side."));
    return legend;
}

void CompareTreesView::connectPair(QTreeView *from, QTreeView *to)
{
    connect(from, &QTreeView::expanded, this, [this, to](const QModelIndex &index) {
        if (m_syncing)
            return;
        const QScopedValueRollback guard(m_syncing, true);
        to->expand(mirror(index, to->model()));
    });
    connect(from, &QTreeView::collapsed, this, [this, to](const QModelIndex &index) {
        if (m_syncing)
            return;
        const QScopedValueRollback guard(m_syncing, true);
        to->collapse(mirror(index, to->model()));
    });
    // setValue with the value it already has emits nothing, so the two bars cannot ping-pong.
    connect(
        from->verticalScrollBar(), &QScrollBar::valueChanged, to->verticalScrollBar(), &QScrollBar::setValue);
    // Widths the user drags; the name stretches on each side, and A hides its status column.
    connect(from->header(), &QHeaderView::sectionResized, to, [from, to](int section, int, int size) {
        if (section == CompareModel::NameColumn || size == 0 || from->isColumnHidden(section)
            || to->isColumnHidden(section))
            return;
        if (to->header()->sectionSize(section) != size)
            to->header()->resizeSection(section, size);
    });
    connect(from->selectionModel(), &QItemSelectionModel::selectionChanged, this, [this, from, to] {
        if (m_syncing)
            return;
        {
            const QScopedValueRollback guard(m_syncing, true);
            const QModelIndexList rows = from->selectionModel()->selectedRows();
            if (rows.isEmpty()) {
                to->selectionModel()->clearSelection();
            } else {
                const QModelIndex other = mirror(rows.first(), to->model());
                to->selectionModel()->setCurrentIndex(
                    other, QItemSelectionModel::ClearAndSelect | QItemSelectionModel::Rows);
            }
        }
        emit selectionChanged();
    });
}

void CompareTreesView::setSideTitles(const QString &a, const QString &b)
{
    m_titleA->setText(tr("A: %1").arg(a));
    m_titleB->setText(tr("B: %1").arg(b));
}

void CompareTreesView::setResult(std::shared_ptr<const CompareResult> result)
{
    if (const auto &old = m_modelA->result()) {
        m_keptA = old->a;
        m_keptB = old->b;
        m_keptExpanded = expandedPaths();
        m_keptSelection = selectedPath();
    }
    const bool sameFiles = result && result->a == m_keptA && result->b == m_keptB;
    m_modelA->setResult(result);
    m_modelB->setResult(std::move(result));
    if (!m_modelA->result())
        return;
    if (sameFiles)
        restoreExpanded(m_keptExpanded);
    else
        expandDefault();
    // Selecting announces itself; otherwise say that the selection is now nothing.
    if (!sameFiles || m_keptSelection.isEmpty() || !selectPath(m_keptSelection))
        emit selectionChanged();
}

void CompareTreesView::expandDefault()
{
    // The first level, then the way down to each difference, within a budget of rows.
    int budget = kExpandLimit;
    std::vector<QModelIndex> stack;
    for (int row = m_proxyA->rowCount() - 1; row >= 0; --row)
        stack.push_back(m_proxyA->index(row, 0));
    while (!stack.empty() && budget > 0) {
        const QModelIndex index = stack.back();
        stack.pop_back();
        const bool differs = index.data(CompareModel::DifferingRole).toBool();
        if (!m_proxyA->hasChildren(index) || (!differs && index.parent().isValid()))
            continue;
        m_treeA->expand(index); // the other tree follows
        budget -= m_proxyA->rowCount(index);
        for (int row = m_proxyA->rowCount(index) - 1; row >= 0 && differs; --row)
            stack.push_back(m_proxyA->index(row, 0, index));
    }
}

QStringList CompareTreesView::expandedPaths() const
{
    QStringList paths;
    std::vector<QModelIndex> stack { QModelIndex() };
    while (!stack.empty()) {
        const QModelIndex parent = stack.back();
        stack.pop_back();
        for (int row = 0; row < m_proxyA->rowCount(parent); ++row) {
            const QModelIndex index = m_proxyA->index(row, 0, parent);
            if (m_treeA->isExpanded(index)) {
                paths << m_modelA->fullPath(m_proxyA->mapToSource(index));
                stack.push_back(index);
            }
        }
    }
    return paths;
}

void CompareTreesView::restoreExpanded(const QStringList &paths)
{
    for (const QString &path : paths)
        m_treeA->expand(m_proxyA->mapFromSource(m_modelA->indexOfPath(path)));
}

void CompareTreesView::setDifferencesOnly(bool on)
{
    m_proxyA->setDifferencesOnly(on);
    m_proxyB->setDifferencesOnly(on);
    if (on && m_modelA->result() && m_modelA->result()->comparison.pairs.size() <= kExpandAllLimit) {
        m_treeA->expandAll(); // expandAll emits no expanded() per row: open both
        m_treeB->expandAll();
    }
}

void CompareTreesView::setPattern(const QString &pattern)
{
    m_proxyA->setPattern(pattern);
    m_proxyB->setPattern(pattern);
    if (!pattern.isEmpty() && m_modelA->result()
        && m_modelA->result()->comparison.pairs.size() <= kExpandAllLimit) {
        m_treeA->expandAll();
        m_treeB->expandAll();
    }
}

bool CompareTreesView::selectPath(const QString &fullName)
{
    const QModelIndex index = m_proxyA->mapFromSource(m_modelA->indexOfPath(fullName));
    if (!index.isValid())
        return false;
    m_treeA->setCurrentIndex(index);
    m_treeA->scrollTo(index);
    return true;
}

QModelIndex CompareTreesView::selectedIndex() const
{
    const QModelIndexList rows = m_treeA->selectionModel()->selectedRows();
    return rows.isEmpty() ? QModelIndex() : m_proxyA->mapToSource(rows.first());
}

QString CompareTreesView::selectedPath() const
{
    return m_modelA->fullPath(selectedIndex());
}

const TensorPair *CompareTreesView::selectedPair() const
{
    return m_modelA->pairAt(selectedIndex());
}

} // namespace stb
