#pragma once

// The command line of safetensors-inspect, read in named steps: find the command, parse the
// options it declares, check its operands. Help texts are built from the command table.
#include "command.h"

#include <QStringList>

#include <optional>
#include <string>

namespace stb::inspect {

// The command-independent help: usage, the list of commands, exit codes.
std::string overviewHelp();
// `safetensors-inspect CMD --help`: the command's usage line, description and options.
std::string commandHelp(const Command &command);

// Where the command name sits in `arguments` (argv with the program at 0): the first argument
// that is not an option. -1 when there is none.
qsizetype commandIndex(const QStringList &arguments);

struct Parsed {
    std::optional<Invocation> invocation; // set when the command should run
    int exitCode = Ok; // otherwise: Ok after --help, Usage after an error
};
// Parses `arguments` (everything but the program and the command name) for `command`: its own
// options, -h/--help, and its operands. Prints help or usage errors itself.
Parsed parseCommandArguments(const Command &command, const QStringList &arguments);

} // namespace stb::inspect
