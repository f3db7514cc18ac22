#include "core/audit/auditreport.h"

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
    switch (flag.kind) {
    case AuditFlag::Kind::Unreadable:
        return "unreadable";
    case AuditFlag::Kind::Nan:
        return "nan";
    case AuditFlag::Kind::Inf:
        return "inf";
    case AuditFlag::Kind::AllZero:
        return "all_zero";
    case AuditFlag::Kind::Constant:
        return "constant";
    case AuditFlag::Kind::Outlier:
        return "outlier:" + std::to_string(flag.outliers);
    case AuditFlag::Kind::Duplicate:
        return "duplicate";
    }
    return "unknown";
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
        out += auditFlagId(flag);
        if (flag.kind == AuditFlag::Kind::Duplicate && entry.duplicateOf >= 0)
            out += " of "
                + printable(auditRowLabel(checkpoint, audit, audit.entries[static_cast<std::size_t>(entry.duplicateOf)])
                                .name);
    }
    return out;
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
    Json j;
    j["file"] = checkpoint.path();
    Json tensors = Json::array();
    for (const auto &entry : audit.entries) {
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
        Json flags = Json::array();
        for (const auto &flag : entry.flags)
            flags.push_back(auditFlagId(flag));
        row["flags"] = std::move(flags);
        row["duplicate_of"] = entry.duplicateOf >= 0 ? Json(auditRowLabel(checkpoint, audit,
                                  audit.entries[static_cast<std::size_t>(entry.duplicateOf)])
                                                                .name)
                                                     : Json();
        tensors.push_back(std::move(row));
    }
    j["tensors"] = std::move(tensors);
    const AuditSummary &s = audit.summary;
    j["summary"] = { { "tensors", s.tensors }, { "elements", s.elements }, { "bytes", s.bytes },
        { "nan", s.withNan }, { "inf", s.withInf }, { "all_zero", s.allZero }, { "constant", s.constant },
        { "outlier", s.withOutliers }, { "duplicate", s.duplicates }, { "unreadable", s.unreadable },
        { "text", s.text() } };
    return j;
}

std::string auditMarkdown(const Checkpoint &checkpoint, const AuditResult &audit)
{
    std::string out = "# Audit of `" + checkpoint.path() + "`\n\n**" + audit.summary.text() + "** ("
        + formatCount(audit.summary.tensors) + " tensors, " + formatCount(audit.summary.elements)
        + " values, " + formatBytes(audit.summary.bytes) + ")\n\n"
        + "| tensor | dtype | shape | min | max | mean | std | NaN | Inf | zeros | flags |\n"
        + "|---|---|---|---:|---:|---:|---:|---:|---:|---:|---|\n";
    auto cell = [](std::string text) {
        std::string escaped;
        for (char c : text)
            escaped += c == '|' ? std::string("\\|") : std::string(1, c);
        return escaped;
    };
    for (const auto &entry : audit.entries) {
        const AuditRowLabel label = auditRowLabel(checkpoint, audit, entry);
        const TensorStats &s = entry.analysis.stats;
        out += "| `" + cell(printable(label.name)) + "` | " + label.dtype + " | " + formatShape(label.shape)
            + " | " + formatValue(s.min) + " | " + formatValue(s.max) + " | " + formatValue(s.mean) + " | "
            + formatValue(s.std) + " | " + std::to_string(s.nan) + " | " + std::to_string(s.posInf + s.negInf)
            + " | " + std::to_string(s.zeros) + " | " + cell(auditFlagsText(checkpoint, audit, entry))
            + " |\n";
    }
    return out;
}

} // namespace stb
