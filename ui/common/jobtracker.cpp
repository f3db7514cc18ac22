#include "ui/common/jobtracker.h"

#include <QFutureWatcher>
#include <QPointer>
#include <QPromise>
#include <QThreadPool>
#include <QtConcurrent>

#include <algorithm>

namespace stb {

struct JobTrackerBase::Job {
    QFutureWatcher<void> *watcher; // a child of the tracker, deleted later once finished
    std::stop_source stop;
};

namespace {

constexpr int kProgressMax = 1000;

int permille(std::uint64_t done, std::uint64_t total)
{
    if (total == 0)
        return 0;
    return static_cast<int>(kProgressMax * std::min(1.0, double(done) / double(total)));
}

} // namespace

JobTrackerBase::JobTrackerBase(QObject *parent, QThreadPool *pool)
    : QObject(parent)
    , m_pool(pool ? pool : QThreadPool::globalInstance())
{ }

JobTrackerBase::~JobTrackerBase()
{
    ++m_generation;
    for (const auto &job : m_jobs)
        job->stop.request_stop();
    waitForIdle();
}

void JobTrackerBase::cancel()
{
    ++m_generation; // even a result already on its way is dropped
    for (const auto &job : m_jobs)
        job->stop.request_stop();
    if (std::exchange(m_running, false))
        emit cancelled();
}

void JobTrackerBase::waitForIdle()
{
    for (const auto &job : m_jobs)
        job->watcher->waitForFinished();
}

void JobTrackerBase::launch(Runner work, std::function<void()> deliver)
{
    for (const auto &job : m_jobs)
        job->stop.request_stop(); // superseded: stop early, its result is dropped by generation
    const quint64 generation = ++m_generation;
    m_running = true;
    ++m_started;

    auto *job = m_jobs.emplace_back(std::make_unique<Job>(Job { new QFutureWatcher<void>(this), {} })).get();
    // Connected before setFuture, so no progress or end is missed.
    connect(job->watcher, &QFutureWatcherBase::progressValueChanged, this, [this, generation](int value) {
        if (generation == m_generation)
            emit progressChanged(value);
    });
    connect(job->watcher, &QFutureWatcherBase::finished, this,
        [this, job, generation, deliver = std::move(deliver)] { onJobFinished(job, generation, deliver); });

    auto run = [](QPromise<void> &promise, const Runner &work, std::stop_token stop) {
        promise.setProgressRange(0, kProgressMax);
        const JobProgress progress = [&promise](std::uint64_t done, std::uint64_t total) {
            promise.setProgressValue(permille(done, total)); // QPromise ignores values that do not grow
        };
        try {
            work(std::move(stop), progress);
        } catch (...) {
            // Core throws nothing on purpose; a std::bad_alloc deep inside a scan is reported as a
            // failed job (no result) rather than taking the program down from a pool thread.
        }
    };
    job->watcher->setFuture(QtConcurrent::run(m_pool, run, std::move(work), job->stop.get_token()));
}

void JobTrackerBase::onJobFinished(Job *job, quint64 generation, const std::function<void()> &deliver)
{
    job->watcher->deleteLater();
    // The callback below may start a new job, so `deliver` is copied off the job's connection
    // and the job is gone from the list before it runs.
    const auto keep = deliver;
    std::erase_if(m_jobs, [job](const auto &j) { return j.get() == job; });
    const QPointer<JobTrackerBase> self(this);
    if (generation == m_generation && m_running) {
        m_running = false;
        keep();
        if (!self)
            return; // the callback closed the owner
        emit finished();
    }
    if (self && m_jobs.empty())
        emit idle();
}

} // namespace stb
