#pragma once

#include "core/io/checkpoint.h"
#include "core/quant/dequantvalues.h"
#include "core/values/stridedview.h"
#include "ui/common/jobtracker.h"

#include <QDialog>

#include <memory>
#include <optional>
#include <string>

class QCheckBox;
class QComboBox;
class QDialogButtonBox;
class QLabel;
class QLineEdit;
class QProgressBar;
class QPushButton;
class QRadioButton;
class QSpinBox;

namespace stb {

// Export… for one tensor: .npy (or CSV for a 1-D/2-D slice up to a size limit the user sets),
// narrow floats as float32 values or as their raw codes, the Values pane's plane, the whole
// tensor or a NumPy-style slice, written to a chosen file in the background (progress, Cancel)
// through core's atomic writers: a failure says why and leaves no file behind. A recognised
// quantized weight is written as its dequantized float32 values in its logical shape unless
// "Raw codes" is ticked (then its stored codes tensor, as any tensor).
class ExportDialog : public QDialog {
    Q_OBJECT
public:
    enum class Format { Npy, Csv };
    enum class Scope { Plane, Whole, Slice };
    static constexpr int kDefaultCsvLimit = 1000000;

    // `plane` is what the Values pane shows of this tensor (nullopt: its default plane), of the
    // logical shape when `dequantized` is given and `raw` is false. `dequantized`: the tensor holds
    // a quantized weight's codes; `raw` ticks "Raw codes" from the start (the panes' setting).
    ExportDialog(std::shared_ptr<const Checkpoint> checkpoint, const Checkpoint::Tensor &tensor,
        std::optional<StridedView> plane, QWidget *parent = nullptr,
        std::optional<DequantizedTensor> dequantized = std::nullopt, bool raw = false);
    ~ExportDialog() override;

    void setFormat(Format format);
    void setScope(Scope scope);
    void setSliceText(const QString &spec);
    void setRaw(bool raw);
    void setCsvLimit(int values);
    void setTarget(const QString &path);
    QString target() const;

    // The view the choices name, or nullopt with the reason (a bad slice, CSV of 3 axes, a CSV
    // larger than the limit). What the dialog shows under the choices.
    std::optional<StridedView> chosenView(QString &why) const;
    // Checks the choices and starts writing in the background; false (message shown, nothing
    // written) when they are refused.
    bool startExport();
    bool isExporting() const { return m_job.isRunning(); }
    const JobTrackerBase &jobs() const { return m_job; }
    QString messageText() const;
    QString conversionText() const;
    QCheckBox *rawBox() const { return m_raw; }
    // Whether the chosen export is a quantized weight's dequantized values.
    bool dequantizing() const;

signals:
    // The file is in place (the dialog then closes).
    void exported(const QString &path);
    // Writing failed or was refused; `reason` is also shown in the dialog.
    void failed(const QString &reason);

protected:
    void reject() override;

private:
    // The shape the scopes and slices refer to: the weight's logical one when dequantizing.
    const std::vector<std::uint64_t> &shownShape() const;
    StridedView defaultPlane() const;
    QString planeDescription() const;
    void browse();
    void updateChoices();
    void fail(const QString &reason);

    std::shared_ptr<const Checkpoint> m_checkpoint;
    const Checkpoint::Tensor &m_tensor;
    StridedView m_plane;
    std::optional<StridedView> m_givenPlane;
    std::optional<DequantizedTensor> m_dequantized;
    bool m_givenRaw = false; // the reading m_givenPlane belongs to
    QComboBox *m_format;
    QCheckBox *m_raw;
    QLabel *m_conversion;
    QRadioButton *m_planeScope;
    QRadioButton *m_wholeScope;
    QRadioButton *m_sliceScope;
    QLineEdit *m_slice;
    QSpinBox *m_csvLimit;
    QLineEdit *m_target;
    QLabel *m_message;
    QProgressBar *m_progress;
    QDialogButtonBox *m_buttons;
    QPushButton *m_export;
    JobTracker<std::string> m_job; // last: cancelled and waited for first
};

} // namespace stb
