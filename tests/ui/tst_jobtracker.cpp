#include "ui/common/jobtracker.h"

#include <QCoreApplication>
#include <QSignalSpy>
#include <QTest>
#include <QThread>
#include <QThreadPool>

#include <atomic>
#include <chrono>
#include <semaphore>
#include <thread>

using namespace stb;

// Every wait below is for an event (a signal, a semaphore), never a fixed sleep before asserting.
class tst_JobTracker : public QObject {
    Q_OBJECT
private slots:
    void initTestCase() { m_pool.setMaxThreadCount(4); } // two jobs at once even on one core
    void deliversResultOnTrackerThread();
    void deliversFailure_data();
    void deliversFailure();
    void dropsStaleResult();
    void cancelStopsWorkThroughStopToken();
    void destructorCancelsAndWaits();
    void progressArrives();
    void resultCallbackMayStartNextJob();

private:
    QThreadPool m_pool; // its own threads: a job blocked in one test never starves the next
};

void tst_JobTracker::deliversResultOnTrackerThread()
{
    JobTracker<int> tracker(nullptr, &m_pool);
    QThread *worker = nullptr;
    std::optional<int> delivered;
    QThread *deliveredOn = nullptr;
    QSignalSpy finished(&tracker, &JobTrackerBase::finished);
    tracker.start(
        [&](std::stop_token, const JobProgress &) -> std::optional<int> {
            worker = QThread::currentThread();
            return 42;
        },
        [&](std::optional<int> result) {
            delivered = result;
            deliveredOn = QThread::currentThread();
        });
    QVERIFY(tracker.isRunning());
    QVERIFY(finished.wait());
    QCOMPARE(delivered, std::optional<int>(42));
    QCOMPARE(deliveredOn, QCoreApplication::instance()->thread());
    QVERIFY(worker != deliveredOn);
    QVERIFY(!tracker.isRunning());
    QVERIFY(tracker.isIdle());
    QCOMPARE(tracker.jobsStarted(), 1);
}

void tst_JobTracker::deliversFailure_data()
{
    QTest::addColumn<bool>("throws");
    QTest::newRow("nullopt") << false;
    QTest::newRow("exception") << true;
}

// A job without a result (core's "could not read") is delivered as nullopt, an exception too.
void tst_JobTracker::deliversFailure()
{
    QFETCH(bool, throws);
    JobTracker<int> tracker(nullptr, &m_pool);
    int calls = 0;
    std::optional<int> delivered = 7;
    QSignalSpy finished(&tracker, &JobTrackerBase::finished);
    tracker.start(
        [throws](std::stop_token, const JobProgress &) -> std::optional<int> {
            if (throws)
                throw std::bad_alloc();
            return std::nullopt;
        },
        [&](std::optional<int> result) {
            ++calls;
            delivered = result;
        });
    QVERIFY(finished.wait());
    QCOMPARE(calls, 1);
    QVERIFY(!delivered);
}

// The first job finishes after the second started and ignores its stop request: its result
// must still never be delivered.
void tst_JobTracker::dropsStaleResult()
{
    JobTracker<int> tracker(nullptr, &m_pool);
    std::binary_semaphore release(0);
    std::vector<int> delivered;
    QSignalSpy idle(&tracker, &JobTrackerBase::idle);
    const auto done = [&](std::optional<int> result) { delivered.push_back(result.value_or(-1)); };
    tracker.start(
        [&](std::stop_token, const JobProgress &) -> std::optional<int> {
            release.acquire();
            return 1;
        },
        done);
    tracker.start([](std::stop_token, const JobProgress &) -> std::optional<int> { return 2; }, done);
    release.release();
    QVERIFY(idle.wait());
    QVERIFY(tracker.isIdle());
    QCOMPARE(delivered, std::vector<int> { 2 });
    QCOMPARE(tracker.jobsStarted(), 2);
}

// The work loops until its stop_token says stop; cancel() must make that happen.
void tst_JobTracker::cancelStopsWorkThroughStopToken()
{
    JobTracker<int> tracker(nullptr, &m_pool);
    std::binary_semaphore running(0);
    std::atomic<bool> sawStop { false };
    bool delivered = false;
    QSignalSpy cancelled(&tracker, &JobTrackerBase::cancelled);
    QSignalSpy finished(&tracker, &JobTrackerBase::finished);
    QSignalSpy idle(&tracker, &JobTrackerBase::idle);
    tracker.start(
        [&](std::stop_token stop, const JobProgress &) -> std::optional<int> {
            running.release();
            while (!stop.stop_requested())
                std::this_thread::yield();
            sawStop = true;
            return 3;
        },
        [&](std::optional<int>) { delivered = true; });
    running.acquire();
    tracker.cancel();
    QCOMPARE(cancelled.count(), 1); // at once, not when the work returns
    QVERIFY(!tracker.isRunning());
    QVERIFY(idle.wait());
    QVERIFY(sawStop);
    QVERIFY(!delivered);
    QCOMPARE(finished.count(), 0);
    tracker.cancel(); // nothing running: no second signal
    QCOMPARE(cancelled.count(), 1);
}

// Destroying the tracker mid-job asks the job to stop and returns only once it has returned;
// the job takes a while after the stop request so that not waiting would be seen.
void tst_JobTracker::destructorCancelsAndWaits()
{
    std::binary_semaphore running(0);
    std::atomic<bool> returned { false };
    bool delivered = false;
    {
        JobTracker<int> tracker(nullptr, &m_pool);
        tracker.start(
            [&](std::stop_token stop, const JobProgress &) -> std::optional<int> {
                running.release();
                while (!stop.stop_requested())
                    std::this_thread::yield();
                std::this_thread::sleep_for(std::chrono::milliseconds(100));
                returned = true;
                return 4;
            },
            [&](std::optional<int>) { delivered = true; });
        running.acquire();
    }
    QVERIFY(returned);
    QCoreApplication::processEvents(); // nothing queued may reach the callback now
    QVERIFY(!delivered);
}

// Progress reaches the tracker's thread as 0..1000; the job waits until its first value arrived.
void tst_JobTracker::progressArrives()
{
    JobTracker<int> tracker(nullptr, &m_pool);
    std::binary_semaphore seen(0);
    QList<int> values;
    connect(&tracker, &JobTrackerBase::progressChanged, this, [&](int value) {
        if (value > 0 && !values.contains(value) && (values.isEmpty() || values.last() == 0))
            seen.release(); // the first value the job reported (a 0 may come first, from the start)
        values.append(value);
    });
    QSignalSpy finished(&tracker, &JobTrackerBase::finished);
    tracker.start(
        [&](std::stop_token, const JobProgress &progress) -> std::optional<int> {
            progress(1, 4);
            seen.acquire();
            progress(0, 4); // never backwards
            progress(4, 4);
            return 5;
        },
        [](std::optional<int>) {});
    QVERIFY(finished.wait());
    QVERIFY(values.contains(250));
    QVERIFY(std::is_sorted(values.begin(), values.end()));
    QVERIFY(values.last() <= 1000);
}

// A callback that starts the next job (a chain, as the SHA-256 dialog hashes shard after shard).
void tst_JobTracker::resultCallbackMayStartNextJob()
{
    JobTracker<int> tracker(nullptr, &m_pool);
    std::vector<int> delivered;
    QSignalSpy idle(&tracker, &JobTrackerBase::idle);
    std::function<void(int)> next = [&](int i) {
        tracker.start([i](std::stop_token, const JobProgress &) -> std::optional<int> { return i; },
            [&, i](std::optional<int> result) {
                delivered.push_back(*result);
                if (i < 3)
                    next(i + 1);
            });
    };
    next(1);
    QVERIFY(idle.wait());
    QCOMPARE(delivered, (std::vector<int> { 1, 2, 3 }));
    QCOMPARE(idle.count(), 1);
}

QTEST_GUILESS_MAIN(tst_JobTracker)
#include "tst_jobtracker.moc"
