#pragma once

#include "core/compare/compareresult.h"
#include "core/compare/diffhistogram.h"
#include "ui/common/jobtracker.h"

#include <QWidget>

#include <memory>

class QLabel;
class QProgressBar;

namespace stb {

class HistogramChart;
class OverlayChart;

// The selected pair's values: both sides' histograms on shared bins drawn over each other, and a
// histogram of a − b. Both sides are decoded in chunks off the GUI thread; a newer selection
// cancels the job and drops its answer.
class CompareHistogramPane : public QWidget {
    Q_OBJECT
public:
    explicit CompareHistogramPane(QWidget *parent = nullptr);

    // Starts computing the histograms of result->comparison.pairs[pair].
    void showPair(std::shared_ptr<const CompareResult> result, std::size_t pair);
    // A group or nothing selected: no values to draw.
    void clear(const QString &text);

    bool isComputing() const { return m_job.isRunning(); }
    // The histogram jobs, for a test to wait until a cancelled one has returned.
    const JobTrackerBase &jobs() const { return m_job; }
    const DiffHistograms *histograms() const { return m_shown ? &m_histograms : nullptr; }
    OverlayChart *overlayChart() const { return m_overlay; }
    HistogramChart *diffChart() const { return m_diff; }
    QString diffCaption() const;

signals:
    void histogramsShown();

private:
    void stop();
    void show(const DiffHistograms &histograms, const TensorPair &pair);

    OverlayChart *m_overlay;
    HistogramChart *m_diff;
    QLabel *m_diffCaption;
    QProgressBar *m_progress;
    std::shared_ptr<const CompareResult> m_result;
    DiffHistograms m_histograms;
    bool m_shown = false;
    JobTracker<DiffHistograms> m_job;
};

} // namespace stb
