#pragma once

#include "core/io/checkpoint.h"
#include "core/quant/quantconfig.h"
#include "core/quant/quantizedweight.h"

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace stb {

// A structural finding about quantized tensors (a warning: the file itself is valid): the rule,
// a sentence, the header offset of the tensor's entry and the tensor's name.
struct QuantWarning {
    QuantRule rule = QuantRule::CompanionShape;
    std::string message;
    std::uint64_t offset = 0;
    std::string tensor;
    std::string_view id() const { return quantRuleName(rule); }
};

// "RULE at byte OFFSET: message", as diagnosticLine writes a diagnostic of our own rules.
std::string quantWarningLine(const QuantWarning &warning);

// Totals of one scheme over a checkpoint.
struct SchemeTotals {
    QuantScheme scheme = QuantScheme::Fp8Tensor;
    unsigned bits = 0;
    std::uint64_t groupSize = 0; // 0 when none, or when the weights disagree
    std::size_t weights = 0;
    std::uint64_t parameters = 0; // logical elements
    std::uint64_t bytes = 0; // codes plus companions
    double bitsPerWeight() const
    {
        return parameters ? 8.0 * static_cast<double>(bytes) / static_cast<double>(parameters) : 0;
    }
};

// The quantization view of a checkpoint: its logical weights, which tensors are codes and which
// companions, totals in effective parameters, and structural warnings. Immutable once built.
class QuantView {
public:
    // Recognises the schemes of docs/quantization.md from names, dtypes and shapes, confirmed
    // or contradicted by `config` (config.json's quantization_config) when given. Reads only
    // small tensors from the mapping (bitsandbytes' quant_state JSON, compressed-tensors'
    // weight_shape), under the SIGBUS guard. Never fails: what does not fit stays raw, with a
    // warning when it looks like a broken quantized weight. Thread-safe (pure over its inputs).
    static QuantView build(const Checkpoint &checkpoint, const QuantConfig *config = nullptr);
    // build() with the config.json beside the checkpoint, when there is one.
    static QuantView buildWithConfig(const Checkpoint &checkpoint);

    bool empty() const { return m_weights.empty(); }
    const std::vector<QuantizedWeight> &weights() const { return m_weights; }
    const std::vector<SchemeTotals> &schemes() const { return m_schemes; } // in enum order
    const std::vector<QuantWarning> &warnings() const { return m_warnings; }
    const std::optional<QuantConfig> &config() const { return m_config; }

    // Index into weights() of the weight whose codes are tensor `tensor` (an index into
    // Checkpoint::tensors()), or -1.
    std::ptrdiff_t weightOfCodes(std::size_t tensor) const;
    // Index into weights() of the weight `tensor` is a companion of, or -1.
    std::ptrdiff_t weightOfCompanion(std::size_t tensor) const;

    // Logical elements of quantized weights plus elements of ordinary tensors.
    std::uint64_t effectiveParameters() const { return m_effectiveParameters; }
    std::uint64_t rawElements() const { return m_rawElements; } // every tensor's element count
    std::uint64_t companionBytes() const { return m_companionBytes; }
    std::uint64_t tensorBytes() const { return m_tensorBytes; }
    // Every tensor byte × 8 / effective parameters; nullopt without parameters.
    std::optional<double> bitsPerWeight() const;

private:
    friend class QuantRecognizer;

    std::vector<QuantizedWeight> m_weights;
    std::vector<SchemeTotals> m_schemes;
    std::vector<QuantWarning> m_warnings;
    std::optional<QuantConfig> m_config;
    std::vector<std::ptrdiff_t> m_codesOf, m_companionOf; // per tensor
    std::uint64_t m_effectiveParameters = 0, m_rawElements = 0, m_companionBytes = 0, m_tensorBytes = 0;
};

} // namespace stb
