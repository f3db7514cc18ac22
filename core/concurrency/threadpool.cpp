#include "core/concurrency/threadpool.h"

#include <algorithm>

namespace stb {

ThreadPool &ThreadPool::shared()
{
    static ThreadPool pool(std::max(2u, std::thread::hardware_concurrency()) - 1); // at least one
    return pool;
}

ThreadPool::ThreadPool(unsigned threads)
{
    m_threads.reserve(threads);
    for (unsigned i = 0; i < threads; ++i)
        m_threads.emplace_back([this](std::stop_token stop) { run(stop); });
}

ThreadPool::~ThreadPool()
{
    for (auto &thread : m_threads)
        thread.request_stop();
    m_threads.clear(); // joins
}

void ThreadPool::post(std::function<void()> task)
{
    {
        std::lock_guard lock(m_mutex);
        m_tasks.push_back(std::move(task));
    }
    m_wake.notify_one();
}

void ThreadPool::run(std::stop_token stop)
{
    for (;;) {
        std::function<void()> task;
        {
            std::unique_lock lock(m_mutex);
            if (!m_wake.wait(lock, stop, [this] { return !m_tasks.empty(); }))
                return; // stop requested
            task = std::move(m_tasks.front());
            m_tasks.pop_front();
        }
        task();
    }
}

} // namespace stb
