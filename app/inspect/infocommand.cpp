#include "commands.h"
#include "texttable.h"

#include "core/io/checkpoint.h"
#include "core/text/textformat.h"
#include "core/report/report.h"

#include <cstdio>

namespace stb::inspect {

namespace {

void printField(const char *label, const std::string &value)
{
    std::printf("%-14s%s\n", label, value.c_str());
}

std::string diagnosticText(const Diagnostic &d)
{
    std::string text = d.rule;
    if (!d.reference.empty())
        text += " (" + d.reference + ")";
    return text + " at byte " + std::to_string(d.offset) + ": " + d.message;
}

} // namespace

int runInfo(const std::string &path, const Options &options)
{
    std::string error;
    const auto checkpoint = Checkpoint::open(path, error);
    if (!checkpoint) {
        std::fprintf(stderr, "%s: cannot read: %s\n", path.c_str(), error.c_str());
        return Usage;
    }
    const CheckpointSummary summary = summarize(*checkpoint);
    if (options.json) {
        const std::string json = infoJsonText(*checkpoint, summary);
        std::fwrite(json.data(), 1, json.size(), stdout);
        std::fputc('\n', stdout);
        return checkpoint->valid() ? Ok : Findings;
    }

    printField("File:", path);
    const std::uint64_t fileSize = checkpoint->totalFileBytes();
    printField("File size:", formatBytes(fileSize) + " (" + formatCount(fileSize) + " bytes)");
    if (!checkpoint->isSharded()) {
        const Header &h = checkpoint->shards().front()->header();
        printField("Header:", formatCount(h.headerLength) + " bytes (data starts at byte "
                                  + formatCount(h.dataStart) + ")");
    } else {
        printField("Shards:", std::to_string(checkpoint->shards().size()));
    }
    const Diagnostic *first = checkpoint->firstError();
    printField("Validity:", first ? "invalid: " + diagnosticText(*first) : std::string("valid"));
    printField("Tensors:", formatCount(checkpoint->tensors().size()));
    printField("Parameters:", formatCount(summary.parameters));
    for (const auto &[dtype, count] : summary.parametersByDtype)
        std::printf("  %-12s%s\n", std::string(dtype).c_str(), formatCount(count).c_str());

    const auto printMetadata = [](const std::string &key, const std::string &value) {
        std::printf("  %s: %s\n", printable(key).c_str(), printable(value).c_str());
    };
    if (checkpoint->isSharded() && !checkpoint->index()->metadata.empty()) {
        std::printf("Index metadata:\n");
        for (const auto &[key, value] : checkpoint->index()->metadata)
            printMetadata(key, value);
    } else if (!checkpoint->isSharded() && !checkpoint->shards().front()->header().metadata.empty()) {
        std::printf("Metadata:\n");
        for (const auto &[key, value] : checkpoint->shards().front()->header().metadata)
            printMetadata(key, value);
    }

    std::vector<const Diagnostic *> notes;
    for (const auto &d : checkpoint->diagnostics())
        notes.push_back(&d);
    for (const auto &s : checkpoint->shards()) {
        if (!s)
            continue;
        for (const auto &d : s->header().diagnostics)
            notes.push_back(&d);
    }
    std::size_t shown = 0;
    for (const Diagnostic *d : notes) {
        if (d == first)
            continue;
        if (shown++ == 0)
            std::printf("Problems and warnings:\n");
        std::printf("  %s: %s\n", d->isError() ? "error" : "warning", diagnosticText(*d).c_str());
    }

    std::printf("\n");
    const bool sharded = checkpoint->isSharded();
    std::vector<std::string> headings = {"NAME", "DTYPE", "SHAPE", "PARAMETERS", "BYTES", "OFFSET"};
    std::vector<bool> right = {false, false, false, true, true, true};
    if (sharded) {
        headings.push_back("SHARD");
        right.push_back(false);
    }
    TextTable table(headings, right);
    for (const auto *t : summary.fileOrder) {
        const TensorInfo &info = *t->info;
        std::vector<std::string> row = {printable(info.name),
                                        std::string(dtypeName(info.dtype)),
                                        formatShape(info.shape),
                                        formatCount(parameterCount(info)),
                                        formatCount(info.byteLength()),
                                        std::to_string(checkpoint->fileOf(*t)->header().fileOffset(info))};
        if (sharded)
            row.push_back(checkpoint->shardNames()[t->shard]);
        table.addRow(std::move(row));
    }
    std::fputs(table.render().c_str(), stdout);
    return checkpoint->valid() ? Ok : Findings;
}

} // namespace stb::inspect
