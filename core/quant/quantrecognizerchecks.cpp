// QuantRecognizer, part three: companions whose weight is absent, config.json against the
// tensors, and the totals.
#include "core/quant/quantrecognizer.h"

#include "core/quant/quantshapes.h"

#include <algorithm>
#include <array>

namespace stb {

using namespace quant;

namespace {

// Suffixes only companions carry, with the weight each belongs to.
struct CompanionSuffix {
    std::string_view suffix;
    std::string_view weight; // what the weight is called, for the message
};
constexpr std::array<CompanionSuffix, 14> kCompanionSuffixes = { {
    { ".weight_scale_inv", ".weight (FP8)" },
    { ".weight_scale", ".weight or .weight_packed" },
    { ".input_scale", ".weight (FP8)" },
    { ".qzeros", ".qweight" },
    { ".g_idx", ".qweight" },
    { ".SCB", ".weight (I8)" },
    { ".weight.absmax", ".weight (U8)" },
    { ".weight.quant_map", ".weight (U8)" },
    { ".weight.nested_absmax", ".weight (U8)" },
    { ".weight.nested_quant_map", ".weight (U8)" },
    { ".weight.quant_state.bitsandbytes__nf4", ".weight (U8)" },
    { ".weight.quant_state.bitsandbytes__fp4", ".weight (U8)" },
    { ".weight_zero_point", ".weight_packed" },
    { ".weight_shape", ".weight_packed" },
} };

// The schemes a config's quant_method stands for; empty for methods we do not know.
std::vector<QuantScheme> schemesOfMethod(const std::string &method)
{
    using S = QuantScheme;
    if (method == "fp8" || method == "fbgemm_fp8")
        return { S::Fp8Block, S::Fp8Tensor, S::Fp8Channel };
    if (method == "gptq")
        return { S::Gptq };
    if (method == "awq")
        return { S::Awq };
    if (method == "mxfp4")
        return { S::Mxfp4 };
    if (method == "bitsandbytes")
        return { S::BnbNf4, S::BnbFp4, S::BnbInt8 };
    if (method == "compressed-tensors")
        return { S::PackQuantized, S::Fp8Block, S::Fp8Tensor, S::Fp8Channel };
    return {};
}

} // namespace

void QuantRecognizer::findOrphans()
{
    for (std::size_t i = 0; i < m_checkpoint.tensors().size(); ++i) {
        if (m_claimed[i])
            continue;
        const TensorInfo &t = info(i);
        for (const auto &c : kCompanionSuffixes) {
            if (endsWith(t.name, c.suffix)) {
                const std::string base = t.name.substr(0, t.name.size() - c.suffix.size());
                warn(QuantRule::OrphanCompanion, i,
                    "companion without a quantized weight: no " + base + std::string(c.weight)
                        + " claims it");
                break;
            }
        }
        // MXFP4 scales (U8) without their blocks.
        if (t.dtype == DType::U8 && (endsWith(t.name, "_scales") || endsWith(t.name, ".scales"))) {
            const std::string base = t.name.substr(0, t.name.size() - 7);
            if (find(base + t.name[t.name.size() - 7] + "blocks") < 0)
                warn(QuantRule::OrphanCompanion, i,
                    "MXFP4 scales without their blocks " + base + t.name[t.name.size() - 7] + "blocks");
        }
    }
}

void QuantRecognizer::checkConfig()
{
    if (!m_config)
        return;
    const auto family = schemesOfMethod(m_config->method);
    if (family.empty())
        return;
    const auto inFamily
        = [&](QuantScheme s) { return std::find(family.begin(), family.end(), s) != family.end(); };
    std::size_t matching = 0;
    for (const auto &w : m_view.m_weights)
        matching += inFamily(w.scheme);
    const auto warnConfig = [&](std::size_t tensor, std::string message) {
        if (m_view.m_warnings.size() < 1000)
            m_view.m_warnings.push_back({ QuantRule::ConfigMismatch, "config.json: " + std::move(message), 0,
                m_checkpoint.tensors().empty() ? std::string() : info(tensor).name });
    };
    if (!matching) {
        std::string found = m_view.m_weights.empty()
            ? std::string("no quantized weight")
            : std::string(quantSchemeName(m_view.m_weights.front().scheme)) + " weights";
        warnConfig(0,
            "quantization_config says quant_method \"" + m_config->method.substr(0, 40)
                + "\", but the tensors hold " + found);
        return;
    }
    for (const auto &w : m_view.m_weights) {
        const bool integer = w.scheme == QuantScheme::Gptq || w.scheme == QuantScheme::Awq
            || w.scheme == QuantScheme::PackQuantized;
        if (integer && m_config->bits && *m_config->bits != w.bits) {
            warnConfig(w.tensor,
                "quantization_config says " + std::to_string(*m_config->bits) + " bits, but " + w.name
                    + " holds " + std::to_string(w.bits) + "-bit codes");
            break;
        }
        if (integer && m_config->groupSize && *m_config->groupSize > 0 && w.groupSize
            && static_cast<std::uint64_t>(*m_config->groupSize) != w.groupSize) {
            warnConfig(w.tensor,
                "quantization_config says group_size " + std::to_string(*m_config->groupSize) + ", but "
                    + w.name + " has groups of " + std::to_string(w.groupSize));
            break;
        }
        if (!m_config->bnb4bitType.empty()
            && ((w.scheme == QuantScheme::BnbNf4 && m_config->bnb4bitType != "nf4")
                || (w.scheme == QuantScheme::BnbFp4 && m_config->bnb4bitType != "fp4"))) {
            warnConfig(w.tensor,
                "bnb_4bit_quant_type \"" + m_config->bnb4bitType.substr(0, 16) + "\" contradicts "
                    + std::string(quantSchemeName(w.scheme)) + " in " + w.name);
            break;
        }
    }
}

void QuantRecognizer::totals()
{
    QuantView &v = m_view;
    for (std::size_t i = 0; i < m_checkpoint.tensors().size(); ++i) {
        const TensorInfo &t = info(i);
        const std::uint64_t elements = t.elementCount().value_or(UINT64_MAX);
        v.m_rawElements = elements > UINT64_MAX - v.m_rawElements ? UINT64_MAX : v.m_rawElements + elements;
        v.m_tensorBytes += t.byteLength();
        if (v.m_companionOf[i] >= 0)
            v.m_companionBytes += t.byteLength();
        if (!m_claimed[i]) // an ordinary tensor (claimed ones count through their weight)
            v.m_effectiveParameters += elements;
    }
    std::array<SchemeTotals, kQuantSchemeCount> per {};
    std::array<bool, kQuantSchemeCount> mixedGroups {};
    for (const auto &w : v.m_weights) {
        v.m_effectiveParameters += w.parameters;
        auto &s = per[static_cast<std::size_t>(w.scheme)];
        if (s.weights && s.groupSize != w.groupSize)
            mixedGroups[static_cast<std::size_t>(w.scheme)] = true;
        s.scheme = w.scheme;
        s.bits = std::max(s.bits, w.bits);
        s.groupSize = w.groupSize;
        ++s.weights;
        s.parameters += w.parameters;
        s.bytes += w.bytes;
    }
    for (std::size_t k = 0; k < per.size(); ++k) {
        if (!per[k].weights)
            continue;
        if (mixedGroups[k])
            per[k].groupSize = 0;
        v.m_schemes.push_back(per[k]);
    }
}

} // namespace stb
