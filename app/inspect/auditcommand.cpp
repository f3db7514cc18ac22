#include "command.h"
#include "progressline.h"
#include "texttable.h"

#include "core/audit/auditreport.h"
#include "core/io/checkpoint.h"
#include "core/text/textformat.h"

#include <cmath>
#include <cstdio>
#include <functional>
#include <memory>

namespace stb::inspect {

namespace {

const OptionSpec kAuditOptions[] = {
    kJsonOption,
    { "bins", "N", "Histogram bins in the JSON output, 1 to 100000.", "10" },
    { "raw", "", "Quantized weights' stored codes instead of their dequantized values." },
};

int runAudit(const Invocation &invocation)
{
    const std::string &path = invocation.files().front();
    double bins = 10;
    if (!invocation.number("bins", 1, 100000, "a number from 1 to 100000", bins))
        return Usage;
    if (bins != std::floor(bins))
        return usageError(invocation.command(), "--bins takes a whole number from 1 to 100000");
    std::string error;
    const auto checkpoint = Checkpoint::open(path, error);
    if (!checkpoint) {
        std::fprintf(stderr, "%s: cannot read: %s\n", printable(path).c_str(), error.c_str());
        return Usage;
    }
    if (!checkpoint->valid())
        std::fprintf(stderr, "%s: warning: the file is invalid (%s); auditing what can be read\n",
                     printable(path).c_str(),
                     std::string(checkpoint->firstError()->id()).c_str());

    AnalysisOptions analysis;
    analysis.digest = false; // not printed; duplicates are found without one per tensor
    // The table shows no histogram: without one, pass 2 reads only what may hold outliers.
    analysis.bins = invocation.isSet(kJsonOption.name) ? static_cast<unsigned>(bins) : 0;
    // Quantized weights on their dequantized values unless --raw asks for the stored codes.
    auto quant = invocation.isSet("raw")
        ? nullptr
        : std::make_shared<const QuantView>(QuantView::buildWithConfig(*checkpoint));
    std::optional<AuditResult> audit;
    {
        ProgressLine progress("scanning " + path);
        audit = auditCheckpoint(*checkpoint, analysis, {}, std::ref(progress), std::move(quant));
    }
    if (!audit) {
        std::fprintf(stderr, "%s: the file changed on disk during the scan\n", printable(path).c_str());
        return Usage;
    }
    // NaN, Inf, a tensor whose bytes cannot be read, or a file the reference rejects.
    const bool findings = audit->summary.failed();
    if (invocation.isSet(kJsonOption.name)) {
        const std::string json = jsonText(auditJson(*checkpoint, *audit));
        std::printf("%s\n", json.c_str());
        return findings ? Findings : Ok;
    }

    TextTable table({ "NAME", "DTYPE", "SHAPE", "MIN", "MAX", "MEAN", "STD", "NAN", "INF", "ZEROS", "FLAGS" },
        { false, false, false, true, true, true, true, true, true, true, false });
    for (const auto &entry : audit->entries) {
        const AuditRowLabel label = auditRowLabel(*checkpoint, *audit, entry);
        const TensorStats &s = entry.analysis.stats;
        auto shortValue = [](double v) {
            char buffer[32];
            std::snprintf(buffer, sizeof buffer, "%.6g", v);
            return std::isfinite(v) ? std::string(buffer) : std::string("-");
        };
        table.addRow({ printable(label.name), label.dtype, formatShape(label.shape), shortValue(s.min),
            shortValue(s.max), shortValue(s.mean), shortValue(s.std), formatCount(s.nan),
            formatCount(s.posInf + s.negInf), formatCount(s.zeros),
            auditFlagsText(*checkpoint, *audit, entry) });
    }
    for (const auto &absent : checkpoint->absentTensors())
        table.addRow({ printable(absent.name), "-", "-", "-", "-", "-", "-", "-", "-", "-",
            auditAbsentFlagsText(*checkpoint, absent) });
    std::fputs(table.render().c_str(), stdout);
    std::printf("\n%s: %s\n", printable(path).c_str(), audit->summary.line().c_str());
    return findings ? Findings : Ok;
}

} // namespace

extern const Command kAuditCommand {
    .name = "audit",
    .operands = "FILE",
    .minFiles = 1,
    .maxFiles = 1,
    .summary = "statistics of every tensor; flags NaN, Inf, all-zero, constant, outliers\n"
               "(> 6 std) and duplicates; exit 1 on NaN, Inf, unreadable bytes or an invalid file",
    .help = "Reads every tensor's values and prints their minimum, maximum, mean, standard deviation and\n"
            "counts of NaN, infinities and zeros, with flags: NaN values, infinite values, unreadable\n"
            "bytes (errors); all zero, outliers (values beyond 6 standard deviations) (warnings);\n"
            "constant, duplicate (the same bytes as another tensor) (notes). --json names them nan, inf,\n"
            "unreadable, all_zero, outlier:N, constant, duplicate. Flags a normal model raises\n"
            "(BatchNorm counters, norm weights and running statistics at their initial 1 or 0, tied\n"
            "embeddings) are marked expected and not counted. Tensors a sharded model's index lists but\n"
            "no shard holds (a shard missing) are rows of their own, unreadable, with why. An invalid\n"
            "file is audited as far as it can be read, and the summary starts with check's verdict\n"
            "(--json: \"valid\" and \"error\").\n"
            "A recognised quantized weight (see docs/quantization.md) is audited on its dequantized values,\n"
            "as one row with its logical name, its scheme in the DTYPE column and its logical shape;\n"
            "--raw audits the stored codes instead.\n\n"
            "Exit status: 0 no NaN or Inf, 1 some tensor holds NaN or Inf or has bytes that cannot be read\n"
            "(the summary names the first and why) or the file is invalid, 2 usage error or unreadable\n"
            "path.",
    .options = kAuditOptions,
    .run = runAudit,
};

} // namespace stb::inspect
