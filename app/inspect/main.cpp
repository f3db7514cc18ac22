// safetensors-inspect: the same answers as the browser, as text or JSON, for scripts and CI.
#include "commandline.h"

#include "core/io/openfilelimit.h"
#include "core/text/pathbytes.h"
#include "core/text/textformat.h"

#include <QCoreApplication>

#include <clocale>
#include <cstdio>

using namespace Qt::StringLiterals;

namespace {

// No command given: only --help and --version mean something.
int runWithoutCommand(const QStringList &arguments)
{
    const QString option = arguments.value(1);
    if (option == u"-h"_s || option == u"--help"_s) {
        std::fputs(stb::inspect::overviewHelp().c_str(), stdout);
        return stb::inspect::Ok;
    }
    if (option == u"-v"_s || option == u"--version"_s) {
        std::printf("safetensors-inspect %s\n", STB_VERSION);
        return stb::inspect::Ok;
    }
    if (option.isEmpty())
        std::fprintf(
            stderr, "safetensors-inspect: no command given\n\n%s", stb::inspect::overviewHelp().c_str());
    else
        std::fprintf(stderr,
            "safetensors-inspect: unknown option '%s' before a command\n"
            "Try 'safetensors-inspect --help'.\n",
            stb::printable(stb::pathFromUtf16(option.toStdU16String())).c_str());
    return stb::inspect::Usage;
}

} // namespace

int main(int argc, char *argv[])
{
    stb::raiseOpenFileLimit(); // headroom for models of many shards
    QCoreApplication app(argc, argv);
    QCoreApplication::setApplicationName(u"safetensors-inspect"_s);
    QCoreApplication::setApplicationVersion(QStringLiteral(STB_VERSION));
    std::setlocale(LC_NUMERIC, "C"); // numbers in our output never follow the user's locale

    // From argv, not QCoreApplication::arguments(): a path's bytes survive (pathbytes.h).
    QStringList arguments;
    for (int i = 0; i < argc; ++i)
        arguments.push_back(QString::fromStdU16String(stb::pathToUtf16(argv[i])));
    const qsizetype at = stb::inspect::commandIndex(arguments);
    if (at < 0)
        return runWithoutCommand(arguments);
    const QString name = arguments.takeAt(at);
    const stb::inspect::Command *command = stb::inspect::findCommand(name.toStdString());
    if (!command) {
        std::fprintf(stderr, "safetensors-inspect: unknown command '%s'\n\n%s",
            stb::printable(stb::pathFromUtf16(name.toStdU16String())).c_str(),
            stb::inspect::overviewHelp().c_str());
        return stb::inspect::Usage;
    }
    arguments.removeFirst(); // the program
    const stb::inspect::Parsed parsed = stb::inspect::parseCommandArguments(*command, arguments);
    return parsed.invocation ? command->run(*parsed.invocation) : parsed.exitCode;
}
