#include "core/compare/comparereport.h"

#include "core/audit/auditreport.h"
#include "core/text/textformat.h"

namespace stb {

namespace {

Json number(double value)
{
    return std::isfinite(value) ? Json(value) : Json();
}

// A dequantized weight's side: the dtype of its codes, its logical shape and "scheme".
Json sideJson(const Comparison &comparison, const TensorPair &pair, bool sideA)
{
    const auto side = pairSide(comparison, pair, sideA);
    if (!side)
        return nullptr;
    const Checkpoint::Tensor *t = sideA ? pair.a : pair.b;
    Json j = { { "dtype", dtypeName(t->info->dtype) }, { "shape", side->shape } };
    if (side->quantized)
        j["scheme"] = side->type;
    return j;
}

} // namespace

std::string pairSideText(const Comparison &comparison, const TensorPair &pair, bool sideA)
{
    const auto side = pairSide(comparison, pair, sideA);
    return side ? side->type + " " + formatShape(side->shape) : std::string("-");
}

std::string comparisonSummaryText(const Comparison &comparison)
{
    static const PairStatus order[] = { PairStatus::Changed, PairStatus::DTypeChanged,
        PairStatus::ShapeChanged, PairStatus::OnlyInA, PairStatus::OnlyInB, PairStatus::Identical };
    static const char *const words[]
        = { "identical", "changed", "dtype changed", "shape changed", "only in a", "only in b" };
    std::string out;
    for (PairStatus status : order) {
        const std::size_t n = comparison.counts[static_cast<std::size_t>(status)];
        if (!n)
            continue;
        if (!out.empty())
            out += ", ";
        out += std::to_string(n) + " " + words[static_cast<std::size_t>(status)];
    }
    return out.empty() ? std::string("no tensors") : out;
}

Json comparisonJson(const Checkpoint &a, const Checkpoint &b, const Comparison &comparison)
{
    Json j;
    j["a"] = a.path();
    j["b"] = b.path();
    Json tensors = Json::array();
    for (const auto &pair : comparison.pairs) {
        Json row;
        row["name"] = pair.name;
        row["status"] = statusName(pair.status);
        row["a"] = sideJson(comparison, pair, true);
        row["b"] = sideJson(comparison, pair, false);
        if (pair.metrics) {
            const DiffMetrics &m = *pair.metrics;
            row["max_abs_diff"] = m.compared ? Json(m.maxAbsDiff) : Json();
            row["argmax"] = m.compared ? Json(m.argmax) : Json();
            row["mean_abs_diff"] = number(m.meanAbsDiff);
            row["rel_l2"] = number(m.relL2);
            row["cosine"] = number(m.cosine);
            row["n_different"] = m.different;
            row["nan_a"] = m.nanA;
            row["nan_b"] = m.nanB;
            row["inf_a"] = m.infA;
            row["inf_b"] = m.infB;
            row["n_out_of_tolerance"] = m.outOfTolerance;
        } else if (pair.status == PairStatus::Identical && pair.readable) {
            // Equal bytes: the differences are zero without reading any value.
            row["max_abs_diff"] = 0.0;
            row["argmax"] = nullptr;
            row["mean_abs_diff"] = 0.0;
            row["rel_l2"] = 0.0;
            row["cosine"] = nullptr;
            row["n_different"] = 0;
        } else {
            for (const char *key :
                { "max_abs_diff", "argmax", "mean_abs_diff", "rel_l2", "cosine", "n_different" })
                row[key] = nullptr;
        }
        if (!pair.readable)
            row["readable"] = false;
        tensors.push_back(std::move(row));
    }
    j["tensors"] = std::move(tensors);
    Json changed = Json::object();
    for (const auto &[key, values] : comparison.metadata.changed)
        changed[key] = { values.first, values.second };
    j["metadata"] = { { "added", comparison.metadata.added }, { "removed", comparison.metadata.removed },
        { "changed", changed } };
    Json summary = Json::object();
    for (std::size_t s = 0; s < kPairStatusCount; ++s)
        summary[std::string(statusName(static_cast<PairStatus>(s)))] = comparison.counts[s];
    j["summary"] = summary;
    j["equivalent"] = comparison.equivalent;
    return j;
}

std::string comparisonMarkdown(const Checkpoint &a, const Checkpoint &b, const Comparison &comparison)
{
    std::string out
        = "# `" + a.path() + "` vs `" + b.path() + "`\n\n**" + comparisonSummaryText(comparison) + "**\n\n";
    out += "| tensor | status | a | b | max abs diff | at | mean abs diff | rel L2 | cosine | different |\n"
           "|---|---|---|---|---:|---:|---:|---:|---:|---:|\n";
    for (const auto &pair : comparison.pairs) {
        if (pair.status == PairStatus::Identical)
            continue;
        const auto &m = pair.metrics;
        auto metric = [&](double v) { return m ? formatValue(v) : std::string(); };
        out += "| `" + printable(pair.name) + "` | " + std::string(statusName(pair.status)) + " | "
            + pairSideText(comparison, pair, true) + " | " + pairSideText(comparison, pair, false) + " | "
            + metric(m ? m->maxAbsDiff : 0) + " | " + (m ? std::to_string(m->argmax) : std::string()) + " | "
            + metric(m ? m->meanAbsDiff : 0) + " | " + metric(m ? m->relL2 : 0) + " | "
            + metric(m ? m->cosine : 0) + " | " + (m ? formatCount(m->different) : std::string()) + " |\n";
    }
    if (!comparison.metadata.added.empty() || !comparison.metadata.removed.empty()
        || !comparison.metadata.changed.empty()) {
        out += "\n## `__metadata__`\n\n";
        for (const auto &[k, v] : comparison.metadata.added)
            out += "- added `" + printable(k) + "`: `" + printable(v) + "`\n";
        for (const auto &[k, v] : comparison.metadata.removed)
            out += "- removed `" + printable(k) + "`: `" + printable(v) + "`\n";
        for (const auto &[k, v] : comparison.metadata.changed)
            out += "- changed `" + printable(k) + "`: `" + printable(v.first) + "` → `" + printable(v.second)
                + "`\n";
    }
    return out;
}

} // namespace stb
