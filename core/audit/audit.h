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

// One thing an auditor looks for in a tensor, with its detail. Written as text only at the edge
// (auditFlagId in auditreport.h: "nan", "outlier:3").
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

    bool has(AuditFlag::Kind kind) const;
};

struct AuditSummary {
    std::size_t tensors = 0;
    std::uint64_t elements = 0;
    std::uint64_t bytes = 0;
    std::size_t withNan = 0, withInf = 0, allZero = 0, constant = 0, withOutliers = 0, duplicates = 0,
                unreadable = 0;
    std::string firstUnreadable; // quotedName(NAME) + ": reason" of the first unreadable tensor

    // "2 tensors with NaN, 1 all-zero, 1 duplicate pair" (or "no findings"); unreadable tensors
    // are named with the reason of the first ("1 unreadable: "w": its bytes end past the end of
    // the file").
    std::string text() const;
};

struct AuditResult {
    std::vector<AuditEntry> entries; // in tensor-name order
    AuditSummary summary;
    std::shared_ptr<const QuantView> quant; // the view dequantized weights came from, or null
};

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
// values (AuditEntry::weight says which); its companions stay ordinary entries.
std::optional<AuditResult> auditCheckpoint(const Checkpoint &checkpoint, const AnalysisOptions &options,
    std::stop_token stop = {}, const ProgressFn &progress = {},
    std::shared_ptr<const QuantView> quant = nullptr);

} // namespace stb
