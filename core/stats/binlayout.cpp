#include "core/stats/binlayout.h"

#include <algorithm>
#include <array>
#include <cmath>
#include <vector>

namespace stb {

namespace {

// Integer ranges up to here are binned on whole numbers; beyond it doubles stop being exact.
constexpr double kLargestGridCells = 4503599627370496.0; // 2^52

bool narrowFloat(DType dtype)
{
    return dtypeInfo(dtype).kind == DTypeKind::Float && dtypeBits(dtype) <= 16;
}

// The finite, non-negative values of each narrow float dtype, sorted and distinct: at most 2^15
// of them, built once (about a millisecond) on first use.
const std::vector<double> &magnitudes(DType dtype)
{
    static const auto tables = [] {
        std::array<std::vector<double>, kDTypeCount> all;
        for (const DTypeInfo &info : allDTypes()) {
            if (!narrowFloat(info.dtype))
                continue;
            auto &values = all[static_cast<std::size_t>(info.dtype)];
            for (std::uint64_t code = 0; code < (std::uint64_t(1) << info.bits); ++code) {
                const double v = decodeCode(info.dtype, code);
                if (std::isfinite(v) && v >= 0)
                    values.push_back(v);
            }
            std::sort(values.begin(), values.end());
            values.erase(std::unique(values.begin(), values.end()), values.end());
        }
        return all;
    }();
    return tables[static_cast<std::size_t>(dtype)];
}

} // namespace

double gridStep(DType dtype, double min, double max)
{
    switch (dtypeInfo(dtype).kind) {
    case DTypeKind::Bool:
    case DTypeKind::Unsigned:
    case DTypeKind::Signed:
        return 1;
    case DTypeKind::Complex:
        return 0;
    case DTypeKind::Float:
        break;
    }
    if (!narrowFloat(dtype))
        return 0;
    // Sign and magnitude: the spacing grows with the magnitude, so the coarsest gap in the range
    // is the one just below its largest magnitude.
    const double top = std::max(std::fabs(min), std::fabs(max));
    const auto &values = magnitudes(dtype);
    const auto it = std::lower_bound(values.begin(), values.end(), top);
    if (it == values.end())
        return 0; // beyond the dtype's range: no grid to align to
    return it == values.begin() ? *it : *it - *(it - 1);
}

BinLayout layoutBins(DType dtype, double min, double max, unsigned requested)
{
    requested = std::max(1u, requested);
    const BinLayout numpy { min, max, requested };
    const double step = gridStep(dtype, min, max);
    if (!(step > 0) || !(min < max))
        return numpy;
    // Grid points are k * step (or finer, in the smaller binades of a float): cell k is
    // [(k - 0.5) step, (k + 0.5) step). A power-of-two step keeps all of this exact.
    const double first = std::floor(min / step + 0.5), last = std::floor(max / step + 0.5);
    const double cells = last - first + 1;
    if (!(cells <= kLargestGridCells) || !(std::fabs(min) <= kLargestGridCells * step)
        || !(std::fabs(max) <= kLargestGridCells * step))
        return numpy;
    const double width = std::ceil(cells / requested); // cells per bin
    const double bins = std::ceil(cells / width);
    const double lo = (first - 0.5) * step;
    return { lo, lo + bins * width * step, static_cast<unsigned>(bins) };
}

} // namespace stb
