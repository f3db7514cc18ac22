#include "core/audit/auditflags.h"

#include <array>

namespace stb {

namespace {

struct KindRow {
    AuditFlag::Kind kind;
    std::string_view id;
    std::string_view label;
    AuditSeverity severity;
};

constexpr std::array kKinds {
    KindRow { AuditFlag::Kind::Unreadable, "unreadable", "unreadable bytes", AuditSeverity::Error },
    KindRow { AuditFlag::Kind::Nan, "nan", "NaN values", AuditSeverity::Error },
    KindRow { AuditFlag::Kind::Inf, "inf", "infinite values", AuditSeverity::Error },
    KindRow { AuditFlag::Kind::AllZero, "all_zero", "all zero", AuditSeverity::Warning },
    KindRow { AuditFlag::Kind::Constant, "constant", "constant", AuditSeverity::Note },
    KindRow { AuditFlag::Kind::Outlier, "outlier", "outliers", AuditSeverity::Warning },
    KindRow { AuditFlag::Kind::Duplicate, "duplicate", "duplicate", AuditSeverity::Note },
};

const KindRow &row(AuditFlag::Kind kind)
{
    return kKinds[static_cast<std::size_t>(kind)]; // in enum order
}

} // namespace

AuditSeverity auditSeverity(AuditFlag::Kind kind)
{
    return row(kind).severity;
}

std::string_view auditSeverityName(AuditSeverity severity)
{
    switch (severity) {
    case AuditSeverity::Error:
        return "error";
    case AuditSeverity::Warning:
        return "warning";
    case AuditSeverity::Note:
        return "note";
    }
    return "note";
}

std::string auditFlagLabel(const AuditFlag &flag)
{
    if (flag.kind == AuditFlag::Kind::Outlier)
        return std::to_string(flag.outliers) + (flag.outliers == 1 ? " outlier" : " outliers");
    return std::string(row(flag.kind).label);
}

std::string_view auditKindId(AuditFlag::Kind kind)
{
    return row(kind).id;
}

bool auditKindFromId(std::string_view id, AuditFlag::Kind &kind)
{
    for (const KindRow &r : kKinds) {
        if (r.id == id) {
            kind = r.kind;
            return true;
        }
    }
    return false;
}

std::string_view auditExpectationId(AuditExpectation expectation)
{
    switch (expectation) {
    case AuditExpectation::None:
        return "";
    case AuditExpectation::BatchNormCounter:
        return "batchnorm_counter";
    case AuditExpectation::NormInitialisation:
        return "norm_initialisation";
    case AuditExpectation::TiedEmbeddings:
        return "tied_embeddings";
    case AuditExpectation::IgnoredRule:
        return "ignored_rule";
    case AuditExpectation::IgnoredName:
        return "ignored_name";
    }
    return "";
}

std::string_view auditExpectationText(AuditExpectation expectation)
{
    switch (expectation) {
    case AuditExpectation::None:
        return "";
    case AuditExpectation::BatchNormCounter:
        return "BatchNorm counters";
    case AuditExpectation::NormInitialisation:
        return "initial norm values";
    case AuditExpectation::TiedEmbeddings:
        return "tied embeddings";
    case AuditExpectation::IgnoredRule:
        return "ignored rules";
    case AuditExpectation::IgnoredName:
        return "ignored names";
    }
    return "";
}

} // namespace stb
