#pragma once

#include "core/io/checkpoint.h"
#include "core/quant/quantview.h"

#include <nlohmann/json.hpp>

namespace stb {

// Insertion-ordered, so keys print in the documented order.
using Json = nlohmann::ordered_json;

// The machine-readable answers of `safetensors-inspect`, built here so every front end (CLI,
// GUI export, tests) gives the same JSON. Key names are part of the CLI's contract.

// The JSON text of every front end (CLI lines, GUI exports): invalid UTF-8 replaced, and C0,
// DEL, C1 and bidi controls escaped as \uXXXX (escape.h), so no output line carries a control
// character from a file. `indent` as nlohmann's dump (-1: one line).
std::string jsonText(const Json &json, int indent = -1);

// {"rule","reference","message","offset","tensor"}; reference and tensor are null when empty.
Json diagnosticJson(const Diagnostic &d, bool withReference = true);
// A quantization warning as a "warnings" entry: the keys of diagnosticJson without "reference".
Json quantWarningJson(const QuantWarning &warning);

// `check --json` object for one file: {"file","valid","error","warnings"}.
Json fileCheckJson(const SafetensorsFile &file);
// The same from a file's path and diagnostics (its Header's, or checkHeader's).
Json fileCheckJson(const std::string &path, const DiagnosticList &diagnostics);
// For an index: the index's own object (its problems, and "shards": per-shard verdicts).
Json checkpointCheckJson(const Checkpoint &checkpoint);

// Totals of a checkpoint and its tensors in file order (shard by shard, each by offset).
struct CheckpointSummary {
    std::uint64_t parameters = 0; // saturating
    std::vector<std::pair<std::string_view, std::uint64_t>> parametersByDtype; // by name
    std::vector<const Checkpoint::Tensor *> fileOrder;
};
CheckpointSummary summarize(const Checkpoint &checkpoint);

// `info --json`'s "quantization": {"schemes": [{"scheme", "bits", "group_size", "weights",
// "parameters", "bytes"}], "effective_parameters", "bits_per_weight", "weights": [{"name",
// "scheme", "bits", "group_size", "logical_shape", "parameters", "companions": [names]}]}.
// Empty lists and a null bits_per_weight when nothing is quantized; group_size null when none.
Json quantizationJson(const Checkpoint &checkpoint, const QuantView &view);

// `info --json` text: the check keys plus sizes, counts, metadata, "quantization" (from `quant`,
// whose warnings join "warnings") and the tensor table. The table is written straight to text:
// a DOM for 100,000 rows would cost more than the parse.
std::string infoJsonText(
    const Checkpoint &checkpoint, const CheckpointSummary &summary, const QuantView &quant);

// Product of the shape, saturating (only a broken file can overflow).
std::uint64_t parameterCount(const TensorInfo &tensor);

} // namespace stb
