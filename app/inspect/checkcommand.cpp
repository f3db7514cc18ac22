#include "command.h"

#include "core/io/checkpoint.h"
#include "core/io/filecheck.h"
#include "core/report/report.h"
#include "core/text/textformat.h"

#include <cstdio>
#include <memory>
#include <optional>

namespace stb::inspect {

namespace {

// `path` is from the command line or an index (a shard's): escaped here, once.
// "1 tensor", "2 tensors"
std::string counted(std::size_t n, const char *noun)
{
    return std::to_string(n) + " " + noun + (n == 1 ? "" : "s");
}

std::string verdictLine(const std::string &path, const Diagnostic *error, std::size_t tensorCount)
{
    const std::string file = printable(path);
    if (!error)
        return file + ": valid (" + counted(tensorCount, "tensor") + ")";
    return file + ": invalid: " + diagnosticLine(*error);
}

void printLine(const std::string &line) { std::printf("%s\n", line.c_str()); }

int runCheck(const Invocation &invocation)
{
    const bool asJson = invocation.isSet(kJsonOption.name);
    bool anyInvalid = false;
    bool anyUnreadable = false;
    for (const auto &path : invocation.files()) {
        std::string error;
        // One file: its verdict alone (checkFile builds no tensor list). An index needs its
        // shards' tensors, to hold them against it.
        std::optional<HeaderCheck> fileCheck;
        std::shared_ptr<const Checkpoint> checkpoint;
        if (Checkpoint::isIndexPath(path))
            checkpoint = Checkpoint::open(path, error);
        else
            fileCheck = checkFile(path, error);
        if (!checkpoint && !fileCheck) {
            anyUnreadable = true;
            if (asJson)
                printLine(jsonText({{"file", path},
                                    {"valid", false},
                                    {"error",
                                     {{"rule", "unreadable"},
                                      {"reference", nullptr},
                                      {"message", "cannot read " + printable(path) + ": " + error},
                                      {"offset", nullptr},
                                      {"tensor", nullptr}}},
                                    {"warnings", Json::array()},
                                    {"diagnostic_count", 0}}));
            else
                std::fprintf(stderr, "%s: cannot read: %s\n", printable(path).c_str(), error.c_str());
            continue;
        }
        if (fileCheck) {
            const Diagnostic *verdict = firstError(fileCheck->diagnostics);
            anyInvalid = anyInvalid || verdict;
            if (asJson)
                printLine(jsonText(fileCheckJson(path, fileCheck->diagnostics)));
            else
                printLine(verdictLine(path, verdict, fileCheck->tensorCount));
            continue;
        }
        anyInvalid = anyInvalid || !checkpoint->valid();
        if (asJson) {
            printLine(jsonText(checkpointCheckJson(*checkpoint)));
            continue;
        }
        // A sharded model: each shard's verdict, each index problem, then the model's verdict.
        for (std::size_t i = 0; i < checkpoint->shards().size(); ++i) {
            const auto &shard = checkpoint->shards()[i];
            if (shard)
                printLine("  " + verdictLine(shard->path(), shard->header().verdict(), shard->header().tensors.size()));
        }
        for (const auto &d : checkpoint->diagnostics()) {
            if (d.isError())
                printLine("  " + verdictLine(path, &d, 0));
        }
        if (const std::size_t dropped = checkpoint->diagnostics().dropped())
            printLine("  and " + formatCount(dropped) + " more (only the first "
                      + formatCount(DiagnosticList::kCap) + " are listed)");
        if (checkpoint->valid())
            printLine(printable(path) + ": valid (" + counted(checkpoint->tensors().size(), "tensor") + " in "
                + counted(checkpoint->shards().size(), "shard") + ")");
        else {
            const std::size_t problems = checkpoint->problemCount();
            const Diagnostic *first = checkpoint->firstError();
            printLine(verdictLine(path, first, 0) + " (" + formatCount(problems) + " problem"
                      + (problems == 1 ? "" : "s") + " in all)");
        }
    }
    if (anyUnreadable)
        return Usage;
    return anyInvalid ? Findings : Ok;
}

const OptionSpec kCheckOptions[] = {kJsonOption};

} // namespace

extern const Command kCheckCommand{
    .name = "check",
    .operands = "FILE...",
    .minFiles = 1,
    .maxFiles = Command::kUnbounded,
    .summary = "is each file valid, as the reference implementation decides",
    .help = "Checks each FILE as the reference implementation (the safetensors crate) would and prints\n"
            "one line per file: \"FILE: valid (N tensors)\" or \"FILE: invalid: RULE (ReferenceError) at\n"
            "byte OFFSET: message\". For an index, each shard and every inconsistency between the index\n"
            "and its shards is reported too. Only headers are read.\n\n"
            "Exit status: 0 all valid, 1 any invalid, 2 usage error or a path that cannot be read.",
    .options = kCheckOptions,
    .run = runCheck,
};

} // namespace stb::inspect
