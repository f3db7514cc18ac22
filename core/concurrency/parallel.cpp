#include "core/concurrency/parallel.h"

#include <algorithm>
#include <thread>
#include <vector>

namespace stb {

unsigned threadCount(unsigned requested)
{
    return requested ? requested : std::max(1u, std::thread::hardware_concurrency());
}

bool parallelFor(std::uint64_t count, unsigned threads,
                 const std::function<bool(std::uint64_t index, unsigned worker)> &fn, const std::atomic<bool> *cancel)
{
    std::atomic<std::uint64_t> next{0};
    std::atomic<bool> stopped{false};
    auto work = [&](unsigned worker) {
        while (!stopped.load(std::memory_order_relaxed)) {
            if (cancel && cancel->load(std::memory_order_relaxed)) {
                stopped = true;
                return;
            }
            const std::uint64_t index = next.fetch_add(1);
            if (index >= count)
                return;
            if (!fn(index, worker))
                stopped = true;
        }
    };
    const auto workers = static_cast<unsigned>(std::min<std::uint64_t>(std::max(1u, threads), std::max<std::uint64_t>(count, 1)));
    std::vector<std::thread> pool;
    pool.reserve(workers - 1);
    for (unsigned w = 1; w < workers; ++w)
        pool.emplace_back(work, w);
    work(0);
    for (auto &t : pool)
        t.join();
    return !stopped && !(cancel && cancel->load());
}

} // namespace stb
