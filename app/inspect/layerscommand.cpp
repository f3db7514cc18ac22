#include "bylayer.h"
#include "command.h"
#include "texttable.h"

#include "core/io/checkpoint.h"
#include "core/io/readability.h"
#include "core/layers/depthprofile.h"
#include "core/layers/layersreport.h"
#include "core/layers/repeatdetector.h"
#include "core/text/textformat.h"

#include <algorithm>
#include <cmath>
#include <cstdio>

namespace stb::inspect {

namespace {

// Text output stays readable for a hostile file: names are cut and escaped, lists are capped.
constexpr std::size_t kListedRoles = 64;
constexpr std::size_t kListedDeviations = 50;
constexpr std::size_t kListedMissing = 20;
constexpr std::size_t kListedOutliers = 50;
constexpr std::size_t kListedUnreadable = 5;

const OptionSpec kLayersOptions[] = {
    kJsonOption,
    { "stats", "", "Also the depth profiles (reads every tensor of the repeats, like audit) and outliers." },
};

std::string more(std::size_t total, std::size_t listed)
{
    return total > listed ? "  \u2026 and " + formatCount(total - listed) + " more\n" : std::string();
}

// "5" or "3/17" (outer index / index) for a block of a nested repeat.
std::string where(const Repeat &repeat, std::size_t row, std::size_t column)
{
    // A whole-row outlier names its layer and every block in it ("5/*").
    const std::string index = column == kWholeRow ? "*" : std::to_string(repeat.indices[column]);
    return repeat.nested() ? std::to_string(repeat.outerIndices[row]) + "/" + index : index;
}

void printProfile(const Repeat &repeat, const RepeatProfile &profile, const std::string &indent)
{
    TextTable table(
        { "ROLE", "STAT", "MIN", "MEDIAN", "MAX", "AT_MAX" }, { false, false, true, true, true, true });
    const std::size_t columns = repeat.indices.size();
    for (std::size_t r = 0; r < std::min(repeat.roles.size(), kListedRoles); ++r) {
        for (std::size_t s = 0; s < kDepthStatCount; ++s) {
            const DepthSeries &series = profile.roles[r][s];
            std::vector<double> finite;
            std::size_t atMax = 0;
            for (std::size_t i = 0; i < series.size(); ++i) {
                if (!std::isfinite(series[i]))
                    continue;
                if (finite.empty() || series[i] > series[atMax])
                    atMax = i;
                finite.push_back(series[i]);
            }
            if (finite.empty())
                continue;
            std::sort(finite.begin(), finite.end());
            table.addRow({ shownName(repeat.roles[r].name), std::string(depthStatName(static_cast<DepthStat>(s))),
                shownValue(finite.front()), shownValue(finite[finite.size() / 2]), shownValue(finite.back()),
                where(repeat, atMax / columns, atMax % columns) });
        }
    }
    printIndented(table.render(), indent);
    if (profile.outliers.empty()) {
        std::printf("%sno outliers along depth (|z| > %g)\n", indent.c_str(), kDepthOutlierZ);
        return;
    }
    std::printf("%soutliers along depth (|z| > %g):\n", indent.c_str(), kDepthOutlierZ);
    for (std::size_t i = 0; i < std::min(profile.outliers.size(), kListedOutliers); ++i) {
        const DepthOutlier &o = profile.outliers[i];
        std::printf("%s  %s  %s  %s = %s (z %.1f)\n", indent.c_str(), where(repeat, o.row, o.column).c_str(),
            shownName(repeat.roles[o.role].name).c_str(), std::string(depthStatName(o.stat)).c_str(),
            shownValue(o.value).c_str(), o.z);
    }
    std::fputs((indent + more(profile.outliers.size(), kListedOutliers)).c_str(), stdout);
}

void printRepeat(const Repeat &repeat, const RepeatProfile *profile, const std::string &indent)
{
    std::printf("%s%s: %s %s\n", indent.c_str(), shownName(repeat.label()).c_str(),
        formatCount(repeat.roles.size()).c_str(), repeat.roles.size() == 1 ? "role" : "roles");
    if (repeat.missingCount) {
        std::string list;
        for (std::size_t i = 0; i < std::min(repeat.missing.size(), kListedMissing); ++i)
            list += (i ? ", " : "") + std::to_string(repeat.missing[i]);
        if (repeat.missingCount > kListedMissing)
            list += ", \u2026 (" + formatCount(repeat.missingCount) + " in all)";
        std::printf("%s  missing: %s\n", indent.c_str(), list.c_str());
    }
    for (std::size_t r = 0; r < std::min(repeat.roles.size(), kListedRoles); ++r) {
        const RepeatRole &role = repeat.roles[r];
        std::printf("%s  %s  %s %s\n", indent.c_str(), shownName(role.name).c_str(),
            std::string(dtypeName(role.dtype)).c_str(), formatShape(role.shape).c_str());
    }
    std::fputs((indent + more(repeat.roles.size(), kListedRoles)).c_str(), stdout);
    if (!repeat.deviations.empty())
        std::printf("%s  deviations:\n", indent.c_str());
    for (std::size_t i = 0; i < std::min(repeat.deviations.size(), kListedDeviations); ++i) {
        const RepeatDeviation &d = repeat.deviations[i];
        const std::string at
            = (d.outerIndex ? std::to_string(*d.outerIndex) + "/" : std::string()) + std::to_string(d.index);
        std::printf("%s    %s  %s  %s: %s\n", indent.c_str(), at.c_str(), shownName(d.role).c_str(),
            std::string(deviationKindName(d.kind)).c_str(), d.detail.c_str());
    }
    std::fputs((indent + more(repeat.deviations.size(), kListedDeviations)).c_str(), stdout);
    if (profile)
        printProfile(repeat, *profile, indent + "  ");
    for (std::size_t i = 0; i < repeat.repeats.size(); ++i)
        printRepeat(repeat.repeats[i], profile ? &profile->repeats[i] : nullptr, indent + "  ");
}

// Tensors the profiles could not read (numbers into Checkpoint::tensors()), each once, in order.
void collectUnreadable(const Repeat &repeat, const RepeatProfile &profile, std::vector<std::size_t> &out)
{
    for (std::size_t position : profile.unreadable)
        out.push_back(repeat.table[position]);
    for (std::size_t i = 0; i < repeat.repeats.size(); ++i)
        collectUnreadable(repeat.repeats[i], profile.repeats[i], out);
}

// One warning line on stderr: the profiles are short of these tensors' values. Bounded: a model
// truncated early may leave thousands unread.
void warnUnreadable(const std::string &path, const Checkpoint &checkpoint, std::vector<std::size_t> tensors)
{
    std::sort(tensors.begin(), tensors.end());
    tensors.erase(std::unique(tensors.begin(), tensors.end()), tensors.end());
    if (tensors.empty())
        return;
    std::string list;
    for (std::size_t i = 0; i < std::min(tensors.size(), kListedUnreadable); ++i)
        list += (i ? ", " : "") + quotedName(checkpoint.tensors()[tensors[i]].info->name);
    if (tensors.size() > kListedUnreadable)
        list += " and " + formatCount(tensors.size() - kListedUnreadable) + " more";
    const bool one = tensors.size() == 1;
    std::fprintf(stderr, "%s: warning: %s %s cannot be read, left out of the profiles: %s (%s%s)\n",
        printable(path).c_str(), formatCount(tensors.size()).c_str(), one ? "tensor" : "tensors",
        list.c_str(),
        one ? "" : "the first: ", unreadableReason(checkpoint, checkpoint.tensors()[tensors[0]]).c_str());
}

bool hasFindings(const Repeat &repeat, const RepeatProfile *profile)
{
    if (!repeat.deviations.empty() || (profile && !profile->outliers.empty()))
        return true;
    for (std::size_t i = 0; i < repeat.repeats.size(); ++i) {
        if (hasFindings(repeat.repeats[i], profile ? &profile->repeats[i] : nullptr))
            return true;
    }
    return false;
}

int runLayers(const Invocation &invocation)
{
    const std::string &path = invocation.files()[0];
    std::string error;
    const auto checkpoint = Checkpoint::open(path, error);
    if (!checkpoint) {
        std::fprintf(stderr, "%s: cannot read: %s\n", path.c_str(), error.c_str());
        return Usage;
    }
    const auto repeats = detectRepeats(*checkpoint);
    std::optional<std::vector<RepeatProfile>> profiles;
    if (invocation.isSet("stats")) {
        AnalysisOptions options;
        options.digest = false;
        profiles = profileRepeats(*checkpoint, repeats, options);
        if (!profiles) {
            std::fprintf(stderr, "a file changed on disk during the scan\n");
            return Usage;
        }
    }
    const std::vector<RepeatProfile> *p = profiles ? &*profiles : nullptr;
    bool findings = false;
    for (std::size_t i = 0; i < repeats.size(); ++i)
        findings = findings || hasFindings(repeats[i], p ? &(*p)[i] : nullptr);
    // Blocks whose bytes cannot be read: a profile short of them is no clean bill (audit's exit 1).
    std::vector<std::size_t> unreadable;
    for (std::size_t i = 0; p && i < repeats.size(); ++i)
        collectUnreadable(repeats[i], (*p)[i], unreadable);
    warnUnreadable(path, *checkpoint, unreadable);
    findings = findings || !unreadable.empty();
    if (invocation.isSet(kJsonOption.name)) {
        std::printf("%s\n",
            layersJson(repeats, p).dump(-1, ' ', false, nlohmann::json::error_handler_t::replace).c_str());
        return findings ? Findings : Ok;
    }
    if (repeats.empty())
        std::printf("no repeated blocks in %s tensors\n", formatCount(checkpoint->tensors().size()).c_str());
    for (std::size_t i = 0; i < repeats.size(); ++i)
        printRepeat(repeats[i], p ? &(*p)[i] : nullptr, "");
    return findings ? Findings : Ok;
}

} // namespace

extern const Command kLayersCommand {
    .name = "layers",
    .operands = "FILE",
    .minFiles = 1,
    .maxFiles = 1,
    .summary = "repeated blocks (layers, experts in layers), their roles and deviations",
    .help = "Finds the repeated structure of the model from its tensor names: each numbered segment whose\n"
            "blocks share their tensor names (model.layers.{0-93}), with experts inside layers as a\n"
            "nested repeat (model.layers.{N}.mlp.experts). Prints the block numbers and the numbers\n"
            "missing from the range, the roles (tensor names inside a block) with the dtype and shape\n"
            "most blocks give them, and every deviation: a block missing a role or with an extra one,\n"
            "a role whose dtype or shape differs from the majority's.\n\n"
            "With --stats, also the depth profile of each role (mean, std, rms, abs_max, nonfinite,\n"
            "zero_fraction per block, read as audit reads them) and the blocks whose value is an\n"
            "outlier along depth (robust z-score against the median and MAD above 6). Tensors whose\n"
            "bytes cannot be read (a truncated file) are named in a warning on stderr (--json: each\n"
            "repeat's \"unreadable\"); their profile values are missing.\n\n"
            "Exit status: 0 no deviation or outlier, 1 some (or, with --stats, a tensor that cannot be\n"
            "read), 2 usage error or unreadable path.",
    .options = kLayersOptions,
    .run = runLayers,
};

} // namespace stb::inspect
