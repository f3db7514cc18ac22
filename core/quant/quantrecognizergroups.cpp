// QuantRecognizer, part two: the integer schemes with groups (GPTQ, AWQ, compressed-tensors
// pack-quantized) and bitsandbytes 4-bit with its JSON state.
#include "core/quant/quantrecognizer.h"

#include "core/io/busguard.h"
#include "core/quant/quantshapes.h"

#include <nlohmann/json.hpp>

#include <cstring>

namespace stb {

using namespace quant;

namespace {

constexpr std::size_t kMaxStateBytes = 64 * 1024;

} // namespace

void QuantRecognizer::tryGptqOrAwq(std::size_t tensor, const std::string &base)
{
    const TensorInfo &qw = info(tensor);
    const auto scales = find(base + ".scales");
    const auto zeros = find(base + ".qzeros");
    const auto gidx = find(base + ".g_idx");
    if (scales < 0 || zeros < 0) {
        warn(QuantRule::MissingScale, tensor,
            std::string("packed weight without its ") + (scales < 0 ? "scales" : "qzeros")
                + ": values stay raw codes");
        return;
    }
    const TensorInfo &si = info(static_cast<std::size_t>(scales));
    const TensorInfo &zi = info(static_cast<std::size_t>(zeros));
    QuantizedWeight q;
    q.name = base + ".weight";
    q.tensor = tensor;
    const bool configSaysAwq = m_config && m_config->method == "awq";
    const bool configSaysGptq = m_config && m_config->method == "gptq";
    const bool shapesSayGptq = qw.shape.size() == 2 && si.shape.size() == 2 && qw.shape[1] == si.shape[1];
    q.scheme = configSaysAwq                             ? QuantScheme::Awq
        : (configSaysGptq || gidx >= 0 || shapesSayGptq) ? QuantScheme::Gptq
                                                         : QuantScheme::Awq;
    bool fits = qw.shape.size() == 2 && si.shape.size() == 2 && zi.shape.size() == 2 && isFloatScale(si.dtype)
        && zi.dtype == DType::I32 && si.shape[0] && si.shape[1] && zi.shape[0] == si.shape[0];
    std::uint64_t out = 0, in = 0;
    if (fits) {
        out = si.shape[1];
        // GPTQ: qzeros [groups, out*bits/32]; AWQ: qweight [in, out*bits/32].
        const std::uint64_t packedOut = q.scheme == QuantScheme::Gptq ? zi.shape[1] : qw.shape[1];
        fits = (packedOut * 32) % out == 0;
        q.bits = fits ? static_cast<unsigned>(packedOut * 32 / out) : 0;
        fits = fits && (q.bits == 2 || q.bits == 3 || q.bits == 4 || q.bits == 8)
            && zi.shape[1] * 32 == out * q.bits;
        if (fits && q.scheme == QuantScheme::Gptq) {
            fits = (qw.shape[0] * 32) % q.bits == 0 && qw.shape[1] == out;
            in = qw.shape[0] * 32 / q.bits;
        } else if (fits) {
            in = qw.shape[0];
        }
    }
    if (!fits) {
        warn(QuantRule::CompanionShape, tensor,
            "qweight " + shapeText(qw.shape) + ", qzeros " + shapeText(zi.shape) + " and scales "
                + shapeText(si.shape) + " " + std::string(dtypeName(si.dtype))
                + " do not fit any GPTQ or AWQ layout of 2, 3, 4 or 8 bits");
        return;
    }
    q.logicalShape = { out, in };
    q.groupSize = inferGroupSize(in, si.shape[0]);
    if (m_config && m_config->groupSize && *m_config->groupSize > 0
        && ceilDiv(in, static_cast<std::uint64_t>(*m_config->groupSize)) == si.shape[0])
        q.groupSize = static_cast<std::uint64_t>(*m_config->groupSize);
    if (gidx >= 0) {
        const TensorInfo &gi = info(static_cast<std::size_t>(gidx));
        if (gi.dtype != DType::I32 || gi.shape != std::vector<std::uint64_t> { in }) {
            warn(QuantRule::CompanionShape, static_cast<std::size_t>(gidx),
                "g_idx " + shapeText(gi.shape) + " " + std::string(dtypeName(gi.dtype)) + " does not fit the "
                    + std::to_string(in) + " inputs (I32 [" + std::to_string(in) + "] expected)");
            q.decodable = false;
            q.note = "g_idx does not fit: values stay raw";
        }
    }
    q.zeroPlusOne = q.scheme == QuantScheme::Gptq && !(m_config && m_config->gptqStoredZeros);
    const bool planar = q.scheme == QuantScheme::Gptq && q.bits == 3 && m_config && m_config->gptqPlanar;
    if (q.decodable && planar) {
        q.decodable = false;
        q.note = "3-bit gptq_p (codes in bit planes): counted, values stay raw (not decoded)";
        warn(QuantRule::RawValues, tensor, q.note);
    }
    if (q.decodable && q.scheme == QuantScheme::Awq && q.bits != 4) {
        q.decodable = false;
        q.note = std::to_string(q.bits) + "-bit " + std::string(quantSchemeName(q.scheme))
            + ": counted, values stay raw (not decoded)";
        warn(QuantRule::RawValues, tensor, q.note);
    }
    companion(q, CompanionRole::Scale, scales);
    companion(q, CompanionRole::ZeroPoint, zeros);
    companion(q, CompanionRole::GroupIndex, gidx);
    add(std::move(q));
}

void QuantRecognizer::tryPackQuantized(std::size_t tensor, const std::string &base)
{
    const TensorInfo &pw = info(tensor);
    const auto scale = find(base + ".weight_scale");
    const auto shape = find(base + ".weight_shape");
    const auto zero = find(base + ".weight_zero_point");
    const auto gidx = find(base + ".weight_g_idx");
    if (scale < 0 || shape < 0) {
        warn(QuantRule::MissingScale, tensor,
            std::string("weight_packed without its ") + (scale < 0 ? "weight_scale" : "weight_shape")
                + ": values stay raw codes");
        return;
    }
    const TensorInfo &shi = info(static_cast<std::size_t>(shape));
    std::uint64_t dims[2] = { 0, 0 };
    bool fits = (shi.dtype == DType::I64 || shi.dtype == DType::I32)
        && shi.shape == std::vector<std::uint64_t> { 2 };
    if (fits) {
        const auto bytes = readSmallTensor(m_checkpoint, static_cast<std::size_t>(shape), 16);
        fits = bytes && bytes->size() == (shi.dtype == DType::I64 ? 16u : 8u);
        for (int k = 0; fits && k < 2; ++k) {
            std::int64_t v = 0;
            if (shi.dtype == DType::I64) {
                std::memcpy(&v, bytes->data() + 8 * k, 8);
            } else {
                std::int32_t v32 = 0;
                std::memcpy(&v32, bytes->data() + 4 * k, 4);
                v = v32;
            }
            fits = v > 0;
            dims[k] = static_cast<std::uint64_t>(v);
        }
    }
    if (!fits) {
        warn(QuantRule::CompanionShape, static_cast<std::size_t>(shape),
            "weight_shape " + shapeText(shi.shape) + " " + std::string(dtypeName(shi.dtype))
                + " is not two positive sizes (I64 [2] expected)");
        return;
    }
    const std::uint64_t out = dims[0], in = dims[1];
    QuantizedWeight q;
    q.name = base + ".weight";
    q.scheme = QuantScheme::PackQuantized;
    q.tensor = tensor;
    q.logicalShape = { out, in };
    // Bits: the config's, else the width whose packing gives the stored column count.
    fits = pw.shape.size() == 2 && pw.shape[0] == out;
    if (fits) {
        std::vector<unsigned> widths = { 4, 8, 2 };
        if (m_config && m_config->bits)
            widths = { *m_config->bits };
        for (unsigned b : widths) {
            if (b && 32 % b == 0 && ceilDiv(in, 32 / b) == pw.shape[1]) {
                q.bits = b;
                break;
            }
        }
        fits = q.bits != 0;
    }
    const TensorInfo &si = info(static_cast<std::size_t>(scale));
    const std::uint64_t groups = si.shape.size() == 2 ? si.shape[1] : 1;
    fits = fits && isFloatScale(si.dtype) && (si.shape.size() == 2 || si.shape.size() == 1)
        && si.shape[0] == out && groups;
    if (fits) {
        q.groupSize = inferGroupSize(in, groups);
        if (m_config && m_config->groupSize && *m_config->groupSize > 0
            && ceilDiv(in, static_cast<std::uint64_t>(*m_config->groupSize)) == groups)
            q.groupSize = static_cast<std::uint64_t>(*m_config->groupSize);
        if (groups == 1)
            q.groupSize = 0; // per channel
    }
    if (fits && zero >= 0) {
        const TensorInfo &zi = info(static_cast<std::size_t>(zero));
        fits = zi.dtype == DType::I32
            && zi.shape == std::vector<std::uint64_t> { ceilDiv(out, 32 / q.bits), groups };
        if (!fits)
            warn(QuantRule::CompanionShape, static_cast<std::size_t>(zero),
                "weight_zero_point " + shapeText(zi.shape) + " " + std::string(dtypeName(zi.dtype))
                    + " is not packed along the output dimension (I32 ["
                    + std::to_string(ceilDiv(out, 32 / q.bits)) + ", " + std::to_string(groups)
                    + "] expected)");
    } else if (!fits) {
        warn(QuantRule::CompanionShape, tensor,
            "weight_packed " + shapeText(pw.shape) + " and weight_scale " + shapeText(si.shape) + " "
                + std::string(dtypeName(si.dtype)) + " do not fit weight_shape [" + std::to_string(out) + ", "
                + std::to_string(in) + "]");
    }
    if (fits && gidx >= 0) {
        const TensorInfo &gi = info(static_cast<std::size_t>(gidx));
        fits = gi.dtype == DType::I32 && gi.shape == std::vector<std::uint64_t> { in };
        if (!fits)
            warn(QuantRule::CompanionShape, static_cast<std::size_t>(gidx),
                "weight_g_idx does not fit the inputs");
    }
    if (!fits) {
        q.decodable = false;
        q.note = "companions do not fit: values stay raw";
        if (!q.bits)
            q.bits = m_config && m_config->bits ? *m_config->bits : 0;
    }
    companion(q, CompanionRole::Scale, scale);
    companion(q, CompanionRole::Shape, shape);
    companion(q, CompanionRole::ZeroPoint, zero);
    companion(q, CompanionRole::GroupIndex, gidx);
    add(std::move(q));
}

// bitsandbytes packs 4-bit codes into bytes and then views them as `quant_storage` (uint8 by
// default; bfloat16 and others for FSDP-QLoRA: quantize_4bit's `packed.view(quant_storage)`),
// so any dtype of `W.weight` may hold the codes: its state names it.
bool QuantRecognizer::hasBnb4State(const std::string &weightName) const
{
    return find(weightName + ".quant_state.bitsandbytes__nf4") >= 0
        || find(weightName + ".quant_state.bitsandbytes__fp4") >= 0;
}

void QuantRecognizer::tryBnb4(std::size_t tensor, const std::string &base)
{
    const std::string name = base + ".weight";
    auto state = find(name + ".quant_state.bitsandbytes__nf4");
    QuantScheme scheme = QuantScheme::BnbNf4;
    if (state < 0) {
        state = find(name + ".quant_state.bitsandbytes__fp4");
        scheme = QuantScheme::BnbFp4;
    }
    const auto absmax = find(name + ".absmax");
    if (state < 0 && absmax < 0)
        return; // an ordinary U8 tensor
    if (state < 0 || absmax < 0) {
        warn(state < 0 ? QuantRule::StateInvalid : QuantRule::MissingScale, tensor,
            std::string("bitsandbytes 4-bit weight without its ") + (state < 0 ? "quant_state" : "absmax")
                + ": values stay raw codes");
        return;
    }
    // The state: UTF-8 JSON in a U8 tensor, small, read under the guard.
    const auto stateIndex = static_cast<std::size_t>(state);
    nlohmann::json json;
    if (const auto bytes = readSmallTensor(m_checkpoint, stateIndex, kMaxStateBytes);
        bytes && info(stateIndex).dtype == DType::U8) {
        const std::string_view text(reinterpret_cast<const char *>(bytes->data()), bytes->size());
        if (jsonShallowEnough(text, 8))
            json = nlohmann::json::parse(text.begin(), text.end(), nullptr, false);
    }
    const auto shapeIt = json.is_object() ? json.find("shape") : json.end();
    const auto blockIt = json.is_object() ? json.find("blocksize") : json.end();
    QuantizedWeight q;
    q.name = name;
    q.scheme = scheme;
    q.bits = 4;
    q.tensor = tensor;
    bool fits = json.is_object() && shapeIt != json.end() && shapeIt->is_array() && shapeIt->size() <= 8
        && blockIt != json.end() && blockIt->is_number_unsigned() && blockIt->get<std::uint64_t>() > 0;
    for (std::size_t k = 0; fits && k < shapeIt->size(); ++k) {
        fits = (*shapeIt)[k].is_number_unsigned();
        if (fits)
            q.logicalShape.push_back((*shapeIt)[k].get<std::uint64_t>());
    }
    if (!fits) {
        warn(QuantRule::StateInvalid, stateIndex,
            "quant_state is not JSON with \"shape\" and \"blocksize\" (at most 64 KiB): values stay raw "
            "codes");
        m_claimed[stateIndex] = true; // reported here, not again as an orphan
        return;
    }
    q.groupSize = blockIt->get<std::uint64_t>();
    if (const auto it = json.find("dtype"); it != json.end() && it->is_string())
        q.origin = it->get<std::string>().substr(0, 32);
    if (const auto it = json.find("quant_type"); it != json.end() && it->is_string()
        && it->get<std::string>() != (scheme == QuantScheme::BnbNf4 ? "nf4" : "fp4"))
        warn(QuantRule::StateInvalid, stateIndex,
            "quant_state's quant_type contradicts the state tensor's name");
    const std::uint64_t n = product(q.logicalShape);
    const TensorInfo &w = info(tensor);
    const TensorInfo &ai = info(static_cast<std::size_t>(absmax));
    const std::uint64_t blocks = ceilDiv(n, q.groupSize);
    const auto nestedAbsmax = find(name + ".nested_absmax");
    const auto nestedMap = find(name + ".nested_quant_map");
    const auto quantMap = find(name + ".quant_map");
    std::string problem;
    if (w.byteLength() < ceilDiv(n, 2))
        problem = "weight " + shapeText(w.shape) + " " + std::string(dtypeName(w.dtype))
            + " holds fewer than the " + std::to_string(ceilDiv(n, 2)) + " bytes shape "
            + shapeText(q.logicalShape) + " needs";
    else if (product(ai.shape) != blocks
        || (nestedAbsmax < 0 ? ai.dtype != DType::F32 : ai.dtype != DType::U8))
        problem = "absmax " + shapeText(ai.shape) + " " + std::string(dtypeName(ai.dtype)) + " does not fit "
            + std::to_string(blocks) + " blocks of " + std::to_string(q.groupSize);
    else if (quantMap >= 0
        && (product(info(static_cast<std::size_t>(quantMap)).shape) != 16
            || info(static_cast<std::size_t>(quantMap)).dtype != DType::F32))
        problem = "quant_map is not F32 [16]";
    if (nestedAbsmax >= 0 && problem.empty()) {
        const auto nb = json.find("nested_blocksize");
        const auto no = json.find("nested_offset");
        q.nestedBlock = nb != json.end() && nb->is_number_unsigned() ? nb->get<std::uint64_t>() : 0;
        q.nestedOffset = no != json.end() && no->is_number() ? no->get<double>() : 0;
        const TensorInfo &ni = info(static_cast<std::size_t>(nestedAbsmax));
        if (!q.nestedBlock || nestedMap < 0 || ni.dtype != DType::F32
            || product(ni.shape) != ceilDiv(blocks, q.nestedBlock)
            || info(static_cast<std::size_t>(nestedMap)).dtype != DType::F32
            || product(info(static_cast<std::size_t>(nestedMap)).shape) != 256)
            problem = "nested absmax does not fit (nested_blocksize, F32 nested_absmax, F32 [256] "
                      "nested_quant_map)";
    }
    if (!problem.empty()) {
        warn(QuantRule::CompanionShape, tensor, problem);
        q.decodable = false;
        q.note = "companions do not fit: values stay raw";
    }
    companion(q, CompanionRole::Absmax, absmax);
    companion(q, CompanionRole::QuantMap, quantMap);
    companion(q, CompanionRole::NestedAbsmax, nestedAbsmax);
    companion(q, CompanionRole::NestedQuantMap, nestedMap);
    companion(q, CompanionRole::State, state);
    add(std::move(q));
}

} // namespace stb
