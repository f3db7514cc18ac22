#pragma once

#include <string>
#include <vector>

namespace stb::inspect {

// Exit codes of every command: the contract scripts rely on.
enum ExitCode : int { Ok = 0, Findings = 1, Usage = 2 };

struct Options {
    bool json = false;
    unsigned bins = 10; // audit: histogram bins
    double atol = 0;    // diff: tolerances, judged as |a-b| <= atol + rtol*|b|
    double rtol = 0;
    bool tolerances = false;
};

int runCheck(const std::vector<std::string> &paths, const Options &options);
int runInfo(const std::string &path, const Options &options);
// Exit 1 when any tensor holds NaN or Inf: usable as a CI gate.
int runAudit(const std::string &path, const Options &options);
int runSha256(const std::vector<std::string> &paths);
// Exit 0 when the checkpoints hold the same names, dtypes and shapes and every value is within
// tolerance (without --atol/--rtol: every byte equal), 1 otherwise.
int runDiff(const std::string &pathA, const std::string &pathB, const Options &options);

} // namespace stb::inspect
