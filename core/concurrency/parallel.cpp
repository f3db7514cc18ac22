#include "core/concurrency/parallel.h"

#include "core/concurrency/threadpool.h"

#include <algorithm>
#include <atomic>
#include <condition_variable>
#include <memory>
#include <mutex>
#include <thread>

namespace stb {

namespace {

// One call's shared state. Helpers that start after the caller closed the loop leave without
// touching `fn` or `stop`, which is why the state is shared and those are only reached while
// registered.
struct Loop {
    const std::function<bool(std::uint64_t, unsigned)> *fn;
    std::uint64_t count;
    std::stop_token stop;
    std::atomic<std::uint64_t> next { 0 };
    std::atomic<bool> stopped { false };

    std::mutex mutex;
    std::condition_variable idle;
    unsigned active = 0; // helpers inside work()
    unsigned nextWorker = 1; // worker 0 is the caller
    bool closed = false; // the caller is done handing out: late helpers leave

    void work(unsigned worker)
    {
        while (!stopped.load(std::memory_order_relaxed)) {
            if (stop.stop_requested()) {
                stopped = true;
                return;
            }
            const std::uint64_t index = next.fetch_add(1);
            if (index >= count)
                return;
            if (!(*fn)(index, worker))
                stopped = true;
        }
    }

    void help()
    {
        unsigned worker;
        {
            std::lock_guard lock(mutex);
            if (closed)
                return;
            worker = nextWorker++;
            ++active;
        }
        work(worker);
        std::lock_guard lock(mutex);
        if (--active == 0)
            idle.notify_all();
    }
};

} // namespace

unsigned threadCount(unsigned requested)
{
    return requested ? requested : std::max(1u, std::thread::hardware_concurrency());
}

bool parallelFor(std::uint64_t count, unsigned threads,
    const std::function<bool(std::uint64_t index, unsigned worker)> &fn, std::stop_token stop)
{
    auto loop = std::make_shared<Loop>();
    loop->fn = &fn;
    loop->count = count;
    loop->stop = stop;
    ThreadPool &pool = ThreadPool::shared();
    // No more helpers than the pool has threads: a task for which no thread could ever be free
    // would only wait in the queue.
    const auto helpers = static_cast<unsigned>(std::min<std::uint64_t>(
        { std::max(1u, threads) - 1, std::max<std::uint64_t>(count, 1) - 1, pool.size() }));
    for (unsigned h = 0; h < helpers; ++h)
        pool.post([loop] { loop->help(); });
    loop->work(0);
    {
        // Wait only for helpers that are running an index: a helper still queued never starts
        // work now, so a pool busy with other loops (or with this loop's caller) cannot block us.
        std::unique_lock lock(loop->mutex);
        loop->closed = true;
        loop->idle.wait(lock, [&] { return loop->active == 0; });
    }
    return !loop->stopped && !stop.stop_requested();
}

} // namespace stb
