#pragma once

#include "core/io/checkpoint.h"
#include "core/quant/quantview.h"
#include "core/stats/tensoranalyzer.h"

#include <array>
#include <stop_token>
#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace stb {

// Unreadable: a name on both sides (or listed by an index whose shard is missing) whose values
// had to be read to say more and could not be: bytes past the end of a file, a shard missing.
// Never identical: nothing is known about its values.
enum class PairStatus : std::uint8_t {
    Identical,
    Changed,
    DTypeChanged,
    ShapeChanged,
    OnlyInA,
    OnlyInB,
    Unreadable
};
inline constexpr std::size_t kPairStatusCount = 7;
// "identical", "changed", "dtype_changed", "shape_changed", "only_in_a", "only_in_b", "unreadable"
std::string_view statusName(PairStatus status);

// Value differences between two tensors of equal shape, over the elements finite on both sides.
// Elements with NaN or ±Inf on either side are counted and left out of the metrics, so one NaN
// does not hide every other difference.
struct DiffMetrics {
    std::uint64_t compared = 0; // elements finite on both sides
    std::uint64_t different = 0; // elements whose values differ (NaN = NaN, -0 = +0)
    std::uint64_t nanA = 0, nanB = 0, infA = 0, infB = 0;
    std::uint64_t outOfTolerance = 0; // elements failing |a-b| <= atol + rtol*|b| (NaN/Inf must match)
    double maxAbsDiff = 0;
    std::uint64_t argmax = 0; // flat row-major index of the first largest difference
    double meanAbsDiff = NAN, relL2 = NAN, cosine = NAN; // NaN where undefined
};

struct TensorPair {
    std::string name; // a quantized weight's logical name ("….weight", not "….qweight")
    const Checkpoint::Tensor *a = nullptr; // null for only_in_b; a quantized weight's codes
    const Checkpoint::Tensor *b = nullptr; // null for only_in_a
    PairStatus status = PairStatus::Identical;
    std::optional<DiffMetrics> metrics; // changed, and dtype_changed with equal shapes
    bool readable = true; // false exactly when status is Unreadable
    // Index into Comparison::quantA / quantB weights() when that side is a quantized weight
    // compared on its dequantized values (its scheme stands for its dtype, its logical shape for
    // its shape); -1 otherwise.
    std::ptrdiff_t weightA = -1, weightB = -1;
    // Index into that side's Checkpoint::absentTensors() when its index lists the name but no
    // shard holds it (the side's tensor is then null); -1 otherwise.
    std::ptrdiff_t absentA = -1, absentB = -1;
};

// Changed, but judged by values (`tolerances`: atol/rtol were given) and every element within
// them: not a difference that matters. The one definition for the verdict, the tree and views.
bool withinTolerance(const TensorPair &pair, bool tolerances);

struct MetadataDiff {
    std::map<std::string, std::string> added, removed;
    std::map<std::string, std::pair<std::string, std::string>> changed;
};

struct Comparison {
    std::vector<TensorPair> pairs; // every name of either side, in name order
    MetadataDiff metadata;
    std::array<std::size_t, kPairStatusCount> counts {};
    // Same names, dtypes and shapes, and every value within tolerance (without tolerances:
    // every tensor byte-identical): the CLI's exit status 0.
    bool equivalent = true;
    std::shared_ptr<const QuantView> quantA, quantB; // CompareOptions' views, or null
};

// One side of a pair as reports show it: the dtype's name, or a dequantized weight's scheme
// ("gptq"), and the shape (the logical one for a quantized weight). nullopt for an absent side.
struct PairSide {
    std::string type;
    std::vector<std::uint64_t> shape;
    bool quantized = false;
};
std::optional<PairSide> pairSide(const Comparison &comparison, const TensorPair &pair, bool sideA);

struct CompareOptions {
    double atol = 0;
    double rtol = 0;
    bool tolerances = false; // atol/rtol given: judge values, not bytes
    unsigned threads = 0;
    // When set, each side's decodable quantized weights are compared on their dequantized values,
    // under their logical names (a GPTQ model against its BF16 original measures the
    // quantization error); their companions stay ordinary tensors. Quantized pairs are identical
    // when every dequantized value is equal.
    std::shared_ptr<const QuantView> quantA, quantB;
};

// Pairs tensors by name across two checkpoints (single files or sharded, sharded differently or
// not) and measures each pair: a byte comparison first (identical tensors cost nothing more),
// then decoded values for those that differ. Chunked on all cores, read straight from both
// mappings. nullopt when cancelled or a file vanished under the scan.
std::optional<Comparison> compareCheckpoints(const Checkpoint &a, const Checkpoint &b,
    const CompareOptions &options, std::stop_token stop = {},
    const ProgressFn &progress = {});

// Why one side of an unreadable pair cannot be read (unreadableReason, or the absent tensor's
// Checkpoint::absentReason); empty when that side is readable or absent from its checkpoint.
// `checkpoint` is that side's.
std::string sideUnreadableReason(const Checkpoint &checkpoint, const TensorPair &pair, bool sideA);

// `__metadata__` pairs of a checkpoint (every shard's, first one wins on a repeated key).
std::map<std::string, std::string> checkpointMetadata(const Checkpoint &checkpoint);

} // namespace stb
