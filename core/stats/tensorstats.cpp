#include "core/stats/tensorstats.h"

#include "core/stats/statskernels.h"

#include <cstdio>

namespace stb {

int Histogram::binOf(double value) const
{
    if (counts.empty())
        return -1;
    return kernels::binIndex(kernels::makeBinPlan(lo, hi, static_cast<unsigned>(counts.size()), 0, 0), value);
}

std::string ContentDigest::hex() const
{
    char buffer[33];
    std::snprintf(buffer, sizeof buffer, "%016llx%016llx", static_cast<unsigned long long>(high),
                  static_cast<unsigned long long>(low));
    return buffer;
}

} // namespace stb
