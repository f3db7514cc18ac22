#include "commands.h"
#include "texttable.h"

#include "core/checkpoint.h"
#include "core/format.h"
#include "core/report.h"

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
    const Json info = infoJson(*checkpoint);
    if (options.json) {
        std::printf("%s\n", info.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace).c_str());
        return checkpoint->valid() ? Ok : Findings;
    }

    printField("File:", path);
    const std::uint64_t fileSize = info["file_size"];
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
    printField("Parameters:", formatCount(info["parameter_count"].get<std::uint64_t>()));
    for (const auto &[dtype, count] : info["parameters_by_dtype"].items())
        std::printf("  %-12s%s\n", dtype.c_str(), formatCount(count.get<std::uint64_t>()).c_str());

    if (info["metadata"].is_object() && !info["metadata"].empty()) {
        std::printf("Metadata:\n");
        for (const auto &[key, value] : info["metadata"].items())
            std::printf("  %s: %s\n", printable(key).c_str(),
                        value.is_string() ? printable(value.get<std::string>()).c_str() : value.dump().c_str());
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
    for (const auto &t : info["tensors"]) {
        const auto &offsets = t["data_offsets"];
        std::vector<std::string> row = {printable(t["name"].get<std::string>()),
                                        t["dtype"].get<std::string>(),
                                        formatShape(t["shape"].get<std::vector<std::uint64_t>>()),
                                        formatCount(t["parameters"].get<std::uint64_t>()),
                                        formatCount(offsets[1].get<std::uint64_t>() >= offsets[0].get<std::uint64_t>()
                                                        ? offsets[1].get<std::uint64_t>() - offsets[0].get<std::uint64_t>()
                                                        : 0),
                                        std::to_string(t["file_offset"].get<std::uint64_t>())};
        if (sharded)
            row.push_back(t["shard"].get<std::string>());
        table.addRow(std::move(row));
    }
    std::fputs(table.render().c_str(), stdout);
    return checkpoint->valid() ? Ok : Findings;
}

} // namespace stb::inspect
