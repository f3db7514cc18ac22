// parallelFor over the shared pool: every index once, stop, nesting, bounded threads.
#include "core/concurrency/parallel.h"
#include "core/concurrency/threadpool.h"

#include <QTest>

#include <atomic>
#include <stop_token>
#include <mutex>
#include <set>
#include <thread>
#include <vector>

using namespace stb;
using namespace Qt::StringLiterals;

namespace {

// Threads that ever ran a loop body. A thread_local mark is fresh in every new thread, even one
// that reuses an old thread's id, so fresh threads per call would all be counted.
std::atomic<int> g_threadsSeen { 0 };
thread_local bool t_seen = false;

void noteThread()
{
    if (!std::exchange(t_seen, true))
        ++g_threadsSeen;
}

} // namespace

class tst_Parallel : public QObject {
    Q_OBJECT
private slots:
    void everyIndexOnce_data();
    void everyIndexOnce();
    void stopsWhenFnFails();
    void cancelFlag();
    void nestedLoopsFinish();
    void threadsStayBounded();
};

void tst_Parallel::everyIndexOnce_data()
{
    QTest::addColumn<quint64>("count");
    QTest::addColumn<unsigned>("threads");
    QTest::newRow("none") << quint64(0) << 4u;
    QTest::newRow("one index") << quint64(1) << 4u;
    QTest::newRow("one thread") << quint64(1000) << 1u;
    QTest::newRow("threads 0") << quint64(1000) << 0u;
    QTest::newRow("more threads than cores") << quint64(10000) << 64u;
}

void tst_Parallel::everyIndexOnce()
{
    QFETCH(quint64, count);
    QFETCH(unsigned, threads);
    std::vector<std::atomic<int>> runs(count);
    std::atomic<bool> workerInRange { true };
    QVERIFY(parallelFor(count, threads, [&](std::uint64_t i, unsigned worker) {
        ++runs[i];
        if (worker >= std::max(1u, threads))
            workerInRange = false;
        return true;
    }));
    for (const auto &n : runs)
        QCOMPARE(n.load(), 1);
    QVERIFY(workerInRange);
}

void tst_Parallel::stopsWhenFnFails()
{
    std::atomic<std::uint64_t> ran { 0 };
    QVERIFY(!parallelFor(100000, 4, [&](std::uint64_t i, unsigned) {
        ++ran;
        return i != 10;
    }));
    QVERIFY(ran < 100000);
}

void tst_Parallel::cancelFlag()
{
    std::stop_source before;
    before.request_stop();
    std::atomic<int> ran { 0 };
    QVERIFY(!parallelFor(100, 4, [&](std::uint64_t, unsigned) { return ++ran, true; }, before.get_token()));
    QCOMPARE(ran.load(), 0);

    std::stop_source midway;
    std::atomic<std::uint64_t> ran2 { 0 };
    QVERIFY(!parallelFor(
        100000, 4,
        [&](std::uint64_t i, unsigned) {
            ++ran2;
            if (i == 50)
                midway.request_stop();
            return true;
        },
        midway.get_token()));
    QVERIFY(ran2 < 100000); // stopped early, not run to the end
}

// Loops inside a loop's body, from several threads at once, more threads asked than the pool
// has: every caller works through its own range if no helper comes, so nothing waits forever.
void tst_Parallel::nestedLoopsFinish()
{
    std::atomic<std::uint64_t> sum { 0 };
    std::vector<std::thread> callers;
    for (int c = 0; c < 3; ++c) {
        callers.emplace_back([&] {
            parallelFor(16, 8, [&](std::uint64_t, unsigned) {
                return parallelFor(64, 8, [&](std::uint64_t j, unsigned) {
                    sum += j;
                    return true;
                });
            });
        });
    }
    for (auto &t : callers)
        t.join();
    QCOMPARE(sum.load(), std::uint64_t(3 * 16 * (63 * 64 / 2)));
}

// Many loops, one after another and three at once (histogram, audit and compare together): the
// threads that ever run a body are the callers plus the one pool, never fresh ones per call.
void tst_Parallel::threadsStayBounded()
{
    const auto body = [](std::uint64_t, unsigned) {
        noteThread();
        std::this_thread::yield();
        return true;
    };
    for (int i = 0; i < 50; ++i)
        parallelFor(64, 8, body);
    std::vector<std::thread> callers;
    for (int c = 0; c < 3; ++c) {
        callers.emplace_back([&] {
            for (int i = 0; i < 50; ++i)
                parallelFor(64, 8, body);
        });
    }
    for (auto &t : callers)
        t.join();
    const int bound = 1 + 3 + static_cast<int>(ThreadPool::shared().size());
    QVERIFY2(g_threadsSeen <= bound,
        qPrintable(
            u"%1 threads ran loop bodies, at most %2 expected"_s.arg(g_threadsSeen.load()).arg(bound)));
    QVERIFY(ThreadPool::shared().size() >= 1);
}

QTEST_GUILESS_MAIN(tst_Parallel)
#include "tst_parallel.moc"
