#include "core/layers/layersreport.h"

#include <cmath>
#include <span>

namespace stb {

namespace {

Json number(double value)
{
    return std::isfinite(value) ? Json(value) : Json();
}

// One list per row (or the only row's list), one value per column.
Json series(const Repeat &repeat, const DepthSeries &values)
{
    const std::size_t columns = repeat.indices.size();
    auto row = [&](std::size_t r) {
        Json list = Json::array();
        for (double v : std::span(values).subspan(r * columns, columns))
            list.push_back(number(v));
        return list;
    };
    if (!repeat.nested())
        return row(0);
    Json rows = Json::array();
    for (std::size_t r = 0; r < repeat.rows(); ++r)
        rows.push_back(row(r));
    return rows;
}

Json head(const Repeat &repeat)
{
    Json j;
    j["prefix"] = repeat.prefix;
    if (repeat.nested())
        j["outer_indices"] = repeat.outerIndices;
    j["indices"] = repeat.indices;
    return j;
}

Json repeatJson(const Repeat &repeat, const RepeatProfile *profile)
{
    Json j = head(repeat);
    j["missing"] = repeat.missing;
    if (repeat.missing.size() < repeat.missingCount)
        j["missing_count"] = repeat.missingCount;
    Json roles = Json::array();
    for (const auto &role : repeat.roles)
        roles.push_back(
            { { "name", role.name }, { "dtype", dtypeName(role.dtype) }, { "shape", role.shape } });
    j["roles"] = std::move(roles);
    Json deviations = Json::array();
    for (const auto &d : repeat.deviations) {
        Json row;
        row["index"] = d.index;
        if (d.outerIndex)
            row["outer_index"] = *d.outerIndex;
        row["role"] = d.role;
        row["kind"] = deviationKindName(d.kind);
        row["detail"] = d.detail;
        deviations.push_back(std::move(row));
    }
    j["deviations"] = std::move(deviations);
    if (profile) {
        Json profiles = Json::object();
        for (std::size_t r = 0; r < repeat.roles.size(); ++r) {
            Json stats = Json::object();
            for (std::size_t s = 0; s < kDepthStatCount; ++s)
                stats[std::string(depthStatName(static_cast<DepthStat>(s)))]
                    = series(repeat, profile->roles[r][s]);
            profiles[repeat.roles[r].name] = std::move(stats);
        }
        j["profiles"] = std::move(profiles);
        Json outliers = Json::array();
        for (const auto &o : profile->outliers) {
            Json row;
            // A whole row (a layer whose experts moved together): no single index.
            row["index"] = o.column == kWholeRow ? Json() : Json(repeat.indices[o.column]);
            if (repeat.nested())
                row["outer_index"] = repeat.outerIndices[o.row];
            row["role"] = repeat.roles[o.role].name;
            row["stat"] = depthStatName(o.stat);
            row["value"] = number(o.value);
            row["z"] = number(o.z);
            outliers.push_back(std::move(row));
        }
        j["outliers"] = std::move(outliers);
        // Blocks whose values could not be read: their profile entries are null for that reason.
        Json unreadable = Json::array();
        for (std::size_t position : profile->unreadable)
            unreadable.push_back(repeat.tensorName(position));
        j["unreadable"] = std::move(unreadable);
    }
    if (!repeat.repeats.empty()) {
        Json inner = Json::array();
        for (std::size_t i = 0; i < repeat.repeats.size(); ++i)
            inner.push_back(repeatJson(repeat.repeats[i], profile ? &profile->repeats[i] : nullptr));
        j["repeats"] = std::move(inner);
    }
    return j;
}

Json repeatDiffJson(const Repeat &repeat, const RepeatDiff &diff)
{
    Json j = head(repeat);
    Json roles = Json::object();
    for (std::size_t r = 0; r < repeat.roles.size(); ++r) {
        Json metrics = Json::object();
        for (std::size_t m = 0; m < kDiffMetricCount; ++m)
            metrics[std::string(diffMetricName(static_cast<DiffMetric>(m)))]
                = series(repeat, diff.roles[r][m]);
        roles[repeat.roles[r].name] = std::move(metrics);
    }
    j["roles"] = std::move(roles);
    if (!repeat.repeats.empty()) {
        Json inner = Json::array();
        for (std::size_t i = 0; i < repeat.repeats.size(); ++i)
            inner.push_back(repeatDiffJson(repeat.repeats[i], diff.repeats[i]));
        j["repeats"] = std::move(inner);
    }
    return j;
}

} // namespace

Json layersJson(const std::vector<Repeat> &repeats, const std::vector<RepeatProfile> *profiles)
{
    Json list = Json::array();
    for (std::size_t i = 0; i < repeats.size(); ++i)
        list.push_back(repeatJson(repeats[i], profiles ? &(*profiles)[i] : nullptr));
    return Json { { "repeats", std::move(list) } };
}

Json layerDiffJson(const LayerDiff &diff)
{
    Json list = Json::array();
    for (std::size_t i = 0; i < diff.repeats.size(); ++i)
        list.push_back(repeatDiffJson(diff.repeats[i], diff.diffs[i]));
    return Json { { "repeats", std::move(list) } };
}

} // namespace stb
