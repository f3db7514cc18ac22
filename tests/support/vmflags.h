#pragma once

// The VmFlags line of the mapping that holds an address, from /proc/self/smaps: " hg" in it
// means the range was advised MADV_HUGEPAGE.
#include <cstdint>
#include <fstream>
#include <sstream>
#include <string>

namespace stb::test {

// "" when no mapping holds p (or there is no /proc).
inline std::string vmFlagsOf(const void *p)
{
    std::ifstream smaps("/proc/self/smaps");
    const auto address = reinterpret_cast<std::uintptr_t>(p);
    std::string line;
    bool inside = false;
    while (std::getline(smaps, line)) {
        unsigned long begin = 0, end = 0;
        char dash = 0;
        std::istringstream range(line);
        if (range >> std::hex >> begin >> dash >> end && dash == '-') {
            inside = begin <= address && address < end;
            continue;
        }
        if (inside && line.rfind("VmFlags:", 0) == 0)
            return line;
    }
    return {};
}

inline bool adviceRecordedForHugePages(const void *p)
{
    return vmFlagsOf(p).find(" hg") != std::string::npos;
}

// Whether this kernel has transparent huge pages at all: the advice is recorded whatever their
// mode, and a kernel built without them refuses it.
inline bool kernelHasHugePages()
{
    return static_cast<bool>(std::ifstream("/sys/kernel/mm/transparent_hugepage/enabled"));
}

} // namespace stb::test
