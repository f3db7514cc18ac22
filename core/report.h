#pragma once

#include "core/checkpoint.h"

#include <nlohmann/json.hpp>

namespace stb {

// Insertion-ordered, so keys print in the documented order.
using Json = nlohmann::ordered_json;

// The machine-readable answers of `safetensors-inspect`, built here so every front end (CLI,
// GUI export, tests) gives the same JSON. Key names are part of the CLI's contract.

// {"rule","reference","message","offset","tensor"}; reference and tensor are null when empty.
Json diagnosticJson(const Diagnostic &d, bool withReference = true);

// `check --json` object for one file: {"file","valid","error","warnings"}.
Json fileCheckJson(const SafetensorsFile &file);
// For an index: the index's own object (its problems, and "shards": per-shard verdicts).
Json checkpointCheckJson(const Checkpoint &checkpoint);

// `info --json` object: the check keys plus sizes, counts, metadata and the tensor table.
Json infoJson(const Checkpoint &checkpoint);

// Product of the shape, saturating (only a broken file can overflow).
std::uint64_t parameterCount(const TensorInfo &tensor);

} // namespace stb
