#pragma once

#include "core/io/checkpoint.h"
#include "core/quant/dequantizer.h"
#include "core/quant/quantview.h"
#include "core/stats/tensoranalyzer.h"
#include "core/stats/tensorstats.h"

#include <stop_token>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <vector>

namespace stb {

// Why a flag is not a finding: normal models raise it (auditexpected.h recognises these), or
// the user chose to ignore that rule or those names. Written as text by auditExpectationId.
enum class AuditExpectation : std::uint8_t {
    None, // a finding
    BatchNormCounter, // `num_batches_tracked`: equal scalars in every BatchNorm
    NormInitialisation, // running statistics and norm weights at their initial 1 (or 0)
    TiedEmbeddings, // the output projection shares the input embedding's values
    IgnoredRule, // the user ignores this kind of flag in this model
    IgnoredName, // the user ignores flags on tensors named like this
};

// One thing an auditor looks for in a tensor, with its detail. Written as text only at the edge
// (auditflags.h: the identifier "outlier:3", the label "3 outliers", the severity).
struct AuditFlag {
    enum class Kind : std::uint8_t {
        Unreadable, // its bytes are not all inside the file
        Nan,
        Inf,
        AllZero, // every element is zero
        Constant, // every element is equal (and finite)
        Outlier, // `outliers` values beyond 6 standard deviations
        Duplicate, // the same bytes as an earlier tensor (AuditEntry::duplicateOf)
    };
    Kind kind;
    std::uint64_t outliers = 0; // Outlier only
    AuditExpectation expected = AuditExpectation::None;

    // Values a model cannot use, as opposed to values that deserve a look.
    bool unusable() const { return kind == Kind::Unreadable || kind == Kind::Nan || kind == Kind::Inf; }
    bool operator==(const AuditFlag &) const = default;
};

// One tensor's audit: its statistics and the flags an auditor looks for.
struct AuditEntry {
    std::size_t tensor = 0; // index into Checkpoint::tensors()
    bool readable = true; // false when its bytes are not all inside the file
    TensorAnalysis analysis;
    std::vector<AuditFlag> flags; // in the order of AuditFlag::Kind
    std::ptrdiff_t duplicateOf = -1; // index into AuditResult::entries of the earlier identical tensor
    // Index into AuditResult::quant->weights() when this entry is a quantized weight (the tensor
    // holds its codes) audited on its dequantized values; -1 otherwise.
    std::ptrdiff_t weight = -1;

    // A flag of that kind, expected or not.
    bool has(AuditFlag::Kind kind) const;
    // A flag of that kind that counts (not expected, not ignored).
    bool hasFinding(AuditFlag::Kind kind) const;
    // Any flag that counts: what "Flagged only" shows.
    bool hasFindings() const;
};

struct AuditSummary {
    std::size_t tensors = 0; // entries, and the tensors an index lists that no shard holds
    // What `check` says of the checkpoint: an invalid one is a finding of its own (none of its
    // tensors can be trusted), its first problem as diagnosticLine words it.
    bool valid = true;
    std::string invalidReason; // "header-length (InvalidHeaderLength) at byte 0: …"
    std::uint64_t elements = 0;
    std::uint64_t bytes = 0;
    std::size_t withNan = 0, withInf = 0, allZero = 0, constant = 0, withOutliers = 0, duplicates = 0,
                unreadable = 0; // tensors whose bytes cannot be read, listed tensors no shard holds
    std::string firstUnreadable; // quotedName(NAME) + ": reason" of the first unreadable tensor
    // Flags not counted above: expected in a normal model, or ignored by the user; and which
    // reasons occurred (bit i for AuditExpectation(i)).
    std::size_t expected = 0;
    std::uint32_t expectedReasons = 0;

    // The findings: "2 tensors with NaN, 1 all-zero, 1 duplicate pair", or "No findings in
    // 20,000 tensors"; unreadable tensors are named with the reason of the first ("1 unreadable
    // ("w": bytes 78–86 lie past the end of the file (file is 78 bytes))"); an invalid file
    // starts with its verdict ("invalid: coverage (MetadataIncompleteBuffer) at byte 78: …; "
    // then the findings, or "no other findings in 3 tensors"); flags not counted are said so
    // ("; 16 expected, not counted: BatchNorm counters"). Counts with thousands separators.
    std::string text() const;
    // What makes `audit` exit 1: NaN, Inf, unreadable tensors, or an invalid file.
    bool failed() const { return withNan || withInf || unreadable || !valid; }
    // What was audited: "8 tensors, 27 values, 108 B", without the tensor count when text()
    // has it already ("1,234,567 values, 2.3 GiB").
    std::string scope() const;
    // text() with its scope, the one summary line of every front end: "No findings in 20,000
    // tensors (1,234,567 values, 2.3 GiB)", "1 tensor with NaN (8 tensors, 27 values, 108 B)".
    std::string line() const;
};

struct AuditResult {
    std::vector<AuditEntry> entries; // in tensor-name order
    AuditSummary summary;
    std::shared_ptr<const QuantView> quant; // the view dequantized weights came from, or null
};

// The summary of an audit's entries, counting only flags that are not expected (call again
// after changing which flags are expected), with the checkpoint's validity and the tensors its
// index lists that no shard holds (Checkpoint::absentTensors), counted as unreadable.
AuditSummary summarizeAudit(const Checkpoint &checkpoint, const std::vector<AuditEntry> &entries);

// The audit's scan of some tensors (indices into Checkpoint::tensors()): statistics and histogram
// of each, large tensors with all threads in turn, small ones side by side. Element k belongs to
// tensors[k]; nullopt for a tensor whose bytes are not all in its file. Progress counts the bytes
// of these tensors. nullopt when cancelled or when a file vanished under the scan. When
// `decoders` is not empty it runs beside `tensors`: a set decoders[k] measures the dequantized
// values of the weight whose codes are tensors[k] instead of the codes.
std::optional<std::vector<std::optional<TensorAnalysis>>> analyzeTensors(const Checkpoint &checkpoint,
    std::span<const std::size_t> tensors, const AnalysisOptions &options,
    std::stop_token stop = {}, const ProgressFn &progress = {},
    std::span<const std::optional<Dequantizer>> decoders = {});

// Scans every tensor of a checkpoint (all shards): statistics, histogram, flags and duplicates
// (equal statistics, then equal digests, confirmed byte for byte). Without options.digest only
// those candidates get a TensorAnalysis::digest, which is much faster. Large tensors are scanned with all
// threads in turn, small ones side by side. nullopt when cancelled or when a file vanished under the scan.
// With `quant`, the codes of each decodable quantized weight are audited on their dequantized
// values (AuditEntry::weight says which); its companions stay ordinary entries. Flags that normal
// models raise are marked expected (markExpected in auditexpected.h) and not counted.
std::optional<AuditResult> auditCheckpoint(const Checkpoint &checkpoint, const AnalysisOptions &options,
    std::stop_token stop = {}, const ProgressFn &progress = {},
    std::shared_ptr<const QuantView> quant = nullptr);

} // namespace stb
