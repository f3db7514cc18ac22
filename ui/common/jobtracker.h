#pragma once

#include <QObject>

#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <stop_token>
#include <utility>
#include <vector>

class QThreadPool;

namespace stb {

// What a job calls to report progress: `done` of `total` units (bytes, tensors: any unit). Safe
// to call from any thread, as often as per chunk; the same type as core's ProgressFn, so a job
// hands it straight to core.
using JobProgress = std::function<void(std::uint64_t done, std::uint64_t total)>;

// The untyped half of JobTracker: the signals and the bookkeeping. Use JobTracker<T>.
class JobTrackerBase : public QObject {
    Q_OBJECT
public:
    // Cancel, then wait: every job still running (cancelled or superseded ones included) has
    // returned when the destructor does, so a job may use whatever outlives its tracker.
    ~JobTrackerBase() override;

    // The newest job is running (not finished, not cancelled).
    bool isRunning() const { return m_running; }
    // No job runs at all any more, cancelled and superseded ones included.
    bool isIdle() const { return m_jobs.empty(); }
    int jobsStarted() const { return m_started; }

    // Drops the newest job's result at once (cancelled() is emitted now if one was running) and
    // asks every running job to stop through its stop_token. Does not wait.
    void cancel();
    // Blocks until every job has returned (for owners that must not outlive their jobs' inputs;
    // panes rarely need it: the destructor does it). No callback runs inside.
    void waitForIdle();

signals:
    // The newest job's progress, 0..1000, on the GUI thread. Values only grow within a job.
    void progressChanged(int permille);
    // The newest job ended and its result (or its failure) was delivered; after the callback.
    void finished();
    // cancel() dropped a running job.
    void cancelled();
    // The last running job returned, cancelled ones included: the moment to assert that a
    // dropped result never arrived.
    void idle();

protected:
    using Runner = std::function<void(std::stop_token, const JobProgress &)>;
    explicit JobTrackerBase(QObject *parent, QThreadPool *pool);
    // Supersedes the running job and runs `work` on the pool; `deliver` runs on this object's
    // thread after `work` returned, only if this job is still the newest and was not cancelled.
    void launch(Runner work, std::function<void()> deliver);

private:
    struct Job;
    void onJobFinished(Job *job, quint64 generation, const std::function<void()> &deliver);

    QThreadPool *m_pool;
    std::vector<std::unique_ptr<Job>> m_jobs; // running, including cancelled and superseded ones
    quint64 m_generation = 0; // bumped by launch and cancel: results of older generations drop
    bool m_running = false;
    int m_started = 0;
};

// Runs a pane's long work off the GUI thread, the one way the UI does (after KDAB Hotspot's
// JobTracker and Qt Creator's Utils::Async):
//
//     m_job.start([file, info](std::stop_token stop, const JobProgress &progress) {
//         return analyzeTensor(..., stop, progress);         // std::optional<T>
//     }, [this](std::optional<TensorAnalysis> result) {    // GUI thread, newest job only
//         result ? show(*result) : showFailure();
//     });
//
// - start() supersedes the running job: it is asked to stop and its result is dropped, so only
//   the newest job's result is ever delivered (a generation counter, as in Hotspot).
// - The work runs on a QThreadPool (the global one unless given) with a std::stop_token that
//   cancel(), a newer start() or the destructor trigger; core's long functions take it as is.
// - Progress reported through the JobProgress callback arrives as progressChanged(0..1000).
// - The result callback runs on the tracker's thread with the work's std::optional<T>: nullopt
//   means the work failed (or threw). A cancelled or superseded job's callback never runs.
// - The work must not touch widgets; capture what it reads by value (shared_ptrs), or make the
//   tracker a member declared after what the work reads by reference: the destructor cancels and
//   waits, so the work never outlives it.
template<typename T> class JobTracker : public JobTrackerBase {
public:
    using Work = std::function<std::optional<T>(std::stop_token, const JobProgress &)>;
    using Done = std::function<void(std::optional<T> result)>;

    explicit JobTracker(QObject *parent = nullptr, QThreadPool *pool = nullptr)
        : JobTrackerBase(parent, pool)
    { }

    void start(Work work, Done done)
    {
        // Written by the worker, read on this thread once the job's future has finished.
        auto result = std::make_shared<std::optional<T>>();
        launch([work = std::move(work), result](std::stop_token stop,
                   const JobProgress &progress) { *result = work(std::move(stop), progress); },
            [result, done = std::move(done)] { done(std::move(*result)); });
    }
};

} // namespace stb
