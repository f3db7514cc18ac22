#include "core/quant/quantbadge.h"

namespace stb {

std::string quantBadge(const QuantizedWeight &weight)
{
    const std::string bits = std::to_string(weight.bits) + "-bit";
    switch (weight.scheme) {
    case QuantScheme::Fp8Block:
        return "fp8 block";
    case QuantScheme::Fp8Tensor:
        return "fp8 tensor";
    case QuantScheme::Fp8Channel:
        return "fp8 channel";
    case QuantScheme::Mxfp4:
        return "mxfp4";
    case QuantScheme::Gptq:
        return "gptq " + bits;
    case QuantScheme::Awq:
        return "awq " + bits;
    case QuantScheme::BnbNf4:
        return "nf4";
    case QuantScheme::BnbFp4:
        return "fp4";
    case QuantScheme::BnbInt8:
        return "int8";
    case QuantScheme::PackQuantized:
        return "pack " + bits;
    }
    return "quantized";
}

std::string quantDescription(const QuantizedWeight &weight)
{
    const std::string group = std::to_string(weight.groupSize);
    std::string text;
    switch (weight.scheme) {
    case QuantScheme::Fp8Block:
        text = "FP8 (E4M3) with one scale per " + std::to_string(weight.block[0]) + "×"
            + std::to_string(weight.block[1]) + " block: value = code × weight_scale_inv[block]";
        break;
    case QuantScheme::Fp8Tensor:
        text = "FP8 (E4M3) with one scale for the tensor: value = code × weight_scale";
        break;
    case QuantScheme::Fp8Channel:
        text = "FP8 (E4M3) with one scale per output channel: value = code × weight_scale[row]";
        break;
    case QuantScheme::Mxfp4:
        text = "MXFP4: FP4 (E2M1) codes in blocks of 32 sharing an E8M0 scale 2^(s−127)";
        break;
    case QuantScheme::Gptq:
        text = "GPTQ " + std::to_string(weight.bits) + "-bit, groups of " + group
            + " inputs: value = scale × (q − "
            + (weight.zeroPlusOne ? "((zero + 1) mod " + std::to_string(1u << weight.bits) + "))" : "zero)");
        break;
    case QuantScheme::Awq:
        text = "AWQ " + std::to_string(weight.bits) + "-bit (GEMM), groups of " + group
            + " inputs: value = scale × (q − zero)";
        break;
    case QuantScheme::BnbNf4:
    case QuantScheme::BnbFp4:
        text = std::string("bitsandbytes ") + (weight.scheme == QuantScheme::BnbNf4 ? "NF4" : "FP4")
            + ", blocks of " + group + ": value = quant_map[code] × absmax[block]"
            + (weight.nestedBlock ? " (absmax itself quantized)" : "");
        break;
    case QuantScheme::BnbInt8:
        text = "bitsandbytes LLM.int8: value = code × SCB[row] / 127";
        break;
    case QuantScheme::PackQuantized:
        text = "compressed-tensors pack-quantized " + std::to_string(weight.bits) + "-bit"
            + (weight.groupSize ? ", groups of " + group : std::string()) + ": value = scale × (q − zero)";
        break;
    }
    if (!weight.origin.empty())
        text += "; quantized from " + weight.origin;
    if (!weight.decodable && !weight.note.empty())
        text += "; values stay raw: " + weight.note;
    return text;
}

} // namespace stb
