#pragma once

// QCOMPARE prints a Rule by its id instead of a number (QTest finds these by argument-dependent
// lookup).
#include "core/format/rule.h"

#include <QByteArray>

#include <string>
#include <vector>

namespace stb {

inline char *toString(Rule rule) { return qstrdup(ruleId(rule).data()); }

inline char *toString(const std::vector<Rule> &rules)
{
    std::string text = "{";
    for (const Rule rule : rules)
        text += (text.size() > 1 ? ", " : "") + std::string(ruleId(rule));
    return qstrdup((text + "}").c_str());
}

} // namespace stb
