#pragma once

#include <array>
#include <cmath>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace stb {

// Statistics of one tensor's values. Counts are exact. min/max/mean/std/absMax are over the
// finite values and NaN when there are none; std is the population standard deviation.
// C64 elements are measured by their magnitude |z| (NaN if either part is NaN, +Inf if either
// part is infinite); BOOL elements are 0 or 1.
struct TensorStats {
    std::uint64_t count = 0;
    std::uint64_t nan = 0;
    std::uint64_t posInf = 0;
    std::uint64_t negInf = 0;
    std::uint64_t zeros = 0;
    std::uint64_t finite = 0;
    double min = NAN;
    double max = NAN;
    double mean = NAN;
    double std = NAN;
    double absMax = NAN;
};

// Equal-width bins over [lo, hi]; every bin half-open except the last, which is closed (as
// numpy.histogram does). Empty when there is no finite value or all finite values are equal.
struct Histogram {
    double lo = 0;
    double hi = 0;
    std::vector<std::uint64_t> counts;

    bool empty() const { return counts.empty(); }
    // The bin a value falls in, or -1 outside [lo, hi] (or not finite).
    int binOf(double value) const;
    double edge(std::size_t i) const { return lo + (hi - lo) * static_cast<double>(i) / static_cast<double>(counts.size()); }
};

// A 128-bit digest of a tensor's bytes (XXH3 over fixed 2^18-element chunks): equal bytes give
// equal digests; different bytes collide with negligible probability (and audit confirms
// duplicates byte for byte anyway).
struct ContentDigest {
    std::uint64_t high = 0;
    std::uint64_t low = 0;
    bool operator==(const ContentDigest &) const = default;
    std::string hex() const;
};

struct TensorAnalysis {
    TensorStats stats;
    Histogram histogram;
    std::uint64_t outliers = 0; // finite values farther than 6 std from the mean
    std::optional<ContentDigest> digest; // when asked for (AnalysisOptions::digest)
};

inline constexpr double kOutlierSigmas = 6.0;

} // namespace stb
