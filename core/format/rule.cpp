#include "core/format/rule.h"

#include <iterator>

namespace stb {

namespace {

struct RuleRow {
    Rule rule;
    std::string_view id;
    std::string_view reference;
    Severity severity;
};

// The one table of rule names. Ids are part of the CLI's contract (docs/rules.md, README).
constexpr RuleRow kRules[] = {
    {Rule::HeaderTooSmall, "header-too-small", "HeaderTooSmall", Severity::Error},
    {Rule::HeaderTooLarge, "header-too-large", "HeaderTooLarge", Severity::Error},
    {Rule::HeaderLength, "header-length", "InvalidHeaderLength", Severity::Error},
    {Rule::HeaderUtf8, "header-utf8", "InvalidHeader", Severity::Error},
    {Rule::HeaderJson, "header-json", "InvalidHeaderDeserialization", Severity::Error},
    {Rule::Offsets, "offsets", "InvalidOffset", Severity::Error},
    {Rule::Overflow, "overflow", "ValidationOverflow", Severity::Error},
    {Rule::SubByte, "sub-byte", "MisalignedSlice", Severity::Error},
    {Rule::Size, "size", "TensorInvalidInfo", Severity::Error},
    {Rule::Coverage, "coverage", "MetadataIncompleteBuffer", Severity::Error},
    {Rule::DuplicateName, "duplicate-name", "", Severity::Warning},
    {Rule::DuplicateMetadataKey, "duplicate-metadata-key", "", Severity::Warning},
    {Rule::LeadingWhitespace, "leading-whitespace", "", Severity::Warning},
    {Rule::LargeHeader, "large-header", "", Severity::Warning},
    {Rule::SharedOffset, "shared-offset", "", Severity::Warning},
    {Rule::Misaligned, "misaligned", "", Severity::Warning},
    {Rule::NewDtype, "new-dtype", "", Severity::Warning},
    {Rule::MetadataJson, "metadata-json", "", Severity::Warning},
    {Rule::IndexJson, "index-json", "", Severity::Error},
    {Rule::IndexTooLarge, "index-too-large", "", Severity::Error},
    {Rule::IndexShardName, "index-shard-name", "", Severity::Error},
    {Rule::IndexMissingShard, "index-missing-shard", "", Severity::Error},
    {Rule::IndexDuplicateTensor, "index-duplicate-tensor", "", Severity::Error},
    {Rule::IndexMissingTensor, "index-missing-tensor", "", Severity::Error},
    {Rule::IndexWrongShard, "index-wrong-shard", "", Severity::Error},
    {Rule::IndexUnlistedTensor, "index-unlisted-tensor", "", Severity::Error},
    {Rule::IndexTotalSize, "index-total-size", "", Severity::Error},
};
static_assert(std::size(kRules) == kRuleCount, "one row per rule");

constexpr bool rowsInEnumOrder()
{
    for (std::size_t i = 0; i < std::size(kRules); ++i) {
        if (static_cast<std::size_t>(kRules[i].rule) != i)
            return false;
    }
    return true;
}
static_assert(rowsInEnumOrder(), "kRules is indexed by Rule");

const RuleRow &row(Rule rule) { return kRules[static_cast<std::size_t>(rule)]; }

} // namespace

std::string_view ruleId(Rule rule) { return row(rule).id; }

std::string_view referenceName(Rule rule) { return row(rule).reference; }

Severity ruleSeverity(Rule rule) { return row(rule).severity; }

} // namespace stb
