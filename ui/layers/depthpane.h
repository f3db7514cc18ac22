#pragma once

#include "core/io/checkpoint.h"
#include "core/layers/depthprofile.h"
#include "core/layers/repeat.h"
#include "ui/common/jobtracker.h"

#include <QWidget>

#include <functional>
#include <map>
#include <memory>

class QLabel;
class QProgressBar;
class QToolButton;

namespace stb {

class DepthChart;
class DepthView;

// The Depth tab: a repeat's depth profiles (DepthView: one line per role, one statistic at a
// time, outliers marked). Statistics come from `known` (the histogram cache) or are computed in
// the background through a JobTracker with progress and Cancel, cancelled when another repeat is
// chosen. Clicking a point asks for that block's tensor.
class DepthPane : public QWidget {
    Q_OBJECT
public:
    // Statistics already computed for a tensor (index into Checkpoint::tensors()), or nullptr.
    // Called on the GUI thread only.
    using KnownStats = std::function<const TensorStats *(std::size_t tensor)>;

    DepthPane(std::shared_ptr<const Checkpoint> checkpoint, QWidget *parent = nullptr);
    ~DepthPane() override;

    void setKnownStats(KnownStats known) { m_known = std::move(known); }
    // Shows a repeat (nullptr: a hint); `role` >= 0 is drawn alone at first. The repeat must
    // outlive the pane (the layers model holds it).
    void setRepeat(const Repeat *repeat, int role = -1);
    void setStat(DepthStat stat);
    // Stops the running computation.
    void cancel();

    const Repeat *repeat() const { return m_repeat; }
    const RepeatProfile *profile() const;
    bool isComputing() const { return m_job.isRunning(); }
    DepthView *view() const { return m_view; }
    DepthChart *chart() const;

signals:
    void tensorActivated(std::size_t tensor);
    // The newest computation ended (profile() is set unless it failed).
    void profileReady();

private:
    void compute();
    void show(const RepeatProfile &profile);

    std::shared_ptr<const Checkpoint> m_checkpoint;
    KnownStats m_known;
    const Repeat *m_repeat = nullptr;
    std::map<const Repeat *, RepeatProfile> m_profiles;
    DepthView *m_view;
    QLabel *m_status;
    QProgressBar *m_progress;
    QToolButton *m_cancel;
    JobTracker<RepeatProfile> m_job; // last: cancelled and waited for before the members it reads
};

} // namespace stb
