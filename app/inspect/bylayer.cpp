#include "bylayer.h"

#include "command.h"
#include "texttable.h"

#include "core/layers/layersreport.h"
#include "core/text/textformat.h"

#include <cmath>
#include <cstdio>

namespace stb::inspect {

namespace {

// Nested repeats list only blocks that changed; everything is capped for the terminal.
constexpr std::size_t kListedBlocks = 1000;

// One row per block: the role that changed most (largest rel-L2), the lowest cosine, and how many
// roles changed at all.
void printRepeat(const Repeat &repeat, const RepeatDiff &diff, const std::string &indent)
{
    std::printf("%s%s\n", indent.c_str(), shownName(repeat.label()).c_str());
    TextTable table({ "BLOCK", "CHANGED", "MAX_REL_L2", "ROLE", "MIN_COSINE", "ROLE" },
        { true, true, true, false, true, false });
    const std::size_t columns = repeat.indices.size();
    std::size_t listed = 0, unlisted = 0;
    for (std::size_t cell = 0; cell < repeat.rows() * columns; ++cell) {
        double maxRel = NAN, minCos = NAN;
        std::size_t maxRole = 0, minRole = 0, changed = 0, present = 0;
        for (std::size_t r = 0; r < repeat.roles.size(); ++r) {
            if (repeat.table[cell * repeat.roles.size() + r] == kNoTensor)
                continue;
            ++present;
            const double rel = diff.roles[r][std::size_t(DiffMetric::RelL2)][cell];
            const double cos = diff.roles[r][std::size_t(DiffMetric::Cosine)][cell];
            changed += !(rel == 0);
            if (std::isfinite(rel) && !(rel <= maxRel)) {
                maxRel = rel;
                maxRole = r;
            }
            if (std::isfinite(cos) && !(cos >= minCos)) {
                minCos = cos;
                minRole = r;
            }
        }
        if (!present || (repeat.nested() && !changed))
            continue;
        if (listed == kListedBlocks) {
            ++unlisted;
            continue;
        }
        ++listed;
        const std::string block
            = (repeat.nested() ? std::to_string(repeat.outerIndices[cell / columns]) + "/" : std::string())
            + std::to_string(repeat.indices[cell % columns]);
        table.addRow({ block, std::to_string(changed) + "/" + std::to_string(present), shownValue(maxRel),
            std::isfinite(maxRel) && maxRel > 0 ? shownName(repeat.roles[maxRole].name) : std::string(),
            shownValue(minCos),
            std::isfinite(minCos) && minCos < 1 ? shownName(repeat.roles[minRole].name) : std::string() });
    }
    if (listed) {
        printIndented(table.render(), indent);
    } else {
        std::printf("%s  no block changed\n", indent.c_str());
    }
    if (unlisted)
        std::printf("%s  \u2026 and %s more blocks\n", indent.c_str(), formatCount(unlisted).c_str());
    for (std::size_t i = 0; i < repeat.repeats.size(); ++i)
        printRepeat(repeat.repeats[i], diff.repeats[i], indent + "  ");
}

} // namespace

std::string shownName(std::string_view name)
{
    constexpr std::size_t kNameBytes = 160;
    if (name.size() <= kNameBytes)
        return printable(name);
    return printable(name.substr(0, kNameBytes)) + "\u2026 (" + formatCount(name.size()) + " bytes)";
}

void printIndented(const std::string &text, const std::string &indent)
{
    for (std::size_t start = 0; start < text.size();) {
        const std::size_t newline = text.find('\n', start);
        const std::size_t end = newline == std::string::npos ? text.size() : newline + 1;
        std::fputs((indent + text.substr(start, end - start)).c_str(), stdout);
        start = end;
    }
}

std::string shownValue(double value)
{
    char buffer[32];
    std::snprintf(buffer, sizeof buffer, "%.6g", value);
    return std::isfinite(value) ? std::string(buffer) : std::string("-");
}

void printByLayer(const Comparison &comparison, bool json)
{
    const LayerDiff diff = diffByLayer(comparison);
    if (json) {
        std::printf("%s\n",
            layerDiffJson(diff).dump(-1, ' ', false, nlohmann::json::error_handler_t::replace).c_str());
        return;
    }
    if (diff.repeats.empty())
        std::printf("no repeated blocks in %s tensor names\n", formatCount(comparison.pairs.size()).c_str());
    for (std::size_t i = 0; i < diff.repeats.size(); ++i)
        printRepeat(diff.repeats[i], diff.diffs[i], "");
}

} // namespace stb::inspect
