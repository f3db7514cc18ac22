#pragma once

#include <string>
#include <vector>

namespace stb::inspect {

// Exit codes of every command: the contract scripts rely on.
enum ExitCode : int { Ok = 0, Findings = 1, Usage = 2 };

struct Options {
    bool json = false;
    unsigned bins = 10; // audit: histogram bins
};

int runCheck(const std::vector<std::string> &paths, const Options &options);
int runInfo(const std::string &path, const Options &options);
// Exit 1 when any tensor holds NaN or Inf: usable as a CI gate.
int runAudit(const std::string &path, const Options &options);
int runSha256(const std::vector<std::string> &paths);

} // namespace stb::inspect
