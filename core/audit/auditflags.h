#pragma once

#include "core/audit/audit.h"

#include <string>
#include <string_view>

namespace stb {

// How much a flag matters: values a model cannot use (error), values that deserve a look
// (warning), facts that are often fine (note).
enum class AuditSeverity : std::uint8_t { Error, Warning, Note };

// The one table of audit flag words, shared by the CLI's text, the reports and the GUI:
//   kind        identifier (JSON)   label (people)        severity
//   Unreadable  unreadable          unreadable bytes      error
//   Nan         nan                 NaN values            error
//   Inf         inf                 infinite values       error
//   AllZero     all_zero            all zero              warning
//   Outlier     outlier:N           N outliers            warning
//   Constant    constant            constant              note
//   Duplicate   duplicate           duplicate             note
AuditSeverity auditSeverity(AuditFlag::Kind kind);
// "error", "warning", "note"
std::string_view auditSeverityName(AuditSeverity severity);
// "NaN values", "all zero", "3 outliers", "1 outlier"
std::string auditFlagLabel(const AuditFlag &flag);
// The identifier without detail, as an ignore rule names it: "nan", "outlier".
std::string_view auditKindId(AuditFlag::Kind kind);
// nullopt-like: false when `id` names no kind.
bool auditKindFromId(std::string_view id, AuditFlag::Kind &kind);

// "batchnorm_counter", "norm_initialisation", "tied_embeddings", "ignored_rule", "ignored_name"
// (JSON); "" for None.
std::string_view auditExpectationId(AuditExpectation expectation);
// "BatchNorm counters", "initial norm values", "tied embeddings", "ignored rule", "ignored names"
std::string_view auditExpectationText(AuditExpectation expectation);

} // namespace stb
