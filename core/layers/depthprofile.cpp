#include "core/layers/depthprofile.h"

#include "core/audit/audit.h"
#include "core/io/checkpoint.h"

#include <algorithm>
#include <cmath>

namespace stb {

namespace {

double median(std::vector<double> values)
{
    const std::size_t mid = values.size() / 2;
    std::nth_element(values.begin(), values.begin() + static_cast<std::ptrdiff_t>(mid), values.end());
    const double upper = values[mid];
    if (values.size() % 2)
        return upper;
    return (upper + *std::max_element(values.begin(), values.begin() + static_cast<std::ptrdiff_t>(mid))) / 2;
}

// The median of the finite values, NaN when there are none.
double finiteMedian(std::span<const double> values)
{
    std::vector<double> finite;
    for (double v : values) {
        if (std::isfinite(v))
            finite.push_back(v);
    }
    return finite.empty() ? NAN : median(std::move(finite));
}

// RepeatProfile::unreadable of a profile and the profiles inside it.
void markUnreadable(const Repeat &repeat, RepeatProfile &profile, const std::vector<bool> &unreadable)
{
    for (std::size_t position = 0; position < repeat.table.size(); ++position) {
        const std::size_t tensor = repeat.table[position];
        if (tensor != kNoTensor && tensor < unreadable.size() && unreadable[tensor])
            profile.unreadable.push_back(position);
    }
    for (std::size_t i = 0; i < repeat.repeats.size(); ++i)
        markUnreadable(repeat.repeats[i], profile.repeats[i], unreadable);
}

void collectTensors(const Repeat &repeat, std::vector<std::size_t> &out)
{
    for (std::size_t tensor : repeat.table) {
        if (tensor != kNoTensor)
            out.push_back(tensor);
    }
    for (const auto &inner : repeat.repeats)
        collectTensors(inner, out);
}

} // namespace

std::string_view depthStatName(DepthStat stat)
{
    switch (stat) {
    case DepthStat::Mean:
        return "mean";
    case DepthStat::Std:
        return "std";
    case DepthStat::Rms:
        return "rms";
    case DepthStat::AbsMax:
        return "abs_max";
    case DepthStat::Nonfinite:
        return "nonfinite";
    case DepthStat::ZeroFraction:
        return "zero_fraction";
    }
    return "unknown";
}

double depthStatValue(DepthStat stat, const TensorStats &s)
{
    switch (stat) {
    case DepthStat::Mean:
        return s.mean;
    case DepthStat::Std:
        return s.std;
    case DepthStat::Rms:
        return std::sqrt(s.mean * s.mean + s.std * s.std);
    case DepthStat::AbsMax:
        return s.absMax;
    case DepthStat::Nonfinite:
        return static_cast<double>(s.nan + s.posInf + s.negInf);
    case DepthStat::ZeroFraction:
        return s.count ? static_cast<double>(s.zeros) / static_cast<double>(s.count) : NAN;
    }
    return NAN;
}

std::vector<std::pair<std::size_t, double>> robustOutliers(std::span<const double> series, double threshold)
{
    std::vector<double> finite;
    for (double v : series) {
        if (std::isfinite(v))
            finite.push_back(v);
    }
    if (finite.size() < 3)
        return {};
    const double center = median(finite);
    std::vector<double> deviations;
    double sum = 0;
    for (double v : finite) {
        deviations.push_back(std::abs(v - center));
        sum += deviations.back();
    }
    double scale = 1.4826 * median(deviations);
    if (scale == 0)
        scale = 1.2533 * sum / static_cast<double>(finite.size());
    if (!(scale > 0) || !std::isfinite(scale))
        return {};
    std::vector<std::pair<std::size_t, double>> out;
    for (std::size_t i = 0; i < series.size(); ++i) {
        if (!std::isfinite(series[i]))
            continue;
        const double z = (series[i] - center) / scale;
        if (std::abs(z) > threshold)
            out.emplace_back(i, z);
    }
    return out;
}

RepeatProfile profileRepeat(const Repeat &repeat, const StatsLookup &stats)
{
    RepeatProfile profile;
    const std::size_t columns = repeat.indices.size(), rows = repeat.rows();
    profile.roles.resize(repeat.roles.size());
    for (std::size_t role = 0; role < repeat.roles.size(); ++role) {
        for (std::size_t s = 0; s < kDepthStatCount; ++s) {
            DepthSeries &series = profile.roles[role][s];
            series.assign(rows * columns, NAN);
            for (std::size_t row = 0; row < rows; ++row) {
                for (std::size_t column = 0; column < columns; ++column) {
                    const std::size_t tensor = repeat.tensorAt(row, column, role);
                    if (const TensorStats *st = tensor == kNoTensor ? nullptr : stats(tensor))
                        series[row * columns + column] = depthStatValue(static_cast<DepthStat>(s), *st);
                }
                const std::span<const double> line(series.data() + row * columns, columns);
                for (const auto &[column, z] : robustOutliers(line))
                    profile.outliers.push_back(
                        { row, column, role, static_cast<DepthStat>(s), line[column], z });
            }
            if (rows > 1) {
                // Each row's median over its blocks, compared along depth.
                std::vector<double> medians(rows, NAN);
                for (std::size_t row = 0; row < rows; ++row)
                    medians[row] = finiteMedian(std::span<const double>(series.data() + row * columns, columns));
                for (const auto &[row, z] : robustOutliers(medians))
                    profile.outliers.push_back(
                        { row, kWholeRow, role, static_cast<DepthStat>(s), medians[row], z });
            }
        }
    }
    for (const auto &inner : repeat.repeats)
        profile.repeats.push_back(profileRepeat(inner, stats));
    return profile;
}

std::optional<std::vector<RepeatProfile>> profileRepeats(const Checkpoint &checkpoint,
    std::span<const Repeat> repeats, const AnalysisOptions &options, std::stop_token stop,
    const ProgressFn &progress, const StatsLookup &cached)
{
    std::vector<std::size_t> tensors;
    for (const auto &repeat : repeats)
        collectTensors(repeat, tensors);
    std::sort(tensors.begin(), tensors.end());
    tensors.erase(std::unique(tensors.begin(), tensors.end()), tensors.end());

    std::vector<const TensorStats *> known(checkpoint.tensors().size(), nullptr);
    std::vector<std::size_t> scan;
    for (std::size_t tensor : tensors) {
        if (tensor >= known.size())
            continue;
        known[tensor] = cached ? cached(tensor) : nullptr;
        if (!known[tensor])
            scan.push_back(tensor);
    }
    // The audit's scan still takes a flag: the stop token sets it.
    const auto analyses = analyzeTensors(checkpoint, scan, options, stop, progress);
    if (!analyses)
        return std::nullopt;
    std::vector<bool> unreadable(known.size());
    for (std::size_t k = 0; k < scan.size(); ++k) {
        if ((*analyses)[k])
            known[scan[k]] = &(*analyses)[k]->stats;
        else
            unreadable[scan[k]] = true;
    }

    std::vector<RepeatProfile> profiles;
    const StatsLookup lookup
        = [&](std::size_t tensor) { return tensor < known.size() ? known[tensor] : nullptr; };
    for (const auto &repeat : repeats) {
        profiles.push_back(profileRepeat(repeat, lookup));
        markUnreadable(repeat, profiles.back(), unreadable);
    }
    return profiles;
}

} // namespace stb
