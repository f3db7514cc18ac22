#pragma once

#include <cstdint>
#include <string>
#include <utility>

namespace stb {

enum class Severity : std::uint8_t { Warning, Error };

// One finding about a file: the rule it concerns (a stable identifier from rules.md, such as
// "offsets" or "duplicate-name"), the reference implementation's error name for errors that the
// reference also raises ("InvalidOffset"; empty for our own warnings), a sentence for a person,
// the absolute byte offset in the file where it was found, and the tensor involved (may be empty).
struct Diagnostic {
    Severity severity = Severity::Error;
    std::string rule;
    std::string reference;
    std::string message;
    std::uint64_t offset = 0;
    std::string tensor;

    bool isError() const { return severity == Severity::Error; }
};

inline Diagnostic makeError(std::string rule, std::string reference, std::string message, std::uint64_t offset,
                            std::string tensor = {})
{
    return {Severity::Error, std::move(rule), std::move(reference), std::move(message), offset, std::move(tensor)};
}

inline Diagnostic makeWarning(std::string rule, std::string message, std::uint64_t offset, std::string tensor = {})
{
    return {Severity::Warning, std::move(rule), {}, std::move(message), offset, std::move(tensor)};
}

// A broken 100,000-tensor file could list a problem per tensor: keep the first ones.
inline constexpr std::size_t kMaxStoredDiagnostics = 10'000;

} // namespace stb
