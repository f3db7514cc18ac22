#pragma once

#include <string>
#include <vector>

namespace stb::inspect {

// Exit codes of every command: the contract scripts rely on.
enum ExitCode : int { Ok = 0, Findings = 1, Usage = 2 };

struct Options {
    bool json = false;
};

int runCheck(const std::vector<std::string> &paths, const Options &options);
int runInfo(const std::string &path, const Options &options);

} // namespace stb::inspect
