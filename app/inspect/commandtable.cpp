#include "command.h"

#include <cerrno>
#include <cmath>
#include <cstdio>
#include <cstdlib>

namespace stb::inspect {

// Each command is defined in its own file (checkcommand.cpp, ...).
extern const Command kCheckCommand;
extern const Command kInfoCommand;
extern const Command kAuditCommand;
extern const Command kDiffCommand;
extern const Command kSha256Command;
extern const Command kLocateCommand;
extern const Command kHeatmapCommand;
extern const Command kExportCommand;
extern const Command kLayersCommand;

std::span<const Command *const> commands()
{
    static const Command *const table[] = {
        &kCheckCommand,
        &kInfoCommand,
        &kAuditCommand,
        &kDiffCommand,
        &kSha256Command,
        &kLocateCommand,
        &kHeatmapCommand,
        &kExportCommand,
        &kLayersCommand,
    };
    return table;
}

const Command *findCommand(std::string_view name)
{
    for (const Command *command : commands()) {
        if (command->name == name)
            return command;
    }
    return nullptr;
}

int usageError(const Command &command, const std::string &message)
{
    const std::string name(command.name);
    std::fprintf(stderr, "safetensors-inspect %s: %s\nTry 'safetensors-inspect %s --help'.\n", name.c_str(),
        message.c_str(), name.c_str());
    return Usage;
}

Invocation::Invocation(const Command &command, std::vector<std::string> files,
    std::map<std::string, std::string, std::less<>> values)
    : m_command(&command)
    , m_files(std::move(files))
    , m_values(std::move(values))
{ }

std::string Invocation::value(std::string_view option) const
{
    if (const auto it = m_values.find(option); it != m_values.end())
        return it->second;
    for (const OptionSpec &spec : m_command->options) {
        if (spec.name == option)
            return std::string(spec.defaultValue);
    }
    return {};
}

bool Invocation::number(
    std::string_view option, double min, double max, std::string_view expected, double &out) const
{
    const auto it = m_values.find(option);
    if (it == m_values.end())
        return true;
    const std::string &text = it->second;
    char *end = nullptr;
    errno = 0;
    const double parsed = text.empty() ? NAN : std::strtod(text.c_str(), &end);
    if (text.empty() || *end != '\0' || errno == ERANGE || !(parsed >= min && parsed <= max)) {
        usageError(*m_command, "--" + std::string(option) + " takes " + std::string(expected));
        return false;
    }
    out = parsed;
    return true;
}

} // namespace stb::inspect
