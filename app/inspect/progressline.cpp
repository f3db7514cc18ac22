#include "progressline.h"

#include "core/text/textformat.h"

#include <cstdio>
#include <unistd.h>

namespace stb::inspect {

namespace {

// Below this much work (bytes or elements) a scan ends before a percentage means anything.
constexpr std::uint64_t kDefaultMinWork = 1ull << 24;

} // namespace

ProgressLine::ProgressLine(const std::string &label, std::uint64_t minWork)
    : m_label(printable(label))
    , m_enabled(::isatty(STDERR_FILENO) == 1)
    , m_minWork(minWork ? minWork : kDefaultMinWork)
{ }

ProgressLine::~ProgressLine()
{
    if (m_enabled && m_lastPercent >= 0)
        std::fputs("\r\033[K", stderr);
}

void ProgressLine::operator()(std::uint64_t done, std::uint64_t total)
{
    if (!m_enabled || total < m_minWork)
        return;
    const int percent
        = total ? static_cast<int>(100.0 * static_cast<double>(done) / static_cast<double>(total)) : 100;
    std::lock_guard lock(m_mutex);
    if (percent == m_lastPercent)
        return;
    m_lastPercent = percent;
    std::fprintf(stderr, "\r%s: %d%%", m_label.c_str(), percent);
    std::fflush(stderr);
}

} // namespace stb::inspect
