#pragma once

#include <cstdint>
#include <mutex>
#include <string>

namespace stb::inspect {

// "LABEL: 42%" redrawn in place on stderr while a long command scans, only when stderr is a
// terminal (scripts read clean output); erased when the object goes away. The label is escaped
// here: it usually holds a path. Work of fewer than `minWork` units (the `total` the core
// reports) is too short to show. Safe to call from several threads.
class ProgressLine {
public:
    explicit ProgressLine(const std::string &label, std::uint64_t minWork = 0);
    ~ProgressLine();
    ProgressLine(const ProgressLine &) = delete;
    ProgressLine &operator=(const ProgressLine &) = delete;

    // Callable as a core ProgressFn; redraws only when the percentage changes.
    void operator()(std::uint64_t done, std::uint64_t total);

private:
    std::string m_label;
    bool m_enabled = false;
    std::uint64_t m_minWork = 0;
    int m_lastPercent = -1;
    std::mutex m_mutex;
};

} // namespace stb::inspect
