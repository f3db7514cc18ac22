#pragma once

#include <cstddef>
#include <cstdint>
#include <string_view>

namespace stb {

enum class Severity : std::uint8_t { Warning, Error };

// Every rule a diagnostic can name: the reference's validation rules (in its order), the
// warnings about files it accepts, and the checks of a sharded index against its shards.
// Their stable ids (docs/rules.md, README) and reference error names are in one table, rule.cpp.
enum class Rule : std::uint8_t {
    // Errors the reference raises too, in the order it checks them.
    HeaderTooSmall,
    HeaderTooLarge,
    HeaderLength,
    HeaderUtf8,
    HeaderJson,
    Offsets,
    Overflow,
    SubByte,
    Size,
    Coverage,
    // Warnings: the reference accepts the file.
    DuplicateName,
    DuplicateMetadataKey,
    LeadingWhitespace,
    LargeHeader,
    SharedOffset,
    Misaligned,
    NewDtype,
    MetadataJson,
    // A sharded checkpoint's index and its consistency with the shards (errors).
    IndexJson,
    IndexTooLarge, // an index file over kMaxHeaderLength: not read
    IndexShardName,
    IndexMissingShard,
    IndexDuplicateTensor,
    IndexMissingTensor,
    IndexWrongShard,
    IndexUnlistedTensor,
    IndexTotalSize,
};
inline constexpr std::size_t kRuleCount = static_cast<std::size_t>(Rule::IndexTotalSize) + 1;

// The stable identifier printed and written to JSON: "offsets", "index-total-size".
std::string_view ruleId(Rule rule);
// The reference implementation's error name ("InvalidOffset"); empty for rules it lacks.
std::string_view referenceName(Rule rule);
Severity ruleSeverity(Rule rule);

} // namespace stb
