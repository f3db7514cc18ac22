#include "core/compare/comparereport.h"

#include "core/audit/auditreport.h"
#include "core/text/textformat.h"

#include <algorithm>

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

std::string_view statusText(PairStatus status)
{
    switch (status) {
    case PairStatus::Identical:
        return "identical";
    case PairStatus::Changed:
        return "changed";
    case PairStatus::DTypeChanged:
        return "dtype changed";
    case PairStatus::ShapeChanged:
        return "shape changed";
    case PairStatus::OnlyInA:
        return "only in A";
    case PairStatus::OnlyInB:
        return "only in B";
    case PairStatus::Unreadable:
        return "unreadable";
    }
    return "";
}

std::string unreadableSidesText(const Checkpoint &a, const Checkpoint &b, const TensorPair &pair)
{
    if (pair.readable)
        return {};
    std::string out;
    for (const bool sideA : { true, false }) {
        const std::string why = sideUnreadableReason(sideA ? a : b, pair, sideA);
        if (!why.empty())
            out += std::string(out.empty() ? "" : "; ") + (sideA ? "in A: " : "in B: ") + why;
    }
    return out;
}

std::string tolerancesText(const CompareOptions &options)
{
    if (!options.tolerances)
        return "none: every byte compared";
    return "atol " + formatValue(options.atol) + ", rtol " + formatValue(options.rtol)
        + " (|a − b| ≤ atol + rtol·|b| counts as equal)";
}

std::string comparisonSummaryText(const Comparison &comparison, bool tolerances)
{
    // Unreadable first: nothing is known about those, the others are known differences.
    static const PairStatus order[] = { PairStatus::Unreadable, PairStatus::Changed, PairStatus::DTypeChanged,
        PairStatus::ShapeChanged, PairStatus::OnlyInA, PairStatus::OnlyInB, PairStatus::Identical };
    std::size_t within = 0;
    for (const auto &pair : comparison.pairs)
        within += withinTolerance(pair, tolerances);
    std::string out;
    auto add = [&](std::size_t n, std::string_view words) {
        if (!n)
            return;
        if (!out.empty())
            out += " · ";
        out += formatCount(n) + " " + std::string(words);
    };
    for (PairStatus status : order) {
        std::size_t n = comparison.counts[static_cast<std::size_t>(status)];
        if (status == PairStatus::Changed)
            n -= std::min(n, within);
        add(n, statusText(status));
        if (status == PairStatus::Changed)
            add(within, "within tolerance");
    }
    return out.empty() ? std::string("no tensors") : out;
}

Json comparisonJson(
    const Checkpoint &a, const Checkpoint &b, const Comparison &comparison, const CompareOptions &options)
{
    Json j;
    j["a"] = a.path();
    j["b"] = b.path();
    j["tolerances"] = options.tolerances ? Json({ { "atol", options.atol }, { "rtol", options.rtol } }) : Json();
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
            // No element differs: no place where the largest difference is.
            row["argmax"] = m.compared && m.maxAbsDiff > 0 ? Json(m.argmax) : Json();
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
        if (!pair.readable) {
            row["readable"] = false;
            Json why = Json::object();
            for (const bool sideA : { true, false }) {
                const std::string reason = sideUnreadableReason(sideA ? a : b, pair, sideA);
                why[sideA ? "a" : "b"] = reason.empty() ? Json() : Json(reason);
            }
            row["unreadable"] = std::move(why);
        }
        if (withinTolerance(pair, options.tolerances))
            row["within_tolerance"] = true;
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
    std::size_t within = 0;
    for (const auto &pair : comparison.pairs)
        within += withinTolerance(pair, options.tolerances);
    summary["within_tolerance"] = within;
    summary["text"] = comparisonSummaryText(comparison, options.tolerances);
    j["summary"] = summary;
    j["equivalent"] = comparison.equivalent;
    return j;
}

std::string comparisonMarkdown(
    const Checkpoint &a, const Checkpoint &b, const Comparison &comparison, const CompareOptions &options)
{
    std::string out = "# `" + a.path() + "` vs `" + b.path() + "`\n\n**"
        + comparisonSummaryText(comparison, options.tolerances) + "**\n\nTolerances: " + tolerancesText(options)
        + "\n\n";
    out += "| tensor | status | a | b | max abs diff | at | mean abs diff | rel L2 | cosine | different |\n"
           "|---|---|---|---|---:|---:|---:|---:|---:|---:|\n";
    for (const auto &pair : comparison.pairs) {
        if (pair.status == PairStatus::Identical)
            continue;
        const auto &m = pair.metrics;
        auto metric = [&](double v) { return m ? formatValue(v) : std::string(); };
        const bool located = m && m->compared && m->maxAbsDiff > 0; // "at" only where something differs
        const std::string status = std::string(statusText(pair.status))
            + (withinTolerance(pair, options.tolerances) ? " (within tolerance)" : "");
        out += "| `" + printable(pair.name) + "` | " + status + " | " + pairSideText(comparison, pair, true)
            + " | " + pairSideText(comparison, pair, false) + " | " + metric(m ? m->maxAbsDiff : 0) + " | "
            + (located ? std::to_string(m->argmax) : std::string()) + " | " + metric(m ? m->meanAbsDiff : 0)
            + " | " + metric(m ? m->relL2 : 0) + " | " + metric(m ? m->cosine : 0) + " | "
            + (m ? formatCount(m->different) : std::string()) + " |\n";
    }
    bool unreadableHeading = false;
    for (const auto &pair : comparison.pairs) {
        if (pair.readable)
            continue;
        if (!unreadableHeading)
            out += "\n## Unreadable\n\n";
        unreadableHeading = true;
        out += "- `" + printable(pair.name) + "` " + unreadableSidesText(a, b, pair) + "\n";
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
