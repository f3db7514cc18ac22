#pragma once

#include <condition_variable>
#include <deque>
#include <functional>
#include <mutex>
#include <stop_token>
#include <thread>
#include <vector>

namespace stb {

// The one set of worker threads core's parallel loops borrow helpers from, so that a histogram,
// an audit and a comparison running together share the cores instead of each starting its own
// threads. Started on first use, joined at exit. A task must never wait for another queued task
// (a queued task may not start before the waiter returns): parallelFor's helpers only run loop
// indices, and the loop's caller does all the work itself if no helper starts.
class ThreadPool {
public:
    // The process-wide pool: one thread per hardware thread less the caller's, at least one.
    static ThreadPool &shared();

    explicit ThreadPool(unsigned threads);
    ~ThreadPool(); // drops the tasks not started, joins the threads
    ThreadPool(const ThreadPool &) = delete;
    ThreadPool &operator=(const ThreadPool &) = delete;

    // Queues `task` to run on one of the pool's threads. Thread-safe.
    void post(std::function<void()> task);
    unsigned size() const { return static_cast<unsigned>(m_threads.size()); }

private:
    void run(std::stop_token stop);

    std::mutex m_mutex;
    std::condition_variable_any m_wake;
    std::deque<std::function<void()>> m_tasks;
    std::vector<std::jthread> m_threads; // last: joined before the queue goes
};

} // namespace stb
