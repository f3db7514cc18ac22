#pragma once

#include "core/audit/audit.h"
#include "core/report/report.h"

#include <string>

namespace stb {

// What a row of the audit is called: the tensor's name, dtype and shape, or for a quantized
// weight audited on dequantized values its logical name, scheme and logical shape.
struct AuditRowLabel {
    std::string name;
    std::string dtype; // the dtype's name, or the scheme's ("gptq")
    std::vector<std::uint64_t> shape;
    const QuantizedWeight *weight = nullptr; // set for a dequantized weight
};
AuditRowLabel auditRowLabel(const Checkpoint &checkpoint, const AuditResult &audit, const AuditEntry &entry);

// `audit --json`: {"file", "valid", "error", "tensors": [...], "summary": {...}}: "valid" and
// "error" (null, or the first problem as `check --json` gives it) say whether the checkpoint is
// one the reference accepts. NaN and infinite statistics are null (JSON has no NaN);
// "histogram" is null when all finite values are equal. An unreadable row has "unreadable": why;
// a tensor the index lists and no shard holds comes last, with null dtype and shape. A dequantized
// weight's row has its logical name and shape, "scheme", "bits" and "codes" (the tensor read);
// a companion's row has "companion_of" and no "scheme".
Json auditJson(const Checkpoint &checkpoint, const AuditResult &audit);
// The same as a Markdown report: a summary line and a table, for pasting into issues.
std::string auditMarkdown(const Checkpoint &checkpoint, const AuditResult &audit);
// Only some rows (indices into audit.entries, in that order; nullptr: all), as a view shows
// them: `scope` says which ("Flagged only, names containing \"mlp\": 3 of 40 tensors"); JSON
// gets "shown": {"tensors", "of", "scope"}, Markdown a line under the summary. The summary
// stays the whole audit's.
Json auditJson(const Checkpoint &checkpoint, const AuditResult &audit, const std::vector<std::size_t> *rows,
    const std::string &scope);
std::string auditMarkdown(const Checkpoint &checkpoint, const AuditResult &audit,
    const std::vector<std::size_t> *rows, const std::string &scope);
// A flag's identifier in JSON: "nan", "inf", "all_zero", "constant", "outlier:N",
// "duplicate", "unreadable" (part of the CLI's contract; the table is in auditflags.h).
std::string auditFlagId(const AuditFlag &flag);
// The flags as a person reads them (auditflags.h's labels), expected ones said so: "NaN values,
// duplicate of model.embed.weight (expected: tied embeddings)".
std::string auditFlagsText(const Checkpoint &checkpoint, const AuditResult &audit, const AuditEntry &entry);
// The flags of a tensor the index lists and no shard holds, with why: "unreadable bytes: shard
// "x" cannot be read: No such file or directory".
std::string auditAbsentFlagsText(const Checkpoint &checkpoint, const Checkpoint::AbsentTensor &absent);
// A number as the reports print it: shortest round-trip digits, "nan", "inf".
std::string formatValue(double value);

} // namespace stb
