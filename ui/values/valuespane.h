#pragma once

#include "core/io/checkpoint.h"
#include "core/quant/dequantvalues.h"
#include "core/values/locate.h"
#include "ui/common/jobtracker.h"
#include "ui/values/locatemenu.h"

#include <QHash>
#include <QWidget>

#include <memory>

class QCheckBox;
class QLabel;
class QLineEdit;
class QProgressBar;
class QSpinBox;
class QTableView;
class QToolButton;

namespace stb {

class PaneTitle;
class PlaneSelector;
class ValueTableModel;

// The Values tab: the selected tensor's values in a virtual table (only visible cells are read),
// a plane picker for N-D tensors, a precision control, "go to" by flat or N-D index, Locate
// (first NaN/Inf, min, max, largest |x|: scanned in the background, cached per tensor) and copy
// as tab-separated text. A recognised quantized weight shows its dequantized values in its logical
// shape (decoded a tile of visible cells at a time) unless "Raw codes" is ticked.
class ValuesPane : public QWidget {
    Q_OBJECT
public:
    static constexpr qsizetype kMaxCopyCells = 1'000'000;

    explicit ValuesPane(std::shared_ptr<const Checkpoint> checkpoint, QWidget *parent = nullptr);
    ~ValuesPane() override;

    // The tensor to show; nullptr for a group or nothing.
    void showTensor(const Checkpoint::Tensor *tensor);
    // The checkpoint's quantization: a recognised weight's codes are shown as its dequantized
    // values unless rawCodesToggle() is ticked. Null: every tensor as stored.
    void setQuantView(std::shared_ptr<const QuantView> view);
    QCheckBox *rawCodesToggle() const { return m_raw; }
    // Whether the grid shows a quantized weight's dequantized values.
    bool showsDequantized() const { return m_dequantized.has_value(); }
    // Shows the tensor's element (switching the plane when needed) and selects it; false when
    // no tensor is shown or the index is out of range.
    bool goToElement(std::uint64_t flat);
    // "1234" (flat) or "3, 17" (one index per axis); false with a message for anything else.
    bool goToText(const QString &text);
    // Scans the tensor (or uses the cached scan), then goes to the target and says what it found
    // ("Maximum 7.5 at [1, 2, 3], flat 23"); located() reports whether there was such an element.
    // The one Locate path: the Histogram pane and the audit table come here too.
    void locate(LocateTarget target);
    // "Show in Hex" for the current cell: byteRequested with its first byte (a dequantized value:
    // the first byte holding its code, and a note saying which bits and how many values share
    // them); false without one.
    bool showCurrentInHex();
    // Tab-separated values of the selection's bounding rectangle, rows on lines.
    QString selectionText() const;

    const Checkpoint::Tensor *tensor() const { return m_tensor; }
    ValueTableModel *model() const { return m_model; }
    QTableView *table() const { return m_table; }
    PlaneSelector *planeSelector() const { return m_plane; }
    QSpinBox *precisionBox() const { return m_precision; }
    QString messageText() const;
    bool isLocating() const { return m_locate.isRunning(); }

signals:
    // Locate ended: found the element, or there is none (message set).
    void located(bool found);
    // "Show in Hex" on a cell: the element's first byte in the file of shard `shard`; `note`
    // says more when the value is not the byte's alone (a packed code), else empty.
    void byteRequested(quint64 offset, int shard, const QString &note);

private:
    void reload();
    void applyPlane();
    // Elements and shape of what the grid shows: the tensor's, or the weight's logical ones.
    std::uint64_t shownElements() const;
    void copySelection();
    void showContextMenu(const QPoint &position);
    void goToLocated(LocateTarget target, const LocateResult &result);
    struct CellBytes {
        quint64 offset = 0; // in the shard's file
        QString note; // for a packed code: its bits, and the values sharing its byte
    };
    std::optional<CellBytes> byteOf(const QModelIndex &cell) const;
    void setMessage(const QString &text);

    std::shared_ptr<const Checkpoint> m_checkpoint;
    const Checkpoint::Tensor *m_tensor = nullptr;
    std::shared_ptr<const QuantView> m_quant;
    std::optional<DequantizedTensor> m_dequantized; // the shown tensor's, when its values are dequantized
    PaneTitle *m_title;
    QCheckBox *m_raw;
    PlaneSelector *m_plane;
    QSpinBox *m_precision;
    QLineEdit *m_goTo;
    QToolButton *m_locateButton;
    QProgressBar *m_progress;
    QLabel *m_message;
    QTableView *m_table;
    ValueTableModel *m_model;
    // Scans done, per tensor of this document and per reading (true: dequantized).
    QHash<QPair<const TensorInfo *, bool>, LocateResult> m_located;
    JobTracker<LocateResult> m_locate; // last: cancelled and waited for first
};

} // namespace stb
