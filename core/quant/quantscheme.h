#pragma once

#include <cstdint>
#include <optional>
#include <string_view>

namespace stb {

// The quantization schemes the browser recognises (docs/quantization.md gives each layout and
// the project it was checked against). One table of names: the identifiers of the JSON output.
enum class QuantScheme : std::uint8_t {
    Fp8Block,
    Fp8Tensor,
    Fp8Channel,
    Mxfp4,
    Gptq,
    Awq,
    BnbNf4,
    BnbFp4,
    BnbInt8,
    PackQuantized,
};
inline constexpr std::size_t kQuantSchemeCount = 10;

std::string_view quantSchemeName(QuantScheme scheme); // "fp8-block", "gptq", ...
std::optional<QuantScheme> quantSchemeFromName(std::string_view name);

// What a companion tensor is to its weight.
enum class CompanionRole : std::uint8_t {
    Scale, // weight_scale, weight_scale_inv, scales, _scales, SCB
    ZeroPoint, // qzeros, weight_zero_point
    GroupIndex, // g_idx
    Absmax, // bitsandbytes absmax (F32, or U8 codes when nested)
    QuantMap, // bitsandbytes code table
    NestedAbsmax, // bitsandbytes double quantization
    NestedQuantMap,
    State, // bitsandbytes quant_state JSON, weight_format
    InputScale, // activation scale: carried along, never used to dequantize weights
    Shape, // compressed-tensors weight_shape
};
std::string_view companionRoleName(CompanionRole role);

// The structural checks on quantized weights, as warnings with these rule ids.
enum class QuantRule : std::uint8_t {
    CompanionShape, // a companion's shape or dtype does not fit its weight
    MissingScale, // a weight whose layout needs a scale (or other companion) that is absent
    OrphanCompanion, // a scale, zero-point or state tensor whose weight is absent
    ConfigMismatch, // config.json's quantization_config contradicts the tensors
    StateInvalid, // bitsandbytes quant_state JSON unreadable or inconsistent
    RawValues, // recognised, but its values stay raw (AWQ other than 4-bit, unusual layouts)
};
std::string_view quantRuleName(QuantRule rule); // "quant-companion-shape", ...

} // namespace stb
