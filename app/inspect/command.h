#pragma once

// One subcommand of safetensors-inspect: its name, operands, options, help and entry point.
// Adding a command is one new file (a `const Command kSomething{...}` and its run function) and
// one row in commandtable.cpp; parsing, per-command --help and usage errors come from here.
#include <map>
#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace stb::inspect {

// Exit codes of every command: the contract scripts rely on.
enum ExitCode : int { Ok = 0, Findings = 1, Usage = 2 };

struct OptionSpec {
    std::string_view name; // long name without dashes: "bins"
    std::string_view valueName; // empty for a flag: "N"
    std::string_view help; // one line
    std::string_view defaultValue = {};
};

// --json, shared by every command that prints JSON.
inline constexpr OptionSpec kJsonOption { "json", "", "Print JSON instead of text." };

class Invocation;

struct Command {
    std::string_view name; // "audit"
    std::string_view operands; // for the usage line: "FILE", "FILE...", "A B"
    std::size_t minFiles = 1;
    std::size_t maxFiles = 1; // kUnbounded: any number
    std::string_view summary; // one line in the command list
    std::string_view help; // paragraphs for `CMD --help`, after the usage line
    std::span<const OptionSpec> options;
    int (*run)(const Invocation &) = nullptr;

    static constexpr std::size_t kUnbounded = static_cast<std::size_t>(-1);
};

// A command line accepted for one command: its files and the options it was given.
class Invocation {
public:
    Invocation(const Command &command, std::vector<std::string> files,
        std::map<std::string, std::string, std::less<>> values);

    const Command &command() const { return *m_command; }
    const std::vector<std::string> &files() const { return m_files; }
    bool isSet(std::string_view option) const { return m_values.contains(option); }
    // The option's value as given, else its declared default.
    std::string value(std::string_view option) const;
    // Reads a number option into `out` when it is set (else `out` keeps its value). False, after a
    // usage error "--OPTION takes EXPECTED", when the value is not a number within [min, max].
    bool number(
        std::string_view option, double min, double max, std::string_view expected, double &out) const;

private:
    const Command *m_command;
    std::vector<std::string> m_files;
    std::map<std::string, std::string, std::less<>> m_values; // set options; flags map to ""
};

// The table of every command, in the order `--help` lists them.
std::span<const Command *const> commands();
const Command *findCommand(std::string_view name);

// Prints "safetensors-inspect CMD: MESSAGE" on stderr and returns Usage.
int usageError(const Command &command, const std::string &message);

} // namespace stb::inspect
