#include "commandline.h"

#include "core/text/pathbytes.h"
#include "core/text/textformat.h"

#include <algorithm>
#include <cstdio>
#include <utility>
#include <vector>

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

// Rows of two columns: the left ones padded to the longest plus two spaces, so that no entry
// runs into its text; the lines of a text with line breaks indented to the second column.
std::string twoColumns(const std::vector<std::pair<std::string, std::string>> &rows)
{
    std::size_t width = 0;
    for (const auto &[left, right] : rows)
        width = std::max(width, left.size());
    std::string text;
    for (const auto &[left, right] : rows) {
        text += "  " + left + std::string(width + 2 - left.size(), ' ');
        for (std::size_t from = 0;;) {
            const std::size_t end = right.find('\n', from);
            std::string line = right.substr(from, end == std::string::npos ? std::string::npos : end - from);
            line.erase(0, from == 0 ? 0 : line.find_first_not_of(' ')); // continuation: our indent only
            text += line + "\n";
            if (end == std::string::npos)
                break;
            text += std::string(width + 4, ' ');
            from = end + 1;
        }
    }
    return text;
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
    std::vector<std::pair<std::string, std::string>> rows;
    for (const Command *command : commands())
        rows.emplace_back(
            std::string(command->name) + " " + std::string(command->operands), command->summary);
    return text + twoColumns(rows)
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
    std::vector<std::pair<std::string, std::string>> rows;
    for (const OptionSpec &option : command.options) {
        const std::string defaultText
            = option.defaultValue.empty() ? "" : " (default " + std::string(option.defaultValue) + ")";
        rows.emplace_back(optionSyntax(option), std::string(option.help) + defaultText);
    }
    rows.emplace_back("-h, --help", "Print this help.");
    return text + twoColumns(rows);
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
