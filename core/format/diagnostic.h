#pragma once

#include "core/format/rule.h"

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace stb {

// One finding about a file: the rule it concerns (its id, reference name and severity come from
// the rule's table row), a sentence for a person (bounded in length whatever the input: names in
// it are shortened by quotedName), the absolute byte offset in the file where it was found, and
// the tensor involved (its full name, to find it by; may be empty).
struct Diagnostic {
    Rule rule = Rule::HeaderJson;
    std::string message;
    std::uint64_t offset = 0;
    std::string tensor;

    Severity severity() const { return ruleSeverity(rule); }
    bool isError() const { return severity() == Severity::Error; }
    std::string_view id() const { return ruleId(rule); }
    std::string_view reference() const { return referenceName(rule); }
};

// The one way to make a diagnostic.
inline Diagnostic diagnose(Rule rule, std::string message, std::uint64_t offset, std::string_view tensor = {})
{
    return {rule, std::move(message), offset, std::string(tensor)};
}

// "RULE (ReferenceName) at byte OFFSET: message" (no reference part for our own rules): the one
// text form of a diagnostic, for the CLI and text exports.
std::string diagnosticLine(const Diagnostic &d);

// Diagnostics in the order they were found, at most kCap of them stored: a broken 100,000-tensor
// file could list a problem per tensor. What is found beyond the cap is counted, so output can
// say "and N more" and JSON can carry the total.
class DiagnosticList {
public:
    static constexpr std::size_t kCap = 10'000;

    void add(Diagnostic d)
    {
        if (m_items.size() < kCap)
            m_items.push_back(std::move(d));
        else
            ++m_dropped;
    }
    // Errors first, then warnings, each in the order found (the reference meets errors in order).
    void putErrorsFirst();

    bool empty() const { return m_items.empty(); }
    std::size_t size() const { return m_items.size(); }
    std::size_t dropped() const { return m_dropped; }
    // Everything found, stored or not.
    std::size_t total() const { return m_items.size() + m_dropped; }
    const Diagnostic &operator[](std::size_t i) const { return m_items[i]; }
    const Diagnostic &front() const { return m_items.front(); }
    std::vector<Diagnostic>::const_iterator begin() const { return m_items.begin(); }
    std::vector<Diagnostic>::const_iterator end() const { return m_items.end(); }

private:
    std::vector<Diagnostic> m_items;
    std::size_t m_dropped = 0;
};

} // namespace stb
