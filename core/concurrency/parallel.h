#pragma once

#include <cstdint>
#include <functional>
#include <stop_token>

namespace stb {

// How long work reports how far it is: `done` of `total` units (bytes, tensors, shards: the
// function says which). Called from worker threads, never concurrently with itself.
using ProgressFn = std::function<void(std::uint64_t done, std::uint64_t total)>;

// Runs fn(index, worker) for every index in [0, count) on up to `threads` workers, handing out
// indices in order as workers free up. The caller's thread is worker 0 and works through the
// whole range itself if need be; workers 1.. are helpers borrowed from ThreadPool::shared(), so
// no thread is started per call, the total stays bounded however many loops run at once, and a
// loop inside a loop's fn does not deadlock. Fewer workers than `threads` may run (no more than
// the pool has threads, plus the caller); `worker` < max(threads, 1). Stops early, returning
// false, when fn returns false or a stop is requested through `stop`; true when every index ran.
// Every long function in core takes the same std::stop_token and hands it down to here.
bool parallelFor(std::uint64_t count, unsigned threads,
                 const std::function<bool(std::uint64_t index, unsigned worker)> &fn,
                 std::stop_token stop = {});

// Elements per chunk of parallel work (statistics, comparison): a multiple of 8, so chunks of
// every dtype (4- and 6-bit included) start on a byte boundary; 1 MiB of F32.
inline constexpr std::uint64_t kChunkElements = 1u << 18;

// Hardware threads, at least 1; `requested` when not 0.
unsigned threadCount(unsigned requested = 0);

} // namespace stb
