// safetensors-inspect: the same answers as the browser, as text or JSON, for scripts and CI.
#include "commandline.h"

#include "core/io/hugepageheap.h"
#include "core/io/openfilelimit.h"
#include "core/text/textformat.h"

#include <clocale>
#include <cstdio>
#include <string>
#include <vector>

namespace {

// No command given: only --help and --version mean something.
int runWithoutCommand(const std::vector<std::string> &arguments)
{
    const std::string option = arguments.size() > 1 ? arguments[1] : std::string();
    if (option == "-h" || option == "--help") {
        std::fputs(stb::inspect::overviewHelp().c_str(), stdout);
        return stb::inspect::Ok;
    }
    if (option == "-v" || option == "--version") {
        std::printf("safetensors-inspect %s\n", STB_VERSION);
        return stb::inspect::Ok;
    }
    if (option.empty())
        std::fprintf(
            stderr, "safetensors-inspect: no command given\n\n%s", stb::inspect::overviewHelp().c_str());
    else
        std::fprintf(stderr,
            "safetensors-inspect: unknown option '%s' before a command\n"
            "Try 'safetensors-inspect --help'.\n",
            stb::printable(option).c_str());
    return stb::inspect::Usage;
}

} // namespace

int main(int argc, char *argv[])
{
    stb::useHugePagesForTheHeap(); // a large header's names and shapes in few page faults
    stb::raiseOpenFileLimit(); // headroom for models of many shards
    std::setlocale(LC_NUMERIC, "C"); // numbers in our output never follow the user's locale

    // argv's bytes: a path that is not UTF-8 survives.
    std::vector<std::string> arguments(argv, argv + argc);
    const std::ptrdiff_t at = stb::inspect::commandIndex(arguments);
    if (at < 0)
        return runWithoutCommand(arguments);
    const std::string name = arguments[static_cast<std::size_t>(at)];
    arguments.erase(arguments.begin() + at);
    const stb::inspect::Command *command = stb::inspect::findCommand(name);
    if (!command) {
        std::fprintf(stderr, "safetensors-inspect: unknown command '%s'\n\n%s", stb::printable(name).c_str(),
            stb::inspect::overviewHelp().c_str());
        return stb::inspect::Usage;
    }
    const stb::inspect::Parsed parsed
        = stb::inspect::parseCommandArguments(*command, std::span(arguments).subspan(1)); // not the program
    return parsed.invocation ? command->run(*parsed.invocation) : parsed.exitCode;
}
