#pragma once

#include "core/stats/kernels/kernelchoice.h"

#include <algorithm>
#include <chrono>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <ctime>
#include <fstream>
#include <span>
#include <string>
#include <thread>
#include <utility>
#include <vector>

#include <sys/resource.h>

namespace stb::bench {

// Wall time in milliseconds of one call of fn.
template<typename Fn> double elapsedMs(Fn &&fn)
{
    const auto start = std::chrono::steady_clock::now();
    fn();
    return std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
}

inline double median(std::vector<double> times)
{
    std::sort(times.begin(), times.end());
    return times[times.size() / 2];
}

// Median wall time in milliseconds of `runs` calls of fn.
template<typename Fn> double medianMs(int runs, Fn &&fn)
{
    std::vector<double> times;
    for (int i = 0; i < runs; ++i)
        times.push_back(elapsedMs(fn));
    return median(std::move(times));
}

// Medians in milliseconds of `runs` runs each of two functions, run in turn (a, b, a, b, ...):
// for a ratio of the two, so that a change of the machine's speed during the measurement (other
// tenants, memory bandwidth) reaches both alike. Measured one after the other, the raw read's
// median moved between 31 and 62 GB/s from run to run while the audit's stayed within 10%.
template<typename FnA, typename FnB>
std::pair<double, double> alternatingMediansMs(int runs, FnA &&a, FnB &&b)
{
    std::vector<double> timesA, timesB;
    for (int i = 0; i < runs; ++i) {
        timesA.push_back(elapsedMs(a));
        timesB.push_back(elapsedMs(b));
    }
    return { median(std::move(timesA)), median(std::move(timesB)) };
}

// Which statistics kernels run and on how many cores, printed first by every benchmark so that
// each number says what produced it (STB_KERNELS=portable forces the portable kernels).
inline void printKernels()
{
    std::printf("kernels: %s (STB_KERNELS=%s), %u hardware threads\n", stb::kernels::activeKernelName(),
        std::getenv("STB_KERNELS") ? std::getenv("STB_KERNELS") : "unset",
        std::max(1u, std::thread::hardware_concurrency()));
}

// Median CPU time in milliseconds of `runs` calls of fn, on `clock`: CLOCK_THREAD_CPUTIME_ID
// (the calling thread: fn must run on it) or CLOCK_PROCESS_CPUTIME_ID (every thread of the
// process: for fn that runs on worker threads). On a machine shared with other work, wall time
// counts the time slices others took; this does not.
template<typename Fn> double medianCpuMs(clockid_t clock, int runs, Fn &&fn)
{
    auto now = [clock] {
        timespec t {};
        ::clock_gettime(clock, &t);
        return t.tv_sec * 1e3 + t.tv_nsec / 1e6;
    };
    std::vector<double> times;
    for (int i = 0; i < runs; ++i) {
        const double start = now();
        fn();
        times.push_back(now() - start);
    }
    std::sort(times.begin(), times.end());
    return times[times.size() / 2];
}

template<typename Fn> double medianThreadCpuMs(int runs, Fn &&fn)
{
    return medianCpuMs(CLOCK_THREAD_CPUTIME_ID, runs, std::forward<Fn>(fn));
}

// Median CPU time (user + system) in milliseconds of `runs` runs of a shell command and the
// processes it starts: like medianThreadCpuMs, robust to other work on a shared machine.
inline double medianChildCpuMs(int runs, const std::string &command)
{
    auto childrenMs = [] {
        rusage usage {};
        ::getrusage(RUSAGE_CHILDREN, &usage);
        const auto ms = [](const timeval &t) { return t.tv_sec * 1e3 + t.tv_usec / 1e3; };
        return ms(usage.ru_utime) + ms(usage.ru_stime);
    };
    std::vector<double> times;
    for (int i = 0; i < runs; ++i) {
        const double start = childrenMs();
        (void)std::system(command.c_str());
        times.push_back(childrenMs() - start);
    }
    std::sort(times.begin(), times.end());
    return times[times.size() / 2];
}

// Runs a shell command and returns its standard output.
inline std::string capture(const std::string &command)
{
    std::string out;
    if (FILE *pipe = ::popen(command.c_str(), "r")) {
        char buffer[4096];
        std::size_t n;
        while ((n = std::fread(buffer, 1, sizeof buffer, pipe)) > 0)
            out.append(buffer, n);
        ::pclose(pipe);
    }
    return out;
}

// Shared by the benchmarks: the raw read of a mapping and the anonymous memory in use.
// Sum of 64-bit words over [begin, end): what any reader of the bytes must at least do.
inline std::uint64_t sumWords(const std::byte *data, std::size_t words)
{
    const auto *p = reinterpret_cast<const std::uint64_t *>(data);
    std::uint64_t a = 0, b = 0, c = 0, d = 0;
    std::size_t i = 0;
    for (; i + 4 <= words; i += 4)
        a += p[i], b += p[i + 1], c += p[i + 2], d += p[i + 3];
    for (; i < words; ++i)
        a += p[i];
    return a + b + c + d;
}

inline std::uint64_t parallelSum(std::span<const std::byte> bytes, unsigned threads)
{
    const std::size_t words = bytes.size() / 8;
    std::vector<std::uint64_t> sums(threads, 0);
    std::vector<std::thread> pool;
    const std::size_t share = (words + threads - 1) / threads;
    for (unsigned t = 0; t < threads; ++t) {
        const std::size_t begin = std::min(words, t * share), end = std::min(words, begin + share);
        pool.emplace_back([&, t, begin, end] { sums[t] = sumWords(bytes.data() + begin * 8, end - begin); });
    }
    for (auto &t : pool)
        t.join();
    std::uint64_t total = 0;
    for (auto s : sums)
        total += s;
    return total;
}

// The kB value of the /proc/self/status line starting with `key` ("VmHWM", "RssAnon:"), or -1.
inline long statusKb(const char *key)
{
    std::ifstream status("/proc/self/status");
    std::string line;
    while (std::getline(status, line)) {
        if (line.rfind(key, 0) == 0)
            return std::stol(line.substr(line.find(':') + 1));
    }
    return -1;
}

// Anonymous resident memory (VmRSS minus file-backed pages) in kB, from /proc/self/status.
inline long anonymousKb()
{
    return std::max(0L, statusKb("RssAnon:")) + std::max(0L, statusKb("RssShmem:"));
}

} // namespace stb::bench
