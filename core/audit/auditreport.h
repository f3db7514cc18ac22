#pragma once

#include "core/audit/audit.h"
#include "core/report/report.h"

#include <string>

namespace stb {

// `audit --json`: {"file", "tensors": [...], "summary": {...}}; NaN and infinite statistics are
// null (JSON has no NaN); "histogram" is null when all finite values are equal.
Json auditJson(const Checkpoint &checkpoint, const AuditResult &audit);
// The same as a Markdown report: a summary line and a table, for pasting into issues.
std::string auditMarkdown(const Checkpoint &checkpoint, const AuditResult &audit);
// A flag's identifier in JSON and text: "nan", "inf", "all_zero", "constant", "outlier:N",
// "duplicate", "unreadable" (part of the CLI's contract).
std::string auditFlagId(const AuditFlag &flag);
// The flags as a person reads them: "nan, duplicate of model.embed.weight".
std::string auditFlagsText(const Checkpoint &checkpoint, const AuditResult &audit, const AuditEntry &entry);
// A number as the reports print it: shortest round-trip digits, "nan", "inf".
std::string formatValue(double value);

} // namespace stb
