#pragma once

#include "core/io/checkpoint.h"
#include "core/quant/quantview.h"
#include "ui/document/tensortreemodel.h"
#include "ui/values/locatemenu.h"

#include <QPersistentModelIndex>
#include <QWidget>

#include <functional>
#include <memory>
#include <vector>

class QComboBox;
class QLabel;
class QLineEdit;
class QSplitter;
class QTabWidget;
class QToolButton;
class QTreeView;

namespace stb {

class AuditView;
class DepthPane;
class DiagnosticsPane;
class ExportDialog;
class HeatmapPane;
class RawCodesSetting;
class HexPane;
class HistogramPane;
class LayersModel;
class LayoutMapView;
class MessageBar;
class MetadataPane;
class OverviewPane;
class ShardPicker;
class TensorFilterModel;
class ValuesPane;

// One open checkpoint: the tensor tree with its filter on the left, the panes for the selection
// on the right. Panes compute only when shown: a selection change updates the visible pane and
// marks the others for an update when their tab is chosen.
class CheckpointView : public QWidget {
    Q_OBJECT
public:
    enum Pane {
        OverviewTab,
        LayoutTab,
        HexTab,
        MetadataTab,
        DiagnosticsTab,
        HistogramTab,
        ValuesTab,
        HeatmapTab,
        DepthTab,
    };

    // `rows`: the tree's rows prepared off the GUI thread (TensorTreeModel::prepare), or nullptr.
    CheckpointView(std::shared_ptr<const Checkpoint> checkpoint, const QString &title, QWidget *parent = nullptr,
        std::shared_ptr<const TensorTreeModel::Rows> rows = {});
    ~CheckpointView() override;

    const std::shared_ptr<const Checkpoint> &checkpoint() const { return m_checkpoint; }
    QString title() const { return m_title; }
    // The path opened (the index for a sharded model) and every file the view depends on.
    QString path() const;
    QStringList watchedPaths() const;

    // Selects the tensor or group of that dotted name; false when there is none.
    bool selectPath(const QString &fullName);
    QString selectedPath() const;
    const Checkpoint::Tensor *selectedTensor() const;
    void setCurrentPane(Pane pane);
    Pane currentPane() const;

    // The file changed or vanished on disk: stop reading its bytes and offer a reload.
    void setStale(const QString &reason);
    bool isStale() const { return m_stale; }

    // "7 tensors · 1,234 parameters · 2.4 KiB · BF16, F32" and "valid" / "invalid: RULE at byte N".
    QString summaryText() const;
    QString validityText() const;

    QTreeView *treeView() const { return m_tree; }
    QLineEdit *filterEdit() const { return m_filter; }
    // "3 of 40 tensors match", or what is wrong with the pattern; hidden without a filter.
    QLabel *filterStatus() const { return m_filterStatus; }
    TensorFilterModel *filterModel() const { return m_proxy; }
    // Ctrl+F: the caret in the filter, its text selected (the Layers mode is left first).
    void focusFilter();
    // The tree as a flat list of full names, or as groups; expansion and selection survive both ways.
    void setFlat(bool flat);
    bool isFlat() const;
    QTabWidget *paneTabs() const { return m_panes; }
    OverviewPane *overviewPane() const { return m_overview; }
    MetadataPane *metadataPane() const { return m_metadata; }
    DiagnosticsPane *diagnosticsPane() const { return m_diagnostics; }
    LayoutMapView *layoutMap() const { return m_layoutMap; }
    HexPane *hexPane() const { return m_hex; }
    // A sharded model's Layout, Hex and Metadata panes show one shard: the selected tensor's
    // until another is picked (the picker beside the pane tabs, or showShard).
    void showShard(std::size_t shard);
    std::size_t shownShard() const;
    ShardPicker *shardPicker() const { return m_shardPicker; } // null for a single file
    HistogramPane *histogramPane() const { return m_histogram; }
    ValuesPane *valuesPane() const { return m_values; }
    HeatmapPane *heatmapPane() const { return m_heatmap; }
    RawCodesSetting *rawCodesSetting() const { return m_rawCodes; }
    AuditView *auditView() const { return m_audit; }
    DepthPane *depthPane() const { return m_depth; }
    // The Layers mode: the tree of repeats instead of the tree of names (built on first use).
    void setLayersMode(bool on);
    bool isLayersMode() const;
    QTreeView *layersTree() const { return m_layersTree; }
    LayersModel *layersModel() const { return m_layersModel; }

    // Shows the audit panel under the document and scans the whole checkpoint in the background.
    void startAudit();
    // Opens a dialog computing each file's SHA-256 in the background.
    void computeSha256();
    // Opens the Export dialog for a tensor (the selected one by default: nullptr and a message
    // when none is selected or its bytes are not in the file). It defaults to the plane the
    // Values pane shows of that tensor.
    ExportDialog *exportTensor(const Checkpoint::Tensor *tensor = nullptr);
    // Locate in the selected tensor: the Values pane scans (or uses its cached scan) and selects
    // the element. What the Histogram pane's and the audit table's Locate entries do.
    void locateInValues(LocateTarget target);
    MessageBar *messageBar() const { return m_bar; }

signals:
    void reloadRequested();
    void currentPaneChanged(int pane);
    // Flat list or Layers mode switched on or off.
    void modeChanged();

private:
    QWidget *createTreeSide();
    void createPanes();
    void onSelectionChanged();
    void updatePane(int pane);
    // `note`, when given, is shown under the Hex pane's element line (hexpane.h).
    void jumpToOffset(quint64 offset, int shard, const QString &tensor, const QString &note = {});
    void copyName();
    void onFilterChanged(const QString &text);
    void onOffsetEntered(quint64 offset);
    QStringList expandedPaths() const;
    void onLayersSelectionChanged();
    std::size_t currentShard() const;

    std::shared_ptr<const Checkpoint> m_checkpoint;
    std::shared_ptr<const QuantView> m_quant; // recognised once, when the view opens
    QString m_title;
    bool m_stale = false;
    QPersistentModelIndex m_current; // in m_model; invalid = the whole checkpoint
    std::size_t m_shard = 0; // the shard whose bytes the file panes show
    std::uint64_t m_missingBytes = 0; // tensors whose bytes run past the end of their file
    ShardPicker *m_shardPicker = nullptr;

    TensorTreeModel *m_model;
    TensorFilterModel *m_proxy;
    MessageBar *m_bar;
    QSplitter *m_splitter;
    QLineEdit *m_filter = nullptr;
    QLabel *m_filterStatus = nullptr;
    QStringList m_expanded; // the tree's expanded groups while the flat list is shown
    QComboBox *m_filterMode = nullptr;
    QToolButton *m_flat = nullptr;
    QToolButton *m_layers = nullptr;
    QTreeView *m_tree = nullptr;
    QTreeView *m_layersTree = nullptr;
    LayersModel *m_layersModel = nullptr;
    QTabWidget *m_panes = nullptr;
    OverviewPane *m_overview = nullptr;
    MetadataPane *m_metadata = nullptr;
    DiagnosticsPane *m_diagnostics = nullptr;
    LayoutMapView *m_layoutMap = nullptr;
    HexPane *m_hex = nullptr;
    HistogramPane *m_histogram = nullptr;
    ValuesPane *m_values = nullptr;
    HeatmapPane *m_heatmap = nullptr;
    RawCodesSetting *m_rawCodes = nullptr; // the panes' shared "Raw codes" choice
    DepthPane *m_depth = nullptr;
    AuditView *m_audit = nullptr; // a panel under the tree and panes, hidden until an audit runs
    std::vector<std::ptrdiff_t> m_auditEntryOfTensor; // the audit's entry of each plain tensor, or -1
    const SafetensorsFile *m_layoutFile = nullptr; // what each file pane shows now
    const SafetensorsFile *m_hexFile = nullptr;
    std::vector<bool> m_dirty; // per pane: shown data is older than the selection
};

} // namespace stb
