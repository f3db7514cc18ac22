#include "bylayer.h"
#include "command.h"
#include "progressline.h"
#include "texttable.h"

#include "core/audit/auditreport.h"
#include "core/compare/comparereport.h"
#include "core/text/textformat.h"

#include <cstdio>
#include <functional>
#include <limits>
#include <memory>

namespace stb::inspect {

namespace {

const OptionSpec kDiffOptions[] = {
    kJsonOption,
    { "atol", "X", "Absolute tolerance: values within atol + rtol*|b| count as equal." },
    { "rtol", "Y", "Relative tolerance." },
    { "by-layer", "", "Relative L2 and cosine per role over the blocks of each repeated structure (layers)." },
    { "raw", "", "Quantized weights' stored codes and companions instead of their dequantized values." },
};

// Exit 0 when the checkpoints hold the same names, dtypes and shapes and every value is within
// tolerance (without --atol/--rtol: every byte equal), 1 otherwise (a tensor that cannot be read
// on either side included).
int runDiff(const Invocation &invocation)
{
    const std::string &pathA = invocation.files()[0];
    const std::string &pathB = invocation.files()[1];
    CompareOptions compare;
    for (const auto &[option, target] :
        { std::pair { "atol", &compare.atol }, std::pair { "rtol", &compare.rtol } }) {
        if (!invocation.number(
                option, 0, std::numeric_limits<double>::max(), "a non-negative number", *target))
            return Usage;
        compare.tolerances = compare.tolerances || invocation.isSet(option);
    }
    std::string error;
    const auto a = Checkpoint::open(pathA, error);
    if (!a) {
        std::fprintf(stderr, "%s: cannot read: %s\n", printable(pathA).c_str(), error.c_str());
        return Usage;
    }
    const auto b = Checkpoint::open(pathB, error);
    if (!b) {
        std::fprintf(stderr, "%s: cannot read: %s\n", printable(pathB).c_str(), error.c_str());
        return Usage;
    }
    if (!invocation.isSet("raw")) { // quantized weights on their dequantized values
        compare.quantA = std::make_shared<const QuantView>(QuantView::buildWithConfig(*a));
        compare.quantB = std::make_shared<const QuantView>(QuantView::buildWithConfig(*b));
    }
    std::optional<Comparison> comparison;
    {
        ProgressLine progress("comparing");
        comparison = compareCheckpoints(*a, *b, compare, {}, std::ref(progress));
    }
    if (!comparison) {
        std::fprintf(stderr, "a file changed on disk during the comparison\n");
        return Usage;
    }
    if (invocation.isSet("by-layer")) {
        printByLayer(*comparison, invocation.isSet(kJsonOption.name));
        return comparison->equivalent ? Ok : Findings;
    }
    if (invocation.isSet(kJsonOption.name)) {
        std::printf("%s\n", jsonText(comparisonJson(*a, *b, *comparison, compare)).c_str());
        return comparison->equivalent ? Ok : Findings;
    }
    TextTable table({ "NAME", "STATUS", "A", "B", "MAX_ABS_DIFF", "AT", "MEAN_ABS_DIFF", "REL_L2", "COSINE",
                        "DIFFERENT" },
        { false, false, false, false, true, true, true, true, true, true });
    std::size_t rows = 0;
    auto value = [](double v) {
        char buffer[32];
        std::snprintf(buffer, sizeof buffer, "%.6g", v);
        return std::isfinite(v) ? std::string(buffer) : std::string("-");
    };
    for (const auto &pair : comparison->pairs) {
        if (pair.status == PairStatus::Identical)
            continue;
        ++rows;
        const auto &m = pair.metrics;
        table.addRow({ printable(pair.name), std::string(statusName(pair.status)),
            pairSideText(*comparison, pair, true), pairSideText(*comparison, pair, false),
            m ? value(m->maxAbsDiff) : "", m && m->compared && m->maxAbsDiff > 0 ? std::to_string(m->argmax) : "", m ? value(m->meanAbsDiff) : "",
            m ? value(m->relL2) : "", m ? value(m->cosine) : "", m ? formatCount(m->different) : "" });
    }
    if (rows)
        std::fputs(table.render().c_str(), stdout);
    // Nothing is known about an unreadable pair's values: say which side failed and why.
    bool unreadable = false;
    for (const auto &pair : comparison->pairs) {
        if (pair.readable)
            continue;
        std::printf("%s%s: unreadable %s\n", unreadable ? "" : "\n", printable(pair.name).c_str(),
            unreadableSidesText(*a, *b, pair).c_str());
        unreadable = true;
    }
    const MetadataDiff &md = comparison->metadata;
    for (const auto &[k, v] : md.added)
        std::printf("metadata added: %s = %s\n", printable(k).c_str(), printable(v).c_str());
    for (const auto &[k, v] : md.removed)
        std::printf("metadata removed: %s = %s\n", printable(k).c_str(), printable(v).c_str());
    for (const auto &[k, v] : md.changed)
        std::printf("metadata changed: %s: %s -> %s\n", printable(k).c_str(), printable(v.first).c_str(),
            printable(v.second).c_str());
    // Unreadable tensors alone do not show a difference: they leave the answer open.
    bool differs = false;
    for (const auto &pair : comparison->pairs)
        differs = differs
            || (pair.readable && pair.status != PairStatus::Identical
                && !withinTolerance(pair, compare.tolerances));
    const char *verdict = comparison->equivalent ? ": equivalent"
        : differs                                ? ": different"
                  : ": not known to be equivalent (some tensors cannot be read)";
    std::printf("%s%s\n", rows || !md.added.empty() || !md.removed.empty() || !md.changed.empty() ? "\n" : "",
        (comparisonSummaryText(*comparison, compare.tolerances) + verdict).c_str());
    return comparison->equivalent ? Ok : Findings;
}

} // namespace

extern const Command kDiffCommand {
    .name = "diff",
    .operands = "A B",
    .minFiles = 2,
    .maxFiles = 2,
    .summary = "what changed between two checkpoints (--atol X --rtol Y)",
    .help = "Pairs the tensors of A and B by name and prints those that are not identical, with their\n"
            "status (changed, dtype_changed, shape_changed, only_in_a, only_in_b, unreadable) and, for\n"
            "changed values, the largest and mean absolute difference, the relative L2 difference, the\n"
            "cosine similarity and the number of differing elements; then, for each unreadable tensor,\n"
            "which side could not be read and why (bytes past the end of a file, a shard missing); then\n"
            "the metadata changes and a summary.\n"
            "Without tolerances, equivalent means every tensor is byte-identical.\n"
            "A recognised quantized weight (see docs/quantization.md) is compared on its dequantized\n"
            "values under its logical name, its scheme standing for its dtype (so a quantized model\n"
            "against its original shows each weight's quantization error as dtype_changed); two weights\n"
            "of one scheme are identical when every dequantized value is equal. --raw compares the\n"
            "stored codes instead.\n\n"
            "Exit status: 0 equivalent, 1 different or some tensor unreadable, 2 usage error or a path\n"
            "that cannot be read.",
    .options = kDiffOptions,
    .run = runDiff,
};

} // namespace stb::inspect
