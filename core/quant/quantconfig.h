#pragma once

#include <array>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace stb {

// What a model's config.json says about its quantization (`quantization_config`), in the
// fields the recognition uses to confirm or contradict the tensors. Absent fields stay empty.
struct QuantConfig {
    std::string method; // quant_method as written: "fp8", "gptq", "awq", ...
    std::optional<unsigned> bits; // bits, or compressed-tensors' weights.num_bits
    std::optional<std::int64_t> groupSize; // group_size (-1: per channel)
    std::optional<std::array<std::uint64_t, 2>> blockSize; // weight_block_size (FP8 block)
    // GPTQ's checkpoint_format (or GPTQModel's format where that is absent): "gptq_v2" and
    // "gptq_p" store zero-points as they are, "gptq" (the default) stores z − 1; "gptq_p" also
    // packs 3-bit codes in planes (GPTQModel's planar_packing), which are left raw.
    bool gptqStoredZeros = false;
    bool gptqPlanar = false;
    std::string format; // compressed-tensors "format" ("pack-quantized", ...)
    std::string bnb4bitType; // bnb_4bit_quant_type ("nf4", "fp4")
    bool bnb8bit = false; // load_in_8bit
};

// Parses a config.json text. nullopt with an empty `error` when it has no quantization_config;
// nullopt with a reason when the text is not JSON or nests deeper than 64 levels. Pure.
std::optional<QuantConfig> parseQuantConfig(std::string_view json, std::string &error);

// Whether JSON text nests at most `maxDepth` levels (strings skipped): checked before a DOM
// parse, so a hostile file cannot make nlohmann recurse deeply.
bool jsonShallowEnough(std::string_view text, int maxDepth);

// The config.json in the folder of `checkpointPath` (a .safetensors file or an index), read
// whole when at most 4 MiB. nullopt when there is none or it says nothing about quantization
// (`error` says why when it could not be used).
std::optional<QuantConfig> loadQuantConfig(const std::string &checkpointPath, std::string &error);

} // namespace stb
