#include "commandline.h"

#include "core/text/pathbytes.h"
#include "core/text/textformat.h"

#include <cstdio>

namespace stb::inspect {

namespace {

std::string optionSyntax(const OptionSpec &option)
{
    // A one-letter name is a short option (-o).
    std::string syntax = (option.name.size() == 1 ? "-" : "--") + std::string(option.name);
    if (!option.valueName.empty())
        syntax += " " + std::string(option.valueName);
    return syntax;
}

// "--json, --bins, -h/--help": what an unknown option's error offers instead.
std::string validOptions(const Command &command)
{
    std::string list;
    for (const OptionSpec &option : command.options)
        list += (option.name.size() == 1 ? "-" : "--") + std::string(option.name) + ", ";
    return list + "-h/--help";
}

std::string operandCountError(const Command &command, std::size_t given)
{
    return "takes " + std::string(command.operands) + ", given "
        + (given == 0 ? std::string("none")
                      : std::to_string(given) + (given == 1 ? " operand" : " operands"));
}

} // namespace

std::string overviewHelp()
{
    std::string text = "Usage: safetensors-inspect COMMAND [OPTIONS] FILE...\n"
                       "Inspect and validate .safetensors checkpoints.\n\nCommands:\n";
    for (const Command *command : commands()) {
        const std::string head = std::string(command->name) + " " + std::string(command->operands);
        char line[256];
        std::snprintf(line, sizeof line, "  %-16s%s\n", head.c_str(), std::string(command->summary).c_str());
        text += line;
    }
    return text
        + "\nFILE is a .safetensors file or a sharded model's *.safetensors.index.json.\n"
          "Exit status: 0 all valid, 1 something invalid, 2 usage error or unreadable path.\n"
          "'safetensors-inspect COMMAND --help' describes a command and its options.\n\n"
          "Options:\n  -h, --help     Print this help.\n  -v, --version  Print the version.\n";
}

std::string commandHelp(const Command &command)
{
    std::string text = "Usage: safetensors-inspect " + std::string(command.name);
    for (const OptionSpec &option : command.options)
        text += " [" + optionSyntax(option) + "]";
    text += " " + std::string(command.operands) + "\n\n" + std::string(command.help) + "\n\nOptions:\n";
    const auto addLine = [&text](const std::string &syntax, const std::string &help) {
        char line[512];
        std::snprintf(line, sizeof line, "  %-14s%s\n", syntax.c_str(), help.c_str());
        text += line;
    };
    for (const OptionSpec &option : command.options) {
        const std::string defaultText
            = option.defaultValue.empty() ? "" : " (default " + std::string(option.defaultValue) + ")";
        addLine(optionSyntax(option), std::string(option.help) + defaultText);
    }
    addLine("-h, --help", "Print this help.");
    return text;
}

std::ptrdiff_t commandIndex(std::span<const std::string> arguments)
{
    for (std::size_t i = 1; i < arguments.size(); ++i) {
        if (!arguments[i].starts_with('-'))
            return static_cast<std::ptrdiff_t>(i);
    }
    return -1;
}

namespace {

// The options of one command line: what was set (flags map to ""), the operands, the first error.
class OptionReader {
public:
    OptionReader(const Command &command, std::span<const std::string> arguments)
        : m_command(command)
        , m_arguments(arguments)
    { }

    // False after the first error (its text in error()).
    bool read()
    {
        bool operandsOnly = false;
        for (m_at = 0; m_at < m_arguments.size() && m_error.empty(); ++m_at) {
            const std::string &argument = m_arguments[m_at];
            if (operandsOnly || argument == "-" || !argument.starts_with('-'))
                m_operands.push_back(argument);
            else if (argument == "--")
                operandsOnly = true;
            else if (argument.starts_with("--"))
                readLong(std::string_view(argument).substr(2));
            else
                readShorts(std::string_view(argument).substr(1));
        }
        return m_error.empty();
    }

    bool helpAsked() const { return m_help; }
    const std::string &error() const { return m_error; }
    std::vector<std::string> &operands() { return m_operands; }
    std::map<std::string, std::string, std::less<>> &values() { return m_values; }

private:
    const OptionSpec *find(std::string_view name) const
    {
        for (const OptionSpec &spec : m_command.options) {
            if (spec.name == name)
                return &spec;
        }
        return nullptr;
    }

    // --name, --name=value, --name value
    void readLong(std::string_view text)
    {
        const std::size_t equals = text.find('=');
        const std::string_view name = text.substr(0, equals);
        if ((name == "help" || name == "h") && equals == std::string_view::npos) {
            m_help = true;
            return;
        }
        const OptionSpec *spec = find(name);
        if (!spec) {
            m_error = "Unknown option '" + printable(std::string(name)) + "'.";
        } else if (spec->valueName.empty()) {
            if (equals != std::string_view::npos)
                m_error = "Unexpected value after '--" + std::string(name) + "'.";
            else
                m_values[std::string(name)];
        } else if (equals != std::string_view::npos) {
            m_values[std::string(name)] = std::string(text.substr(equals + 1));
        } else {
            takeNext(*spec);
        }
    }

    // -h, -ab (flags), -oVALUE, -o VALUE
    void readShorts(std::string_view letters)
    {
        for (std::size_t i = 0; i < letters.size(); ++i) {
            const std::string_view name = letters.substr(i, 1);
            if (name == "h") {
                m_help = true;
                continue;
            }
            const OptionSpec *spec = find(name);
            if (!spec) {
                m_error = "Unknown option '" + printable(std::string(name)) + "'.";
                return;
            }
            if (spec->valueName.empty()) {
                m_values[std::string(name)];
                continue;
            }
            if (i + 1 < letters.size())
                m_values[std::string(name)] = std::string(letters.substr(i + 1));
            else
                takeNext(*spec);
            return;
        }
    }

    void takeNext(const OptionSpec &spec)
    {
        const std::string syntax = (spec.name.size() == 1 ? "-" : "--") + std::string(spec.name);
        if (m_at + 1 >= m_arguments.size())
            m_error = "Missing value after '" + syntax + "'.";
        else
            m_values[std::string(spec.name)] = m_arguments[++m_at];
    }

    const Command &m_command;
    std::span<const std::string> m_arguments;
    std::size_t m_at = 0;
    bool m_help = false;
    std::string m_error;
    std::vector<std::string> m_operands;
    std::map<std::string, std::string, std::less<>> m_values;
};

} // namespace

Parsed parseCommandArguments(const Command &command, std::span<const std::string> arguments)
{
    OptionReader reader(command, arguments);
    if (!reader.read())
        return { std::nullopt,
            usageError(command,
                reader.error() + "\n" + std::string(command.name) + " takes " + validOptions(command)) };
    if (reader.helpAsked()) {
        std::fputs(commandHelp(command).c_str(), stdout);
        return { std::nullopt, Ok };
    }
    std::vector<std::string> &files = reader.operands();
    if (files.size() < command.minFiles || files.size() > command.maxFiles)
        return { std::nullopt, usageError(command, operandCountError(command, files.size())) };
    return { Invocation(command, std::move(files), std::move(reader.values())), Ok };
}

} // namespace stb::inspect
