#pragma once

#include "core/io/checkpoint.h"
#include "core/quant/dequantizer.h"
#include "core/quant/quantview.h"
#include "ui/common/jobtracker.h"
#include "ui/histogram/analysiscache.h"
#include "ui/values/locatemenu.h"

#include <QWidget>

#include <array>
#include <memory>

class QCheckBox;
class QComboBox;
class QLabel;
class QProgressBar;
class QStackedWidget;
class QToolButton;

namespace stb {

class HistogramChart;
class PaneTitle;

// The Histogram tab: the selected tensor's values as a histogram, with their statistics beside
// it. The scan runs off the GUI thread with progress, is cancelled when the selection moves on
// (a stale result is dropped by generation) or the pane is hidden, and lands in a per-document
// cache keyed by tensor and bin count, so coming back is instant.
class HistogramPane : public QWidget {
    Q_OBJECT
public:
    enum Statistic {
        Elements,
        NaNs,
        PosInf,
        NegInf,
        Zeros,
        Min,
        Max,
        Mean,
        Std,
        AbsMax,
        Outliers,
        Digest,
        StatisticCount
    };

    explicit HistogramPane(std::shared_ptr<const Checkpoint> checkpoint, QWidget *parent = nullptr);

    // The tensor to show (from the cache, else scanned now); nullptr for a group or nothing.
    void showTensor(const Checkpoint::Tensor *tensor);
    // The checkpoint's quantization: a recognised weight's codes are shown as its dequantized
    // values unless the "Raw codes" box is ticked. Null: every tensor as stored.
    void setQuantView(std::shared_ptr<const QuantView> view);
    // Whether what is on screen (or being scanned) is a quantized weight's dequantized values.
    bool showsDequantized() const { return m_dequantizer.has_value(); }
    QCheckBox *rawCodesToggle() const { return m_raw; }
    // The file changed on disk: show what is cached, scan nothing more.
    void setStale(bool stale);

    void setBins(unsigned bins);
    unsigned bins() const;
    void setLogarithmic(bool logarithmic);
    bool isLogarithmic() const;

    AnalysisCache &cache() { return m_cache; }
    // What is on screen: nullptr while scanning or when there is nothing to show.
    const TensorAnalysis *analysis() const { return m_shown ? &m_analysis : nullptr; }
    bool isComputing() const { return m_job.isRunning(); }
    int jobsStarted() const { return m_job.jobsStarted(); }
    // The scans, for a test to wait until a cancelled one has returned.
    const JobTrackerBase &jobs() const { return m_job; }
    QString statisticText(Statistic statistic) const;
    QString messageText() const;
    HistogramChart *chart() const { return m_chart; }
    QComboBox *binsBox() const { return m_bins; }
    QCheckBox *logToggle() const { return m_log; }
    QProgressBar *progressBar() const { return m_progress; }
    QToolButton *locateButton() const { return m_locate; }

signals:
    // A result is on screen (cached or just computed).
    void analysisShown();
    // Locate on the shown tensor: its first NaN, minimum, … in the Values pane.
    void locateRequested(LocateTarget target);

protected:
    void showEvent(QShowEvent *event) override;
    void hideEvent(QHideEvent *event) override;

private:
    QWidget *createStatistics();
    void refresh();
    void startJob();
    void cancelJob();
    void showAnalysis(const TensorAnalysis &analysis);
    void showMessage(const QString &text);

    std::shared_ptr<const Checkpoint> m_checkpoint;
    std::shared_ptr<const QuantView> m_quant;
    const Checkpoint::Tensor *m_tensor = nullptr;
    std::optional<Dequantizer> m_dequantizer; // the shown tensor's, when its values are dequantized
    QString m_scheme; // "gptq 4-bit, [4096, 11008]" for the title
    AnalysisCache m_cache;
    TensorAnalysis m_analysis;
    bool m_shown = false;
    bool m_resume = false; // a scan was cancelled by hiding the pane: restart it when shown
    bool m_stale = false;
    JobTracker<TensorAnalysis> m_job;

    PaneTitle *m_title;
    QComboBox *m_bins;
    QCheckBox *m_log;
    QCheckBox *m_raw;
    QToolButton *m_locate;
    QProgressBar *m_progress;
    QStackedWidget *m_stack;
    QLabel *m_message;
    HistogramChart *m_chart;
    QLabel *m_note;
    std::array<QLabel *, StatisticCount> m_values {};
};

} // namespace stb
