#include "core/audit/auditreport.h"

#include "core/audit/auditflags.h"
#include "core/io/readability.h"
#include "core/text/textformat.h"

#include <charconv>
#include <cmath>

namespace stb {

namespace {

Json number(double value)
{
    return std::isfinite(value) ? Json(value) : Json();
}

} // namespace

std::string auditFlagId(const AuditFlag &flag)
{
    std::string id(auditKindId(flag.kind));
    if (flag.kind == AuditFlag::Kind::Outlier)
        id += ":" + std::to_string(flag.outliers);
    return id;
}

AuditRowLabel auditRowLabel(const Checkpoint &checkpoint, const AuditResult &audit, const AuditEntry &entry)
{
    const TensorInfo &info = *checkpoint.tensors()[entry.tensor].info;
    if (entry.weight >= 0 && audit.quant) {
        const QuantizedWeight &w = audit.quant->weights()[static_cast<std::size_t>(entry.weight)];
        return { w.name, std::string(quantSchemeName(w.scheme)), w.logicalShape, &w };
    }
    return { info.name, std::string(dtypeName(info.dtype)), info.shape, nullptr };
}

std::string auditFlagsText(const Checkpoint &checkpoint, const AuditResult &audit, const AuditEntry &entry)
{
    std::string out;
    for (const auto &flag : entry.flags) {
        if (!out.empty())
            out += ", ";
        out += auditFlagLabel(flag);
        if (flag.kind == AuditFlag::Kind::Duplicate && entry.duplicateOf >= 0)
            out += " of "
                + printable(auditRowLabel(checkpoint, audit, audit.entries[static_cast<std::size_t>(entry.duplicateOf)])
                                .name);
        if (flag.expected != AuditExpectation::None)
            out += " (expected: " + std::string(auditExpectationText(flag.expected)) + ")";
    }
    return out;
}

std::string auditAbsentFlagsText(const Checkpoint &checkpoint, const Checkpoint::AbsentTensor &absent)
{
    return auditFlagLabel({ AuditFlag::Kind::Unreadable }) + ": " + checkpoint.absentReason(absent);
}

std::string formatValue(double value)
{
    if (std::isnan(value))
        return "nan";
    if (std::isinf(value))
        return value > 0 ? "inf" : "-inf";
    char buffer[32];
    const auto result = std::to_chars(buffer, buffer + sizeof buffer, value);
    return std::string(buffer, result.ptr);
}

Json auditJson(const Checkpoint &checkpoint, const AuditResult &audit)
{
    return auditJson(checkpoint, audit, nullptr, {});
}

Json auditJson(const Checkpoint &checkpoint, const AuditResult &audit, const std::vector<std::size_t> *rows,
    const std::string &scope)
{
    Json j;
    j["file"] = checkpoint.path();
    // As `check --json` says it: an invalid checkpoint's tensors cannot be trusted.
    j["valid"] = audit.summary.valid;
    const Diagnostic *error = audit.summary.valid ? nullptr : checkpoint.firstError();
    j["error"] = error ? diagnosticJson(*error) : Json();
    if (rows)
        j["shown"] = { { "tensors", rows->size() }, { "of", audit.entries.size() }, { "scope", scope } };
    Json tensors = Json::array();
    const std::size_t count = rows ? rows->size() : audit.entries.size();
    for (std::size_t r = 0; r < count; ++r) {
        const AuditEntry &entry = audit.entries[rows ? (*rows)[r] : r];
        const auto &t = checkpoint.tensors()[entry.tensor];
        const TensorStats &s = entry.analysis.stats;
        const AuditRowLabel label = auditRowLabel(checkpoint, audit, entry);
        Json row;
        row["name"] = label.name;
        row["dtype"] = dtypeName(t.info->dtype);
        row["shape"] = label.shape;
        if (label.weight) {
            row["scheme"] = label.dtype;
            row["bits"] = label.weight->bits;
            row["codes"] = t.info->name;
        } else if (const auto of = audit.quant ? audit.quant->weightOfCompanion(entry.tensor) : -1; of >= 0) {
            row["companion_of"] = audit.quant->weights()[static_cast<std::size_t>(of)].name;
        }
        if (checkpoint.isSharded())
            row["shard"] = checkpoint.shardNames()[t.shard];
        row["count"] = s.count;
        row["nan"] = s.nan;
        row["pos_inf"] = s.posInf;
        row["neg_inf"] = s.negInf;
        row["zeros"] = s.zeros;
        row["min"] = number(s.min);
        row["max"] = number(s.max);
        row["mean"] = number(s.mean);
        row["std"] = number(s.std);
        row["abs_max"] = number(s.absMax);
        const Histogram &h = entry.analysis.histogram;
        row["histogram"]
            = h.empty() ? Json() : Json({ { "lo", h.lo }, { "hi", h.hi }, { "counts", h.counts } });
        // "flags" are the findings; flags a normal model raises (or the user ignores) are listed
        // apart with the reason, so a script counting "flags" counts what the summary counts.
        Json flags = Json::array();
        Json expected = Json::array();
        for (const auto &flag : entry.flags) {
            if (flag.expected == AuditExpectation::None)
                flags.push_back(auditFlagId(flag));
            else
                expected.push_back({ { "flag", auditFlagId(flag) }, { "reason", std::string(auditExpectationId(flag.expected)) } });
        }
        row["flags"] = std::move(flags);
        if (!expected.empty())
            row["expected"] = std::move(expected);
        row["duplicate_of"] = entry.duplicateOf >= 0 ? Json(auditRowLabel(checkpoint, audit,
                                  audit.entries[static_cast<std::size_t>(entry.duplicateOf)])
                                                                .name)
                                                     : Json();
        if (!entry.readable)
            row["unreadable"] = unreadableReason(checkpoint, t);
        tensors.push_back(std::move(row));
    }
    // What the index lists and no shard holds: no dtype, shape or values, only why.
    for (const auto &absent :
        rows ? std::span<const Checkpoint::AbsentTensor>() : checkpoint.absentTensors()) {
        Json row;
        row["name"] = absent.name;
        row["dtype"] = nullptr;
        row["shape"] = nullptr;
        row["shard"] = checkpoint.index()->shards[absent.indexShard];
        row["count"] = 0;
        for (const char *key : { "nan", "pos_inf", "neg_inf", "zeros" })
            row[key] = 0;
        for (const char *key : { "min", "max", "mean", "std", "abs_max", "histogram" })
            row[key] = nullptr;
        row["flags"] = { auditFlagId({ AuditFlag::Kind::Unreadable }) };
        row["duplicate_of"] = nullptr;
        row["unreadable"] = checkpoint.absentReason(absent);
        tensors.push_back(std::move(row));
    }
    j["tensors"] = std::move(tensors);
    const AuditSummary &s = audit.summary;
    j["summary"] = { { "valid", s.valid }, { "tensors", s.tensors }, { "elements", s.elements },
        { "bytes", s.bytes }, { "nan", s.withNan }, { "inf", s.withInf }, { "all_zero", s.allZero },
        { "constant", s.constant }, { "outlier", s.withOutliers }, { "duplicate", s.duplicates },
        { "unreadable", s.unreadable }, { "expected", s.expected }, { "text", s.text() } };
    return j;
}

std::string auditMarkdown(const Checkpoint &checkpoint, const AuditResult &audit)
{
    return auditMarkdown(checkpoint, audit, nullptr, {});
}

std::string auditMarkdown(const Checkpoint &checkpoint, const AuditResult &audit,
    const std::vector<std::size_t> *rows, const std::string &scope)
{
    std::string out = "# Audit of `" + checkpoint.path() + "`\n\n**" + audit.summary.text() + "** ("
        + audit.summary.scope() + ")\n\n";
    if (!scope.empty())
        out += scope + "\n\n";
    out += "| tensor | dtype | shape | min | max | mean | std | NaN | Inf | zeros | flags |\n"
           "|---|---|---|---:|---:|---:|---:|---:|---:|---:|---|\n";
    auto cell = [](std::string text) {
        std::string escaped;
        for (char c : text)
            escaped += c == '|' ? std::string("\\|") : std::string(1, c);
        return escaped;
    };
    const std::size_t count = rows ? rows->size() : audit.entries.size();
    for (std::size_t r = 0; r < count; ++r) {
        const AuditEntry &entry = audit.entries[rows ? (*rows)[r] : r];
        const AuditRowLabel label = auditRowLabel(checkpoint, audit, entry);
        const TensorStats &s = entry.analysis.stats;
        out += "| `" + cell(printable(label.name)) + "` | " + label.dtype + " | " + formatShape(label.shape)
            + " | " + formatValue(s.min) + " | " + formatValue(s.max) + " | " + formatValue(s.mean) + " | "
            + formatValue(s.std) + " | " + std::to_string(s.nan) + " | " + std::to_string(s.posInf + s.negInf)
            + " | " + std::to_string(s.zeros) + " | " + cell(auditFlagsText(checkpoint, audit, entry))
            + " |\n";
    }
    for (const auto &absent : rows ? std::span<const Checkpoint::AbsentTensor>() : checkpoint.absentTensors())
        out += "| `" + cell(printable(absent.name)) + "` | - | - | | | | | | | | "
            + cell(auditAbsentFlagsText(checkpoint, absent)) + " |\n";
    return out;
}

} // namespace stb
