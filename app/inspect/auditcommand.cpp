#include "commands.h"
#include "texttable.h"

#include "core/audit/auditreport.h"
#include "core/io/checkpoint.h"
#include "core/text/textformat.h"

#include <cstdio>
#include <unistd.h>

namespace stb::inspect {

int runAudit(const std::string &path, const Options &options)
{
    std::string error;
    const auto checkpoint = Checkpoint::open(path, error);
    if (!checkpoint) {
        std::fprintf(stderr, "%s: cannot read: %s\n", path.c_str(), error.c_str());
        return Usage;
    }
    if (!checkpoint->valid())
        std::fprintf(stderr, "%s: warning: the file is invalid (%s); auditing what can be read\n", path.c_str(),
                     checkpoint->firstError()->rule.c_str());

    // A progress line on a terminal only: scripts read clean output.
    const bool showProgress = ::isatty(STDERR_FILENO);
    int lastPercent = -1;
    AnalysisOptions analysis;
    analysis.digest = false; // not printed; duplicates are found without one per tensor
    analysis.bins = options.bins;
    const auto audit = auditCheckpoint(*checkpoint, analysis, nullptr, [&](std::uint64_t done, std::uint64_t total) {
        const int percent = total ? static_cast<int>(100 * done / total) : 100;
        if (showProgress && percent != lastPercent) {
            std::fprintf(stderr, "\rscanning %s: %d%%", path.c_str(), percent);
            lastPercent = percent;
        }
    });
    if (showProgress)
        std::fprintf(stderr, "\r\033[K");
    if (!audit) {
        std::fprintf(stderr, "%s: the file changed on disk during the scan\n", path.c_str());
        return Usage;
    }
    const bool nonFinite = audit->summary.withNan || audit->summary.withInf;
    if (options.json) {
        const std::string json = auditJson(*checkpoint, *audit).dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
        std::printf("%s\n", json.c_str());
        return nonFinite ? Findings : Ok;
    }

    TextTable table({"NAME", "DTYPE", "SHAPE", "MIN", "MAX", "MEAN", "STD", "NAN", "INF", "ZEROS", "FLAGS"},
                    {false, false, false, true, true, true, true, true, true, true, false});
    for (const auto &entry : audit->entries) {
        const TensorInfo &info = *checkpoint->tensors()[entry.tensor].info;
        const TensorStats &s = entry.analysis.stats;
        auto shortValue = [](double v) {
            char buffer[32];
            std::snprintf(buffer, sizeof buffer, "%.6g", v);
            return std::isfinite(v) ? std::string(buffer) : std::string("-");
        };
        table.addRow({printable(info.name), std::string(dtypeName(info.dtype)), formatShape(info.shape),
                      shortValue(s.min), shortValue(s.max), shortValue(s.mean), shortValue(s.std),
                      formatCount(s.nan), formatCount(s.posInf + s.negInf), formatCount(s.zeros),
                      auditFlagsText(*checkpoint, *audit, entry)});
    }
    std::fputs(table.render().c_str(), stdout);
    std::printf("\n%s: %s (%s tensors, %s values, %s)\n", path.c_str(), audit->summary.text().c_str(),
                formatCount(audit->summary.tensors).c_str(), formatCount(audit->summary.elements).c_str(),
                formatBytes(audit->summary.bytes).c_str());
    return nonFinite ? Findings : Ok;
}

} // namespace stb::inspect
