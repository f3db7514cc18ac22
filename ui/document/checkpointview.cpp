#include "ui/document/checkpointview.h"

#include "ui/audit/auditmodel.h"
#include "ui/audit/auditview.h"
#include "ui/common/qtformat.h"
#include "ui/common/statuscolors.h"
#include "ui/document/diagnosticspane.h"
#include "ui/document/metadatapane.h"
#include "ui/document/overviewpane.h"
#include "ui/document/shardpicker.h"
#include "ui/document/tensorfiltermodel.h"
#include "ui/document/tensortreemodel.h"
#include "ui/hex/hexpane.h"
#include "ui/histogram/histogrampane.h"
#include "ui/layers/depthpane.h"
#include "ui/layers/layersmodel.h"
#include "ui/layoutmap/layoutmapview.h"
#include "ui/shell/messagebar.h"
#include "ui/shell/sha256dialog.h"
#include "ui/values/exportdialog.h"
#include "ui/values/heatmappane.h"
#include "ui/values/planeselector.h"
#include "ui/values/rawcodessetting.h"
#include "ui/values/valuespane.h"

#include <QAction>
#include <QApplication>
#include <QCheckBox>
#include <QClipboard>
#include <QComboBox>
#include <QHeaderView>
#include <QLabel>
#include <QLineEdit>
#include <QMenu>
#include <QSettings>
#include <QSignalBlocker>
#include <QSplitter>
#include <QStyle>
#include <QTabWidget>
#include <QToolButton>
#include <QTreeView>
#include <QVBoxLayout>

#include <bit>

using namespace Qt::StringLiterals;

namespace stb {

namespace {

const auto kSplitterKey = u"checkpointView/splitter"_s;
constexpr std::uint64_t kExpandAllLimit = 20'000; // expanding more rows on each keystroke is slow

// The tensor tree's columns: the name takes the room the others leave and widens with the window
// (names are elided in the middle, where ".k_proj." and ".v_proj." differ, not at the end); the
// others are as wide as the longest text they hold here (`dtypes`: this model's dtype labels),
// measured in the view's font. Indentation is narrow: dotted names nest six levels deep.
void sizeTreeColumns(QTreeView *tree, const QStringList &dtypes)
{
    tree->setTextElideMode(Qt::ElideMiddle);
    const QFontMetrics &metrics = tree->fontMetrics();
    const int digit = metrics.horizontalAdvance(u'0');
    tree->setIndentation(2 * digit);
    QHeaderView *header = tree->header();
    header->setStretchLastSection(false);
    header->setSectionResizeMode(TensorTreeModel::NameColumn, QHeaderView::Stretch);
    const int padding = 2 * digit + 4;
    const auto fit = [&](int column, const QStringList &samples) {
        int width = QFontMetrics(header->font())
                        .horizontalAdvance(tree->model()->headerData(column, Qt::Horizontal).toString())
            + header->style()->pixelMetric(QStyle::PM_HeaderMarkSize, nullptr, header);
        for (const QString &sample : samples)
            width = std::max(width, metrics.horizontalAdvance(sample));
        header->resizeSection(column, width + padding);
    };
    fit(TensorTreeModel::DTypeColumn, dtypes + QStringList { u"mixed"_s });
    fit(TensorTreeModel::ShapeColumn, { u"100,000 tensors"_s, u"[128256, 4096]"_s });
    fit(TensorTreeModel::ParametersColumn, { u"999,999"_s, u"999.9 M"_s });
    fit(TensorTreeModel::SizeColumn, { u"1023 bytes"_s, u"1,023.9 MiB"_s });
    // Below this the name column stops shrinking and the view scrolls sideways instead.
    header->setMinimumSectionSize(6 * digit);
}

// The labels the DType column shows for this model: its dtypes and its quantization schemes.
QStringList dtypeLabels(std::uint32_t dtypeMask, const QuantView &quant)
{
    QStringList labels;
    for (unsigned i = 0; i < kDTypeCount; ++i) {
        if (dtypeMask & (1u << i))
            labels << toQString(dtypeName(static_cast<DType>(i)));
    }
    for (const SchemeTotals &scheme : quant.schemes())
        labels << u"%1 %2-bit"_s.arg(toQString(quantSchemeName(scheme.scheme))).arg(scheme.bits);
    return labels;
}

} // namespace

CheckpointView::CheckpointView(std::shared_ptr<const Checkpoint> checkpoint, const QString &title,
    QWidget *parent, std::shared_ptr<const TensorTreeModel::Rows> rows)
    : QWidget(parent)
    , m_checkpoint(std::move(checkpoint))
    // Recognised in the opening job with the rows; built here for a view made without them.
    , m_quant(rows && rows->quant ? rows->quant
                                  : std::make_shared<const QuantView>(QuantView::buildWithConfig(*m_checkpoint)))
    , m_title(title)
    , m_model(new TensorTreeModel(this))
    , m_proxy(new TensorFilterModel(this))
    , m_bar(new MessageBar(this))
    , m_splitter(new QSplitter(Qt::Horizontal, this))
{
    for (std::size_t s = 0; s < m_checkpoint->shards().size(); ++s) {
        if (m_checkpoint->shards()[s]) {
            m_shard = s;
            break;
        }
    }
    m_proxy->setSourceModel(m_model);
    m_model->setCheckpoint(m_checkpoint, std::move(rows));
    m_model->setQuantView(m_quant); // nothing to do when the rows came with it
    m_missingBytes = TensorTreeModel::missingBytesCount(*m_checkpoint);

    auto *layout = new QVBoxLayout(this);
    layout->setContentsMargins(0, 0, 0, 0);
    layout->setSpacing(0);
    layout->addWidget(m_bar);
    // The audit spans the document's width: its table has a dozen columns.
    auto *vertical = new QSplitter(Qt::Vertical, this);
    vertical->setChildrenCollapsible(false);
    vertical->addWidget(m_splitter);
    m_audit = new AuditView(m_checkpoint, vertical);
    vertical->addWidget(m_audit);
    vertical->setStretchFactor(0, 3);
    vertical->setStretchFactor(1, 2);
    m_audit->hide();
    layout->addWidget(vertical, 1);
    connect(m_bar->addAction(tr("Reload")), &QAction::triggered, this, &CheckpointView::reloadRequested);

    m_splitter->addWidget(createTreeSide());
    createPanes();
    m_splitter->addWidget(m_panes);
    // The tree gets the larger share: its names are long and its five columns should all read;
    // the panes wrap or scroll.
    m_splitter->setStretchFactor(0, 3);
    m_splitter->setStretchFactor(1, 2);
    m_splitter->setSizes({ 720, 480 });
    m_splitter->restoreState(QSettings().value(kSplitterKey).toByteArray());
    connect(m_splitter, &QSplitter::splitterMoved, this,
        [this] { QSettings().setValue(kSplitterKey, m_splitter->saveState()); });

    // A broken file opens on its diagnostics: that is what its reader needs first.
    setCurrentPane(m_checkpoint->valid() ? OverviewTab : DiagnosticsTab);
    updatePane(m_panes->currentIndex());
}

CheckpointView::~CheckpointView() = default;

QWidget *CheckpointView::createTreeSide()
{
    auto *side = new QWidget(this);
    auto *layout = new QVBoxLayout(side);
    layout->setContentsMargins(4, 4, 0, 0);
    layout->setSpacing(4);
    auto *row = new QHBoxLayout;
    m_filter = new QLineEdit(side);
    m_filter->setPlaceholderText(tr("Filter tensors by name"));
    m_filter->setClearButtonEnabled(true);
    m_filterMode = new QComboBox(side);
    m_filterMode->setObjectName(u"filterMode"_s);
    m_filterMode->addItem(tr("Substring"), QVariant::fromValue(TensorFilterModel::Mode::Substring));
    m_filterMode->addItem(tr("Glob"), QVariant::fromValue(TensorFilterModel::Mode::Glob));
    m_filterMode->addItem(tr("Regex"), QVariant::fromValue(TensorFilterModel::Mode::Regex));
    m_filterMode->setToolTip(
        tr("Substring: anywhere in the name. Glob: the whole name, as in *.mlp.*.weight. "
           "Regex: a regular expression found anywhere in the name. Case is ignored."));
    m_flat = new QToolButton(side);
    m_flat->setText(tr("Flat"));
    m_flat->setObjectName(u"flatToggle"_s);
    m_flat->setCheckable(true);
    m_flat->setToolTip(tr("Show every tensor by its full name instead of a tree of groups"));
    row->addWidget(m_filter, 1);
    row->addWidget(m_filterMode);
    row->addWidget(m_flat);
    m_layers = new QToolButton(side);
    m_layers->setText(tr("Layers"));
    m_layers->setObjectName(u"layersToggle"_s);
    m_layers->setCheckable(true);
    m_layers->setToolTip(tr("Show the repeated blocks (layers, experts) as one row each, with their roles and "
                            "deviations"));
    row->addWidget(m_layers);
    layout->addLayout(row);
    m_filterStatus = new QLabel(side);
    m_filterStatus->setObjectName(u"filterStatus"_s);
    m_filterStatus->setTextFormat(Qt::RichText);
    m_filterStatus->setWordWrap(true);
    m_filterStatus->hide();
    layout->addWidget(m_filterStatus);
    // Escape empties the filter (and the tree shows everything again), as in every search field.
    auto *clearFilter = new QAction(tr("Clear Filter"), m_filter);
    clearFilter->setShortcut(QKeySequence(Qt::Key_Escape));
    clearFilter->setShortcutContext(Qt::WidgetShortcut);
    connect(clearFilter, &QAction::triggered, m_filter, &QLineEdit::clear);
    m_filter->addAction(clearFilter);

    m_tree = new QTreeView(side);
    m_tree->setModel(m_proxy);
    m_tree->setUniformRowHeights(true); // constant-time layout for 100,000 rows
    m_tree->setSortingEnabled(true);
    m_tree->sortByColumn(TensorTreeModel::NameColumn, Qt::AscendingOrder);
    m_tree->setAlternatingRowColors(true);
    m_tree->setSelectionMode(QAbstractItemView::SingleSelection);
    m_tree->setContextMenuPolicy(Qt::CustomContextMenu);
    sizeTreeColumns(m_tree, dtypeLabels(m_model->totals({}).dtypeMask, *m_quant));
    layout->addWidget(m_tree, 1);
    m_layersTree = new QTreeView(side);
    m_layersTree->setObjectName(u"layersTree"_s);
    m_layersTree->setUniformRowHeights(true);
    m_layersTree->setAlternatingRowColors(true);
    m_layersTree->setTextElideMode(Qt::ElideMiddle);
    m_layersTree->setSelectionMode(QAbstractItemView::SingleSelection);
    m_layersTree->hide();
    layout->addWidget(m_layersTree, 1);
    connect(m_layers, &QToolButton::toggled, this, &CheckpointView::setLayersMode);
    // Open the first level ("model", "lm_head"): one click less to anything, and cheap.
    for (int row = 0; row < std::min(m_proxy->rowCount(), 8); ++row)
        m_tree->expand(m_proxy->index(row, 0));

    auto *copy = new QAction(tr("Copy Name"), m_tree);
    copy->setShortcut(QKeySequence::Copy);
    copy->setShortcutContext(Qt::WidgetShortcut);
    connect(copy, &QAction::triggered, this, &CheckpointView::copyName);
    m_tree->addAction(copy);
    connect(m_tree, &QWidget::customContextMenuRequested, this, [this, copy](const QPoint &pos) {
        QMenu menu(this);
        const QModelIndex row = m_tree->indexAt(pos);
        copy->setEnabled(row.isValid());
        menu.addAction(copy);
        if (const auto *tensor = row.isValid() ? m_model->tensorAt(m_proxy->mapToSource(row)) : nullptr)
            menu.addAction(tr("Export…"), this, [this, tensor] { exportTensor(tensor); });
        menu.addSeparator();
        menu.addAction(tr("Expand All"), m_tree, &QTreeView::expandAll);
        menu.addAction(tr("Collapse All"), m_tree, &QTreeView::collapseAll);
        menu.exec(m_tree->viewport()->mapToGlobal(pos));
        copy->setEnabled(true);
    });

    // Selection, not the current index: focusing the tree makes a row current without selecting
    // it, and the panes should keep showing the whole model until the user picks something.
    connect(m_tree->selectionModel(), &QItemSelectionModel::selectionChanged, this,
        &CheckpointView::onSelectionChanged);
    connect(m_filter, &QLineEdit::textChanged, this, &CheckpointView::onFilterChanged);
    connect(m_filterMode, &QComboBox::currentIndexChanged, this, [this] {
        m_proxy->setMode(m_filterMode->currentData().value<TensorFilterModel::Mode>());
        emit m_filter->textChanged(m_filter->text());
    });
    connect(m_flat, &QToolButton::toggled, this, &CheckpointView::setFlat);
    return side;
}

void CheckpointView::onFilterChanged(const QString &text)
{
    // Filtering out the current row makes the view pick a neighbour: typing must not select.
    const bool hadSelection = m_tree->selectionModel()->hasSelection();
    m_proxy->setPattern(text);
    if (!hadSelection && m_tree->selectionModel()->hasSelection())
        m_tree->selectionModel()->clearSelection();
    const bool valid = m_proxy->isPatternValid();
    m_filter->setStyleSheet(valid ? QString() : invalidFieldStyle(palette()));
    m_filter->setToolTip(m_proxy->patternError());
    m_filterStatus->setVisible(!text.isEmpty());
    if (!valid) {
        // Nothing is shown until the pattern means something: say why, and where.
        m_filterStatus->setText(toneHtml(Tone::Bad,
            tr("Invalid regular expression: %1").arg(m_proxy->patternError()).toHtmlEscaped(), palette()));
    } else if (!text.isEmpty()) {
        const std::uint64_t all = m_model->totals({}).tensors;
        const std::uint64_t found = m_proxy->matchCount();
        const QString count = tr("%1 of %2 match").arg(countText(found), countNoun(all, tr("tensor"), tr("tensors")));
        m_filterStatus->setText(found ? count.toHtmlEscaped() : toneHtml(Tone::Warning, count.toHtmlEscaped(), palette()));
    }
    if (!text.isEmpty() && valid && m_model->totals({}).tensors <= kExpandAllLimit)
        m_tree->expandAll();
}

void CheckpointView::focusFilter()
{
    if (isLayersMode())
        setLayersMode(false);
    m_filter->setFocus(Qt::ShortcutFocusReason);
    m_filter->selectAll();
}

QStringList CheckpointView::expandedPaths() const
{
    QStringList paths;
    std::vector<QModelIndex> stack { QModelIndex() };
    while (!stack.empty()) {
        const QModelIndex parent = stack.back();
        stack.pop_back();
        for (int row = 0; row < m_proxy->rowCount(parent); ++row) {
            const QModelIndex child = m_proxy->index(row, 0, parent);
            if (m_tree->isExpanded(child)) { // only expanded groups are walked: cheap for 100,000 rows
                paths << m_model->fullPath(m_proxy->mapToSource(child));
                stack.push_back(child);
            }
        }
    }
    return paths;
}

void CheckpointView::setFlat(bool flat)
{
    if (flat == m_model->isFlat())
        return;
    const QSignalBlocker block(m_flat);
    m_flat->setChecked(flat);
    const QString selected = selectedPath();
    if (flat)
        m_expanded = expandedPaths(); // the flat list has no groups to expand
    m_model->setFlat(flat);
    m_tree->setRootIsDecorated(!flat); // no branches to draw: the names get the room
    if (!flat) {
        for (const QString &path : std::as_const(m_expanded))
            m_tree->expand(m_proxy->mapFromSource(m_model->indexOfPath(path)));
        m_expanded.clear();
    }
    if (!selected.isEmpty())
        selectPath(selected);
    emit modeChanged();
}

bool CheckpointView::isFlat() const
{
    return m_model->isFlat();
}

void CheckpointView::createPanes()
{
    m_panes = new QTabWidget(this);
    m_panes->setDocumentMode(true);
    m_overview = new OverviewPane(m_panes);
    m_layoutMap = new LayoutMapView(m_panes);
    m_hex = new HexPane(m_panes);
    m_metadata = new MetadataPane(m_panes);
    m_diagnostics = new DiagnosticsPane(m_panes);
    m_panes->addTab(m_overview, tr("Overview"));
    m_panes->addTab(m_layoutMap, tr("Layout"));
    m_panes->addTab(m_hex, tr("Hex"));
    m_panes->addTab(m_metadata, tr("Metadata"));
    // Errors, plus the problems found past the 10,000 kept (counted, not listed).
    std::uint64_t problems = m_checkpoint->diagnostics().dropped();
    for (const auto &d : m_checkpoint->diagnostics())
        problems += d.isError();
    for (const auto &shard : m_checkpoint->shards())
        problems += shard ? shard->header().errorCount() + shard->header().diagnostics.dropped() : 0;
    m_panes->addTab(m_diagnostics, problems ? tr("Diagnostics (%1)").arg(countText(problems)) : tr("Diagnostics"));
    m_histogram = new HistogramPane(m_checkpoint, m_panes);
    m_histogram->setQuantView(m_quant);
    m_panes->addTab(m_histogram, tr("Histogram"));
    m_values = new ValuesPane(m_checkpoint, m_panes);
    m_values->setQuantView(m_quant);
    m_panes->addTab(m_values, tr("Values"));
    m_heatmap = new HeatmapPane(m_checkpoint, m_panes);
    m_heatmap->setQuantView(m_quant);
    m_panes->addTab(m_heatmap, tr("Heatmap"));
    // One "Raw codes" choice for the document: ticking it in any pane switches all three.
    m_rawCodes = new RawCodesSetting(this);
    for (QCheckBox *box : { m_histogram->rawCodesToggle(), m_values->rawCodesToggle(), m_heatmap->rawCodesToggle() })
        m_rawCodes->follow(box);
    connect(m_values, &ValuesPane::byteRequested, this,
        [this](quint64 offset, int shard, const QString &note) { jumpToOffset(offset, shard, QString(), note); });
    connect(m_heatmap, &HeatmapPane::elementActivated, this, [this](quint64 flat) {
        setCurrentPane(ValuesTab);
        m_values->goToElement(flat);
    });
    m_depth = new DepthPane(m_checkpoint, m_panes);
    m_depth->setKnownStats([this](std::size_t tensor) -> const TensorStats * {
        const TensorAnalysis *analysis
            = m_histogram->cache().find(m_checkpoint->tensors()[tensor].info, m_histogram->bins());
        if (analysis)
            return &analysis->stats;
        // An audit's statistics of the tensor's stored values (not of a quantized weight's),
        // while the entries the index was built from are still the model's.
        const auto &entries = m_audit->model()->result().entries;
        if (tensor < m_auditEntryOfTensor.size() && m_auditEntryOfTensor[tensor] >= 0
            && std::size_t(m_auditEntryOfTensor[tensor]) < entries.size()
            && entries[std::size_t(m_auditEntryOfTensor[tensor])].tensor == tensor)
            return &entries[std::size_t(m_auditEntryOfTensor[tensor])].analysis.stats;
        return nullptr;
    });
    m_panes->addTab(m_depth, tr("Depth"));
    connect(m_depth, &DepthPane::tensorActivated, this, [this](std::size_t tensor) {
        if (m_layersModel)
            m_layersTree->setCurrentIndex(m_layersModel->indexOfTensor(tensor));
        else
            selectPath(toQString(m_checkpoint->tensors()[tensor].info->name));
    });
    // A sharded model's file panes show one shard: the selected tensor's, or the one picked here.
    if (m_checkpoint->isSharded()) {
        m_shardPicker = new ShardPicker(*m_checkpoint, m_panes);
        m_shardPicker->setShard(m_shard);
        m_panes->setCornerWidget(m_shardPicker, Qt::TopRightCorner);
        connect(m_shardPicker, &ShardPicker::shardPicked, this, &CheckpointView::showShard);
        // Only the file panes show a shard: elsewhere the picker would mean nothing.
        connect(m_panes, &QTabWidget::currentChanged, m_shardPicker, [this](int pane) {
            m_shardPicker->setVisible(pane == LayoutTab || pane == HexTab || pane == MetadataTab);
        });
    }
    m_dirty.assign(static_cast<std::size_t>(m_panes->count()), true);
    connect(m_panes, &QTabWidget::currentChanged, this, &CheckpointView::updatePane);
    connect(m_panes, &QTabWidget::currentChanged, this, &CheckpointView::currentPaneChanged);
    connect(m_diagnostics, &DiagnosticsPane::offsetActivated, this,
        [this](quint64 offset, int shard, const QString &tensor) { jumpToOffset(offset, shard, tensor); });
    connect(m_hex, &HexPane::offsetEntered, this, &CheckpointView::onOffsetEntered);
    connect(m_audit, &AuditView::tensorSelected, this, [this](const QString &name) { selectPath(name); });
    connect(m_histogram, &HistogramPane::locateRequested, this, &CheckpointView::locateInValues);
    connect(m_audit, &AuditView::locateRequested, this, [this](const QString &name, LocateTarget target) {
        if (selectPath(name))
            locateInValues(target);
    });
    connect(m_audit, &AuditView::closeRequested, this, [this] {
        m_audit->cancel();
        m_audit->hide();
    });
    connect(m_audit, &AuditView::finished, this, [this](bool ok) {
        if (!ok)
            return;
        const auto &entries = m_audit->model()->result().entries;
        m_auditEntryOfTensor.assign(m_checkpoint->tensors().size(), -1);
        for (std::size_t e = 0; e < entries.size(); ++e) {
            if (entries[e].readable && entries[e].weight < 0
                && entries[e].tensor < m_auditEntryOfTensor.size())
                m_auditEntryOfTensor[entries[e].tensor] = static_cast<std::ptrdiff_t>(e);
        }
        m_audit->selectTensor(selectedPath());
    });
    // The Diagnostics pane shows the audit's findings (and their count after an ignore).
    connect(m_audit, &AuditView::findingsChanged, this, [this] {
        m_diagnostics->setCheckpoint(*m_checkpoint);
        m_diagnostics->setAudit(m_audit->model()->hasResult() ? &m_audit->model()->result() : nullptr);
    });
    connect(m_diagnostics, &DiagnosticsPane::auditRequested, this, [this] {
        if (m_audit->model()->hasResult() || m_audit->isRunning())
            m_audit->show();
        else
            startAudit();
    });
    connect(m_layoutMap, &LayoutMapView::tensorClicked, this, [this](const TensorInfo *info) {
        if (const QModelIndex index = m_model->indexOfTensor(info); index.isValid())
            selectPath(m_model->fullPath(index));
    });
}

void CheckpointView::setLayersMode(bool on)
{
    if (on && !m_layersModel) {
        // Detection reads names only: 36,757 tensors take milliseconds, so it runs right here.
        m_layersModel = new LayersModel(this);
        m_layersModel->setCheckpoint(m_checkpoint);
        m_layersTree->setModel(m_layersModel);
        const int digit = m_layersTree->fontMetrics().horizontalAdvance(u'0');
        // Narrow numeric columns: the deviation counts must be visible without scrolling.
        m_layersTree->header()->resizeSection(LayersModel::NameColumn, 36 * digit);
        m_layersTree->header()->resizeSection(LayersModel::DTypeColumn, 6 * digit);
        m_layersTree->header()->resizeSection(LayersModel::ShapeColumn, 10 * digit);
        m_layersTree->header()->resizeSection(LayersModel::BlocksColumn, 8 * digit);
        m_layersTree->header()->resizeSection(LayersModel::DeviationsColumn, 10 * digit);
        connect(m_layersTree->selectionModel(), &QItemSelectionModel::selectionChanged, this,
                &CheckpointView::onLayersSelectionChanged);
    }
    const QSignalBlocker block(m_layers);
    m_layers->setChecked(on);
    m_tree->setVisible(!on);
    m_layersTree->setVisible(on);
    m_filter->setEnabled(!on);
    m_filterMode->setEnabled(!on);
    m_flat->setEnabled(!on);
    emit modeChanged();
}

bool CheckpointView::isLayersMode() const
{
    return m_layers->isChecked();
}

// A tensor row selects that tensor for every pane; a repeat or role row shows its depth
// profile; a block row selects its group.
void CheckpointView::onLayersSelectionChanged()
{
    const QModelIndexList rows = m_layersTree->selectionModel()->selectedRows();
    if (rows.isEmpty())
        return;
    const QModelIndex index = rows.first();
    const std::size_t tensor = m_layersModel->tensorAt(index);
    if (tensor != kNoTensor) {
        selectPath(toQString(m_checkpoint->tensors()[tensor].info->name));
        return;
    }
    const Repeat *repeat = m_layersModel->repeatAt(index);
    switch (m_layersModel->kind(index)) {
    case LayersModel::Kind::Repeat:
    case LayersModel::Kind::Role:
        m_depth->setRepeat(repeat, m_layersModel->roleAt(index));
        setCurrentPane(DepthTab);
        break;
    default:
        if (repeat && index.parent().isValid()) {
            // The block's own dotted path, for the overview of its group.
            QModelIndex probe = m_layersModel->index(0, 0, index);
            while (probe.isValid() && m_layersModel->tensorAt(probe) == kNoTensor)
                probe = m_layersModel->index(0, 0, probe);
            if (probe.isValid()) {
                const QString name = toQString(m_checkpoint->tensors()[m_layersModel->tensorAt(probe)].info->name);
                const QString child = probe.data().toString();
                selectPath(name.left(name.size() - child.size() - 1));
            }
        }
        break;
    }
}

void CheckpointView::onSelectionChanged()
{
    const QModelIndexList rows = m_tree->selectionModel()->selectedRows();
    m_current = rows.isEmpty() ? QModelIndex() : m_proxy->mapToSource(rows.first());
    if (const auto *tensor = selectedTensor())
        m_shard = tensor->shard;
    if (m_shardPicker)
        m_shardPicker->setShard(m_shard);
    std::fill(m_dirty.begin(), m_dirty.end(), true);
    updatePane(m_panes->currentIndex());
    if (!m_audit->isHidden())
        m_audit->selectTensor(selectedPath());
}

void CheckpointView::updatePane(int pane)
{
    if (pane < 0 || !m_dirty[static_cast<std::size_t>(pane)])
        return;
    m_dirty[static_cast<std::size_t>(pane)] = false;
    const Checkpoint::Tensor *tensor = selectedTensor();
    const auto file = m_checkpoint->shards().empty() ? nullptr : m_checkpoint->shards()[m_shard];
    switch (pane) {
    case OverviewTab:
        if (tensor)
            m_overview->showTensor(*m_checkpoint, *tensor, m_quant.get());
        else
            m_overview->showGroup(
                m_current.isValid() ? m_model->fullPath(m_current) : tr("%1 (whole model)").arg(m_title),
                m_model->totals(m_current), m_model->dtypeBreakdown(m_current),
                m_current.isValid() ? nullptr : m_quant.get());
        break;
    case LayoutTab:
        if (m_layoutFile != file.get()) {
            m_layoutMap->setFile(file);
            m_layoutFile = file.get();
        }
        m_layoutMap->setSelectedTensor(tensor ? tensor->info : nullptr);
        break;
    case HexTab:
        if (m_hexFile != file.get()) {
            m_hex->setFile(file);
            m_hexFile = file.get();
            m_hex->setStale(m_stale);
        }
        m_hex->setTensor(tensor ? tensor->info : nullptr);
        break;
    case MetadataTab:
        m_metadata->showFile(*m_checkpoint, m_shard);
        break;
    case DiagnosticsTab:
        m_diagnostics->setCheckpoint(*m_checkpoint);
        // Findings do not depend on the selection: once is enough.
        break;
    case HistogramTab:
        m_histogram->showTensor(tensor);
        break;
    case ValuesTab:
        m_values->showTensor(tensor);
        break;
    case HeatmapTab:
        m_heatmap->showTensor(tensor);
        break;
    default:
        break;
    }
}

void CheckpointView::showShard(std::size_t shard)
{
    if (shard >= m_checkpoint->shards().size() || shard == m_shard)
        return;
    m_shard = shard;
    if (m_shardPicker)
        m_shardPicker->setShard(shard);
    for (const Pane pane : { LayoutTab, HexTab, MetadataTab })
        m_dirty[pane] = true;
    updatePane(m_panes->currentIndex());
}

std::size_t CheckpointView::shownShard() const
{
    return m_shard;
}

void CheckpointView::jumpToOffset(quint64 offset, int shard, const QString &tensor, const QString &note)
{
    if (!tensor.isEmpty())
        selectPath(tensor);
    if (shard < 0)
        return; // an offset in the index JSON, which the Hex pane does not show
    m_shard = static_cast<std::size_t>(shard);
    if (m_shardPicker)
        m_shardPicker->setShard(m_shard);
    m_dirty[HexTab] = true;
    setCurrentPane(HexTab);
    m_hex->goToOffset(offset, note);
}

// An offset typed into the Hex pane: when it lies in another tensor, that tensor becomes the
// selection (tree, panes), and the Hex pane stays at the offset rather than the tensor's start.
void CheckpointView::onOffsetEntered(quint64 offset)
{
    const SafetensorsFile *file = m_checkpoint->shards().empty() ? nullptr : m_checkpoint->shards()[m_shard].get();
    if (!file)
        return;
    const Checkpoint::Tensor *found = nullptr;
    for (const auto &tensor : m_checkpoint->tensors()) {
        if (tensor.shard != m_shard || tensor.info->byteLength() == 0)
            continue;
        const std::uint64_t begin = file->header().fileOffset(*tensor.info);
        if (offset >= begin && offset - begin < tensor.info->byteLength()) {
            found = &tensor;
            break;
        }
    }
    if (!found || found == selectedTensor())
        return;
    if (selectPath(toQString(found->info->name))) {
        updatePane(HexTab); // the selection moved the Hex pane to the tensor's first byte
        m_hex->goToOffset(offset);
    }
}

bool CheckpointView::selectPath(const QString &fullName)
{
    const QModelIndex source = m_model->indexOfPath(fullName);
    QModelIndex index = m_proxy->mapFromSource(source);
    if (!index.isValid() && source.isValid() && !m_filter->text().isEmpty()) {
        m_filter->clear(); // hidden by the filter: show everything rather than fail
        index = m_proxy->mapFromSource(source);
    }
    if (!index.isValid())
        return false;
    m_tree->setCurrentIndex(index); // selects too: the view is in single selection mode
    m_tree->scrollTo(index);
    return true;
}

QString CheckpointView::selectedPath() const
{
    return m_current.isValid() ? m_model->fullPath(m_current) : QString();
}

const Checkpoint::Tensor *CheckpointView::selectedTensor() const
{
    return m_model->tensorAt(m_current);
}

void CheckpointView::setCurrentPane(Pane pane)
{
    m_panes->setCurrentIndex(pane);
}

CheckpointView::Pane CheckpointView::currentPane() const
{
    return static_cast<Pane>(m_panes->currentIndex());
}

void CheckpointView::setStale(const QString &reason)
{
    m_stale = true;
    m_hex->setStale(true);
    m_histogram->setStale(true);
    m_bar->showMessage(MessageBar::Kind::Warning,
        tr("%1 What is shown is the file as it was when opened; its bytes are no longer read.").arg(reason));
}

void CheckpointView::startAudit()
{
    if (auto *split = qobject_cast<QSplitter *>(m_audit->parentWidget()); split && m_audit->isHidden()) {
        m_audit->show();
        const int height = split->height();
        split->setSizes({ height * 11 / 20, height * 9 / 20 }); // room for a dozen rows
    }
    m_auditEntryOfTensor.clear(); // the entries are replaced
    m_audit->start();
}

void CheckpointView::computeSha256()
{
    auto *dialog = new Sha256Dialog(m_checkpoint, this);
    dialog->setAttribute(Qt::WA_DeleteOnClose);
    dialog->setWindowTitle(tr("SHA-256 of %1").arg(m_title));
    dialog->show();
}

void CheckpointView::locateInValues(LocateTarget target)
{
    setCurrentPane(ValuesTab); // shows the selected tensor in Values first
    m_values->locate(target);
}

ExportDialog *CheckpointView::exportTensor(const Checkpoint::Tensor *tensor)
{
    if (!tensor)
        tensor = selectedTensor();
    const SafetensorsFile *file = tensor ? m_checkpoint->fileOf(*tensor) : nullptr;
    if (!file || !file->fullyReadable(*tensor->info)) {
        m_bar->showMessage(MessageBar::Kind::Information,
            tensor ? tr("The tensor's bytes are not in the file: there is nothing to export.")
                   : tr("Select a tensor to export."));
        return nullptr;
    }
    std::optional<StridedView> plane;
    if (m_values->tensor() == tensor)
        plane = m_values->planeSelector()->view();
    const auto index = static_cast<std::size_t>(tensor - m_checkpoint->tensors().data());
    auto dequantized = m_quant ? dequantizedTensor(*m_checkpoint, *m_quant, index) : std::nullopt;
    auto *dialog
        = new ExportDialog(m_checkpoint, *tensor, plane, this, std::move(dequantized), m_rawCodes->isRaw());
    dialog->setAttribute(Qt::WA_DeleteOnClose);
    connect(dialog, &ExportDialog::exported, this, [this](const QString &path) {
        m_bar->showMessage(MessageBar::Kind::Information, tr("Exported to %1").arg(path));
    });
    dialog->show();
    return dialog;
}

void CheckpointView::copyName()
{
    const QString name = selectedPath();
    if (!name.isEmpty())
        QApplication::clipboard()->setText(name);
}

QString CheckpointView::path() const
{
    return toQString(m_checkpoint->path());
}

QStringList CheckpointView::watchedPaths() const
{
    QStringList paths { path() };
    if (m_checkpoint->isSharded()) {
        const QString folder = path().left(path().lastIndexOf(u'/') + 1);
        for (const auto &name : m_checkpoint->shardNames()) {
            if (isPlainShardName(name))
                paths << folder + toQString(name);
        }
    }
    paths.removeDuplicates();
    return paths;
}

QString CheckpointView::summaryText() const
{
    const auto totals = m_model->totals({});
    QStringList dtypes;
    for (unsigned i = 0; i < kDTypeCount; ++i) {
        if (totals.dtypeMask & (1u << i))
            dtypes << toQString(dtypeName(static_cast<DType>(i)));
    }
    // The size is the files' (header included), labelled so it is not read as the tensor data
    // the Overview gives.
    const QString size = m_checkpoint->isSharded()
        ? tr("files %1 in %2")
              .arg(sizeText(m_checkpoint->totalFileBytes()),
                  countNoun(m_checkpoint->shards().size(), tr("shard"), tr("shards")))
        : tr("file size %1").arg(sizeText(m_checkpoint->totalFileBytes()));
    QString text = u"%1 · %2 · %3"_s.arg(countNoun(totals.tensors, tr("tensor"), tr("tensors")),
        countNoun(totals.parameters, tr("parameter"), tr("parameters")), size);
    if (!dtypes.isEmpty())
        text += u" · "_s + dtypes.join(u", "_s);
    if (m_missingBytes > 0)
        text += u" · "_s
            + (m_missingBytes == 1 ? tr("1 tensor has missing bytes")
                                   : tr("%1 tensors have missing bytes").arg(countText(m_missingBytes)));
    return text;
}

QString CheckpointView::validityText() const
{
    const Diagnostic *error = m_checkpoint->firstError();
    if (!error)
        return tr("valid");
    QString where;
    for (std::size_t s = 0; s < m_checkpoint->shards().size() && m_checkpoint->isSharded(); ++s) {
        if (m_checkpoint->shards()[s] && m_checkpoint->shards()[s]->header().verdict() == error)
            where = tr(" in %1").arg(toQString(m_checkpoint->shardNames()[s]));
    }
    return tr("invalid: %1 at byte %2%3").arg(toQString(error->id()), countText(error->offset), where);
}

} // namespace stb
