#include "commandline.h"

#include "core/text/pathbytes.h"
#include "core/text/textformat.h"

#include <QCommandLineParser>

#include <cstdio>

using namespace Qt::StringLiterals;

namespace stb::inspect {

namespace {

QString qt(std::string_view text)
{
    return QString::fromUtf8(text.data(), static_cast<qsizetype>(text.size()));
}

// The bytes an argument stood for (main decodes argv with pathToUtf16): a path or a tensor name
// reaches open() byte for byte, even when it is not UTF-8.
std::string bytes(const QString &argument)
{
    return pathFromUtf16(argument.toStdU16String());
}

std::string optionSyntax(const OptionSpec &option)
{
    // A one-letter name is a short option (-o), as QCommandLineParser reads it.
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

qsizetype commandIndex(const QStringList &arguments)
{
    for (qsizetype i = 1; i < arguments.size(); ++i) {
        if (!arguments[i].startsWith(u'-'))
            return i;
    }
    return -1;
}

Parsed parseCommandArguments(const Command &command, const QStringList &arguments)
{
    QCommandLineParser parser;
    const QCommandLineOption helpOption(QStringList { u"h"_s, u"help"_s });
    parser.addOption(helpOption);
    for (const OptionSpec &spec : command.options) {
        QCommandLineOption option(qt(spec.name));
        option.setValueName(qt(spec.valueName));
        parser.addOption(option);
    }
    // QCommandLineParser ignores the first element (the program name).
    if (!parser.parse(QStringList { u"safetensors-inspect"_s } + arguments))
        return { std::nullopt,
            usageError(command,
                printable(bytes(parser.errorText())) + "\n" + std::string(command.name) + " takes "
                    + validOptions(command)) };
    if (parser.isSet(helpOption)) {
        std::fputs(commandHelp(command).c_str(), stdout);
        return { std::nullopt, Ok };
    }

    std::vector<std::string> files;
    for (const QString &operand : parser.positionalArguments())
        files.push_back(bytes(operand));
    if (files.size() < command.minFiles || files.size() > command.maxFiles)
        return { std::nullopt, usageError(command, operandCountError(command, files.size())) };

    std::map<std::string, std::string, std::less<>> values;
    for (const OptionSpec &spec : command.options) {
        if (parser.isSet(qt(spec.name)))
            values.emplace(spec.name, bytes(parser.value(qt(spec.name))));
    }
    return { Invocation(command, std::move(files), std::move(values)), Ok };
}

} // namespace stb::inspect
