#include "core/quant/quantscheme.h"

#include <array>

namespace stb {

namespace {

constexpr std::array<std::string_view, kQuantSchemeCount> kSchemeNames = {
    "fp8-block",
    "fp8-tensor",
    "fp8-channel",
    "mxfp4",
    "gptq",
    "awq",
    "bnb-nf4",
    "bnb-fp4",
    "bnb-int8",
    "pack-quantized",
};

} // namespace

std::string_view quantSchemeName(QuantScheme scheme)
{
    return kSchemeNames[static_cast<std::size_t>(scheme)];
}

std::optional<QuantScheme> quantSchemeFromName(std::string_view name)
{
    for (std::size_t i = 0; i < kSchemeNames.size(); ++i) {
        if (kSchemeNames[i] == name)
            return static_cast<QuantScheme>(i);
    }
    return std::nullopt;
}

std::string_view companionRoleName(CompanionRole role)
{
    switch (role) {
    case CompanionRole::Scale:
        return "scale";
    case CompanionRole::ZeroPoint:
        return "zero-point";
    case CompanionRole::GroupIndex:
        return "group index";
    case CompanionRole::Absmax:
        return "absmax";
    case CompanionRole::QuantMap:
        return "quant map";
    case CompanionRole::NestedAbsmax:
        return "nested absmax";
    case CompanionRole::NestedQuantMap:
        return "nested quant map";
    case CompanionRole::State:
        return "state";
    case CompanionRole::InputScale:
        return "input scale";
    case CompanionRole::Shape:
        return "shape";
    }
    return "companion";
}

std::string_view quantRuleName(QuantRule rule)
{
    switch (rule) {
    case QuantRule::CompanionShape:
        return "quant-companion-shape";
    case QuantRule::MissingScale:
        return "quant-missing-scale";
    case QuantRule::OrphanCompanion:
        return "quant-orphan-companion";
    case QuantRule::ConfigMismatch:
        return "quant-config-mismatch";
    case QuantRule::StateInvalid:
        return "quant-state-invalid";
    case QuantRule::RawValues:
        return "quant-raw-values";
    }
    return "quant";
}

} // namespace stb
