#pragma once

// The command line of safetensors-inspect, read in named steps: find the command, parse the
// options it declares, check its operands. Help texts are built from the command table.
// Arguments are argv's bytes, so a path or a name that is not UTF-8 reaches open() unchanged.
// No Qt: QCommandLineParser would load QtCore and ICU, some 20 ms of a process whose whole
// work on a small file takes a few (the rules below are QCommandLineParser's).
#include "command.h"

#include <optional>
#include <span>
#include <string>
#include <vector>

namespace stb::inspect {

// The command-independent help: usage, the list of commands, exit codes.
std::string overviewHelp();
// `safetensors-inspect CMD --help`: the command's usage line, description and options.
std::string commandHelp(const Command &command);

// Where the command name sits in `arguments` (argv with the program at 0): the first argument
// that is not an option. -1 when there is none.
std::ptrdiff_t commandIndex(std::span<const std::string> arguments);

struct Parsed {
    std::optional<Invocation> invocation; // set when the command should run
    int exitCode = Ok; // otherwise: Ok after --help, Usage after an error
};
// Parses `arguments` (everything but the program and the command name) for `command`: its own
// options, -h/--help, and its operands. Prints help or usage errors itself. As QCommandLineParser
// reads them: `--name`, `--name=VALUE` or `--name VALUE`; one-letter options after one dash, several
// flags in one (`-ab`), a value joined (`-oOUT`) or next; an option's value is the next argument
// even when it starts with a dash; the last of a repeated option wins; options may follow operands;
// after `--` every argument is an operand, and `-` alone is one.
Parsed parseCommandArguments(const Command &command, std::span<const std::string> arguments);

} // namespace stb::inspect
