#include "command.h"
#include "texttable.h"

#include "core/io/checkpoint.h"
#include "core/report/report.h"
#include "core/text/textformat.h"

#include <cstdio>

namespace stb::inspect {

namespace {

void printField(const char *label, const std::string &value)
{
    std::printf("%-14s%s\n", label, value.c_str());
}

// One line per scheme, then the effective total; "not recognised" when config.json names a
// method none of whose weights we found.
void printQuantization(const QuantView &quant)
{
    if (quant.empty()) {
        if (quant.config() && !quant.config()->method.empty())
            printField("Quantization:",
                "not recognised (config.json says quant_method \""
                    + printable(quant.config()->method.substr(0, 40)) + "\"); values are raw");
        return;
    }
    for (const auto &s : quant.schemes()) {
        char bits[32];
        std::snprintf(bits, sizeof bits, "%.2f", s.bitsPerWeight());
        std::string line = std::string(quantSchemeName(s.scheme)) + " " + std::to_string(s.bits) + "-bit";
        if (s.groupSize)
            line += ", group " + std::to_string(s.groupSize);
        line += ": " + formatCount(s.weights) + (s.weights == 1 ? " weight, " : " weights, ")
            + formatCount(s.parameters) + " parameters, " + formatBytes(s.bytes) + ", " + bits
            + " bits/weight";
        printField(&s == &quant.schemes().front() ? "Quantization:" : "", line);
    }
    char bits[32];
    std::snprintf(bits, sizeof bits, "%.2f", quant.bitsPerWeight().value_or(0));
    printField("Effective:",
        formatCount(quant.effectiveParameters()) + " parameters (companions excluded), " + bits
            + " bits/weight");
}

// File, size, header or shards, validity, tensor and parameter counts.
void printSummary(const std::string &path, const Checkpoint &checkpoint, const CheckpointSummary &summary,
    const QuantView &quant)
{
    const bool linked = !checkpoint.isSharded() && !checkpoint.shardTargets().front().empty();
    printField("File:", printable(path) + (linked ? " -> " + printable(checkpoint.shardTargets().front()) : ""));
    const std::uint64_t fileSize = checkpoint.totalFileBytes();
    printField("File size:", formatBytes(fileSize) + " (" + formatCount(fileSize) + " bytes)");
    if (!checkpoint.isSharded()) {
        const Header &h = checkpoint.shards().front()->header();
        printField("Header:",
            formatCount(h.headerLength) + " bytes (data starts at byte " + formatCount(h.dataStart) + ")");
    } else {
        printField("Shards:", std::to_string(checkpoint.shards().size()));
        // Links are followed wherever they point (Hugging Face's cache): say where.
        for (std::size_t i = 0; i < checkpoint.shardTargets().size(); ++i) {
            if (!checkpoint.shardTargets()[i].empty())
                std::printf("  %s -> %s\n", printable(checkpoint.shardNames()[i]).c_str(),
                            printable(checkpoint.shardTargets()[i]).c_str());
        }
    }
    const Diagnostic *first = checkpoint.firstError();
    printField("Validity:", first ? "invalid: " + diagnosticLine(*first) : std::string("valid"));
    printField("Tensors:", formatCount(checkpoint.tensors().size()));
    printField("Parameters:", formatCount(summary.parameters));
    for (const auto &[dtype, count] : summary.parametersByDtype)
        std::printf("  %-12s%s\n", std::string(dtype).c_str(), formatCount(count).c_str());
    printQuantization(quant);
}

// The index's metadata for a sharded model, else the file's.
void printMetadata(const Checkpoint &checkpoint)
{
    const auto &metadata = checkpoint.isSharded() ? checkpoint.index()->metadata
                                                  : checkpoint.shards().front()->header().metadata;
    if (metadata.empty())
        return;
    std::printf(checkpoint.isSharded() ? "Index metadata:\n" : "Metadata:\n");
    for (const auto &[key, value] : metadata)
        std::printf("  %s: %s\n", printable(key).c_str(), printable(value).c_str());
}

// Every diagnostic of the checkpoint and its shards but the first error (shown as the verdict),
// the quantization warnings, then how many more were found than stored.
void printProblems(const Checkpoint &checkpoint, const QuantView &quant)
{
    std::vector<const Diagnostic *> notes;
    std::size_t dropped = checkpoint.diagnostics().dropped();
    for (const auto &d : checkpoint.diagnostics())
        notes.push_back(&d);
    for (const auto &s : checkpoint.shards()) {
        if (!s)
            continue;
        for (const auto &d : s->header().diagnostics)
            notes.push_back(&d);
        dropped += s->header().diagnostics.dropped();
    }
    const Diagnostic *first = checkpoint.firstError();
    std::size_t shown = 0;
    for (const Diagnostic *d : notes) {
        if (d == first)
            continue;
        if (shown++ == 0)
            std::printf("Problems and warnings:\n");
        std::printf("  %s: %s\n", d->isError() ? "error" : "warning", diagnosticLine(*d).c_str());
    }
    for (const QuantWarning &w : quant.warnings()) {
        if (shown++ == 0)
            std::printf("Problems and warnings:\n");
        std::printf("  warning: %s\n", quantWarningLine(w).c_str());
    }
    if (dropped > 0)
        std::printf("  and %s more (only the first %s of a file are kept)\n", formatCount(dropped).c_str(),
            formatCount(DiagnosticList::kCap).c_str());
}

// Every tensor in file order: name, dtype, shape, parameters, bytes, offset (and shard).
void printTensorTable(const Checkpoint &checkpoint, const CheckpointSummary &summary)
{
    const bool sharded = checkpoint.isSharded();
    std::vector<std::string> headings = { "NAME", "DTYPE", "SHAPE", "PARAMETERS", "BYTES", "OFFSET" };
    std::vector<bool> right = { false, false, false, true, true, true };
    if (sharded) {
        headings.push_back("SHARD");
        right.push_back(false);
    }
    TextTable table(headings, right);
    for (const auto *t : summary.fileOrder) {
        const TensorInfo &info = *t->info;
        std::vector<std::string> row = { printable(info.name), std::string(dtypeName(info.dtype)),
            formatShape(info.shape), formatCount(parameterCount(info)), formatCount(info.byteLength()),
            std::to_string(checkpoint.fileOf(*t)->header().fileOffset(info)) };
        if (sharded)
            row.push_back(printable(checkpoint.shardNames()[t->shard]));
        table.addRow(std::move(row));
    }
    std::fputs(table.render().c_str(), stdout);
}

int runInfo(const Invocation &invocation)
{
    const std::string &path = invocation.files().front();
    std::string error;
    const auto checkpoint = Checkpoint::open(path, error);
    if (!checkpoint) {
        std::fprintf(stderr, "%s: cannot read: %s\n", printable(path).c_str(), error.c_str());
        return Usage;
    }
    const CheckpointSummary summary = summarize(*checkpoint);
    const QuantView quant = QuantView::buildWithConfig(*checkpoint);
    if (invocation.isSet(kJsonOption.name)) {
        const std::string json = infoJsonText(*checkpoint, summary, quant);
        std::fwrite(json.data(), 1, json.size(), stdout);
        std::fputc('\n', stdout);
    } else {
        printSummary(path, *checkpoint, summary, quant);
        printMetadata(*checkpoint);
        printProblems(*checkpoint, quant);
        std::printf("\n");
        printTensorTable(*checkpoint, summary);
    }
    return checkpoint->valid() ? Ok : Findings;
}

const OptionSpec kInfoOptions[] = { kJsonOption };

} // namespace

extern const Command kInfoCommand {
    .name = "info",
    .operands = "FILE",
    .minFiles = 1,
    .maxFiles = 1,
    .summary = "summary, metadata, warnings and the table of tensors",
    .help = "Prints a summary (file size, header length, where the data starts, validity, tensor and\n"
            "parameter counts, parameters by dtype), the metadata, the warnings, and a table of every\n"
            "tensor in file order with its dtype, shape, parameter count, size and file offset.\n"
            "A quantized checkpoint (see docs/quantization.md) gets one line per scheme (bits, group\n"
            "size, weights, parameters, bytes, bits per weight) and its effective parameter count, and\n"
            "misshapen or missing companions are warnings (quant-*). Only the header is read, with the\n"
            "config.json beside the file and a few small tensors of a quantized checkpoint.\n\n"
            "Exit status: 0 valid, 1 invalid, 2 usage error or unreadable.",
    .options = kInfoOptions,
    .run = runInfo,
};

} // namespace stb::inspect
