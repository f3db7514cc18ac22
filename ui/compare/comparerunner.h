#pragma once

#include "core/compare/compareresult.h"
#include "ui/common/jobtracker.h"

#include <QObject>

#include <memory>

namespace stb {

// Runs compareCheckpoints off the GUI thread through a JobTracker: progress 0..1000, Cancel, and
// only the newest request's answer is delivered. The destructor cancels and waits, so no job
// outlives the checkpoints' owner.
class CompareRunner : public QObject {
    Q_OBJECT
public:
    explicit CompareRunner(QObject *parent = nullptr);

    void start(std::shared_ptr<const Checkpoint> a, std::shared_ptr<const Checkpoint> b,
        const CompareOptions &options);
    // Drops the running job's answer at once (`cancelled` is emitted now) and stops its threads.
    void cancel() { m_job.cancel(); }
    bool isRunning() const { return m_job.isRunning(); }
    // The comparisons, for a test to wait until a cancelled one has returned.
    const JobTrackerBase &jobs() const { return m_job; }

signals:
    void progressChanged(int permille);
    void finished(std::shared_ptr<const stb::CompareResult> result);
    void cancelled();
    void failed(const QString &reason);

private:
    using ResultPtr = std::shared_ptr<const CompareResult>;
    JobTracker<ResultPtr> m_job;
};

} // namespace stb
