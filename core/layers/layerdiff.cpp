#include "core/layers/layerdiff.h"

#include "core/layers/repeatdetector.h"

#include <cmath>

namespace stb {

namespace {

RepeatDiff diffOf(const Repeat &repeat, const Comparison &comparison)
{
    RepeatDiff diff;
    const std::size_t cells = repeat.rows() * repeat.indices.size();
    diff.roles.resize(repeat.roles.size());
    for (std::size_t role = 0; role < repeat.roles.size(); ++role) {
        for (std::size_t m = 0; m < kDiffMetricCount; ++m) {
            DepthSeries &series = diff.roles[role][m];
            series.assign(cells, NAN);
            for (std::size_t cell = 0; cell < cells; ++cell) {
                const std::size_t pair = repeat.table[cell * repeat.roles.size() + role];
                if (pair != kNoTensor)
                    series[cell] = diffMetricValue(static_cast<DiffMetric>(m), comparison.pairs[pair]);
            }
        }
    }
    for (const auto &inner : repeat.repeats)
        diff.repeats.push_back(diffOf(inner, comparison));
    return diff;
}

} // namespace

std::string_view diffMetricName(DiffMetric metric)
{
    return metric == DiffMetric::RelL2 ? "rel_l2" : "cosine";
}

double diffMetricValue(DiffMetric metric, const TensorPair &pair)
{
    if (!pair.a || !pair.b || !pair.readable)
        return NAN;
    if (pair.status == PairStatus::Identical)
        return metric == DiffMetric::RelL2 ? 0.0 : 1.0;
    if (!pair.metrics)
        return NAN;
    return metric == DiffMetric::RelL2 ? pair.metrics->relL2 : pair.metrics->cosine;
}

LayerDiff diffByLayer(const Comparison &comparison)
{
    // Either side's entry names the pair; shapes and dtypes come from A where it has the tensor.
    // A name only an index lists (a shard missing on both sides) has neither: its name alone
    // keeps its place in the repeats.
    std::vector<const TensorInfo *> infos;
    infos.reserve(comparison.pairs.size());
    std::size_t nameless = 0;
    for (const auto &pair : comparison.pairs)
        nameless += !pair.a && !pair.b;
    std::vector<TensorInfo> namesOnly;
    namesOnly.reserve(nameless); // no reallocation: infos point into it
    for (const auto &pair : comparison.pairs) {
        if (pair.a || pair.b) {
            infos.push_back(pair.a ? pair.a->info : pair.b->info);
            continue;
        }
        namesOnly.emplace_back().name = pair.name;
        infos.push_back(&namesOnly.back());
    }
    LayerDiff result;
    result.repeats = detectRepeats(infos);
    for (const auto &repeat : result.repeats)
        result.diffs.push_back(diffOf(repeat, comparison));
    return result;
}

} // namespace stb
