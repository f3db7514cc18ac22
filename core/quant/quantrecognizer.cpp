#include "core/quant/quantrecognizer.h"

#include "core/format/prefault.h"
#include "core/io/busguard.h"
#include "core/quant/quantconfig.h"
#include "core/quant/quantshapes.h"

#include <nlohmann/json.hpp>

#include <algorithm>

namespace stb {

using namespace quant;

namespace {

constexpr std::size_t kMaxWarnings = 1000;

bool isFp8(DType d)
{
    return d == DType::F8_E4M3 || d == DType::F8_E5M2;
}

} // namespace

std::optional<std::vector<std::byte>> readSmallTensor(
    const Checkpoint &checkpoint, std::size_t tensor, std::size_t limit)
{
    const auto &t = checkpoint.tensors()[tensor];
    const SafetensorsFile *file = checkpoint.fileOf(t);
    if (!file || !file->complete(*t.info) || t.info->byteLength() > limit)
        return std::nullopt;
    std::vector<std::byte> bytes(t.info->byteLength());
    if (!guardedCopy(bytes, file->tensorBytes(*t.info)))
        return std::nullopt;
    return bytes;
}

QuantRecognizer::QuantRecognizer(const Checkpoint &checkpoint, const QuantConfig *config, QuantView &view)
    : m_checkpoint(checkpoint)
    , m_config(config)
    , m_view(view)
    , m_claimed(checkpoint.tensors().size(), false)
{
    // A number per tensor each (800 KB for 100,000 tensors): faulted in with one call each.
    for (auto *perTensor : { &m_view.m_codesOf, &m_view.m_companionOf }) {
        perTensor->reserve(checkpoint.tensors().size());
        prefaultForWriting(perTensor->data(), perTensor->capacity() * sizeof(std::ptrdiff_t));
        perTensor->assign(checkpoint.tensors().size(), -1);
    }
}

std::ptrdiff_t QuantRecognizer::find(const std::string &name) const
{
    if (m_byName.empty()) {
        const auto &tensors = m_checkpoint.tensors();
        m_byName.reserve(tensors.size());
        for (std::size_t i = 0; i < tensors.size(); ++i)
            m_byName.emplace(tensors[i].info->name, i);
    }
    const auto it = m_byName.find(name);
    return it == m_byName.end() ? -1 : static_cast<std::ptrdiff_t>(it->second);
}

void QuantRecognizer::warn(QuantRule rule, std::size_t tensor, std::string message)
{
    if (m_view.m_warnings.size() >= kMaxWarnings)
        return;
    const auto &t = m_checkpoint.tensors()[tensor];
    m_view.m_warnings.push_back({ rule, std::move(message), t.info->headerOffset, t.info->name });
}

void QuantRecognizer::companion(QuantizedWeight &w, CompanionRole role, std::ptrdiff_t tensor)
{
    if (tensor >= 0)
        w.companions.push_back({ role, static_cast<std::size_t>(tensor) });
}

QuantizedWeight &QuantRecognizer::add(QuantizedWeight weight)
{
    const auto index = static_cast<std::ptrdiff_t>(m_view.m_weights.size());
    weight.parameters = product(weight.logicalShape);
    weight.bytes = info(weight.tensor).byteLength();
    m_claimed[weight.tensor] = true;
    m_view.m_codesOf[weight.tensor] = index;
    for (const auto &c : weight.companions) {
        m_claimed[c.tensor] = true;
        m_view.m_companionOf[c.tensor] = index;
        weight.bytes += info(c.tensor).byteLength();
    }
    m_view.m_weights.push_back(std::move(weight));
    return m_view.m_weights.back();
}

void QuantRecognizer::run()
{
    // Whether any bitsandbytes 4-bit state is there, by a scan of the names that builds nothing:
    // only then are weights of other dtypes than U8 looked up as packed codes (find() builds a
    // map of every name, which most checkpoints never need).
    bool bnbStates = false;
    for (const auto &t : m_checkpoint.tensors())
        bnbStates = bnbStates || endsWith(t.info->name, "bitsandbytes__nf4")
            || endsWith(t.info->name, "bitsandbytes__fp4");
    for (std::size_t i = 0; i < m_checkpoint.tensors().size(); ++i) {
        const TensorInfo &t = info(i);
        const std::string &name = t.name;
        // The dtype first: most tensors (BF16, F32) are none of these.
        if (t.dtype == DType::I32 && endsWith(name, ".qweight"))
            tryGptqOrAwq(i, name.substr(0, name.size() - 8));
        else if (t.dtype == DType::I32 && endsWith(name, ".weight_packed"))
            tryPackQuantized(i, name.substr(0, name.size() - 14));
        else if (t.dtype == DType::U8 && (endsWith(name, "_blocks") || endsWith(name, ".blocks")))
            tryMxfp4(i, std::string_view(name).substr(0, name.size() - 7), name[name.size() - 7]);
        else if (isFp8(t.dtype) && endsWith(name, ".weight"))
            tryFp8(i, name.substr(0, name.size() - 7));
        else if (t.dtype == DType::U8 && endsWith(name, ".weight"))
            tryBnb4(i, name.substr(0, name.size() - 7));
        else if (t.dtype == DType::I8 && endsWith(name, ".weight"))
            tryBnbInt8(i, name.substr(0, name.size() - 7));
        else if (bnbStates && endsWith(name, ".weight") && hasBnb4State(name))
            tryBnb4(i, name.substr(0, name.size() - 7)); // packed into another dtype: quant_storage
    }
    findOrphans();
    checkConfig();
    totals();
}

void QuantRecognizer::tryFp8(std::size_t tensor, const std::string &base)
{
    const TensorInfo &w = info(tensor);
    const auto scaleInv = find(base + ".weight_scale_inv");
    const auto scale = find(base + ".weight_scale");
    if (scaleInv < 0 && scale < 0) {
        warn(QuantRule::MissingScale, tensor,
            "FP8 weight without its weight_scale or weight_scale_inv: values stay raw codes");
        return;
    }
    QuantizedWeight q;
    q.name = w.name;
    q.bits = 8;
    q.tensor = tensor;
    q.logicalShape = w.shape;
    const auto s = static_cast<std::size_t>(scaleInv >= 0 ? scaleInv : scale);
    const TensorInfo &si = info(s);
    const std::uint64_t cols = w.shape.empty() ? 1 : w.shape.back();
    const std::uint64_t rows = cols ? product(w.shape) / cols : 0;
    bool fits = isFloatScale(si.dtype);
    // Blocks: DeepSeek's weight_scale_inv, or compressed-tensors' FP8_BLOCK scheme, whose
    // weight_scale is [ceil(out/B0), ceil(in/B1)] (block_structure; value = code × scale too).
    const bool blocks = scaleInv >= 0
        || (si.shape.size() == 2 && si.shape[1] > 1 && w.shape.size() == 2 && product(si.shape) > 1);
    if (blocks) {
        q.scheme = QuantScheme::Fp8Block;
        q.block = m_config && m_config->blockSize ? *m_config->blockSize
                                                  : std::array<std::uint64_t, 2> { 128, 128 };
        q.groupSize = q.block[1];
        fits = fits && w.shape.size() == 2 && si.shape.size() == 2 && q.block[0] && q.block[1]
            && si.shape[0] == ceilDiv(rows, q.block[0]) && si.shape[1] == ceilDiv(cols, q.block[1]);
        if (!fits)
            warn(QuantRule::CompanionShape, s,
                "block scale " + shapeText(si.shape) + " " + std::string(dtypeName(si.dtype))
                    + " does not fit weight " + shapeText(w.shape) + " in " + std::to_string(q.block[0]) + "x"
                    + std::to_string(q.block[1]) + " blocks (F32 [ceil(out/B), ceil(in/B)] expected)");
    } else {
        const std::uint64_t n = product(si.shape);
        q.scheme = n == 1 ? QuantScheme::Fp8Tensor : QuantScheme::Fp8Channel;
        fits = fits && (n == 1 || (n == rows && (si.shape.size() == 1 || si.shape.back() == 1)));
        if (!fits)
            warn(QuantRule::CompanionShape, s,
                "scale " + shapeText(si.shape) + " " + std::string(dtypeName(si.dtype))
                    + " fits neither per tensor ([] or [1]) nor per channel ([" + std::to_string(rows)
                    + ", 1]) of weight " + shapeText(w.shape));
    }
    q.decodable = fits;
    if (!fits)
        q.note = "scale does not fit: values stay raw";
    companion(q, CompanionRole::Scale, static_cast<std::ptrdiff_t>(s));
    companion(q, CompanionRole::InputScale, find(base + ".input_scale"));
    add(std::move(q));
}

void QuantRecognizer::tryMxfp4(std::size_t tensor, std::string_view base, char separator)
{
    const TensorInfo &b = info(tensor);
    const std::string scalesName = std::string(base) + separator + "scales";
    const auto s = find(scalesName);
    if (b.shape.size() < 2 || b.shape.back() != 16)
        return; // not MXFP4's [..., G, 16]: an ordinary U8 tensor
    if (s < 0) {
        warn(QuantRule::MissingScale, tensor,
            "MXFP4 blocks without " + scalesName + ": values stay raw codes");
        return;
    }
    const TensorInfo &si = info(static_cast<std::size_t>(s));
    const std::vector<std::uint64_t> expected(b.shape.begin(), b.shape.end() - 1);
    QuantizedWeight q;
    q.name = std::string(base);
    q.scheme = QuantScheme::Mxfp4;
    q.bits = 4;
    q.groupSize = 32;
    q.tensor = tensor;
    q.logicalShape = expected;
    q.logicalShape.back() *= 32;
    if (si.dtype != DType::U8 || si.shape != expected) {
        warn(QuantRule::CompanionShape, static_cast<std::size_t>(s),
            "MXFP4 scales " + shapeText(si.shape) + " " + std::string(dtypeName(si.dtype))
                + " do not fit blocks " + shapeText(b.shape) + " (U8 " + shapeText(expected) + " expected)");
        q.decodable = false;
        q.note = "scales do not fit: values stay raw";
    }
    companion(q, CompanionRole::Scale, s);
    add(std::move(q));
}

void QuantRecognizer::tryBnbInt8(std::size_t tensor, const std::string &base)
{
    const auto scb = find(base + ".SCB");
    if (scb < 0)
        return; // an ordinary I8 tensor
    const TensorInfo &w = info(tensor);
    const TensorInfo &si = info(static_cast<std::size_t>(scb));
    QuantizedWeight q;
    q.name = w.name;
    q.scheme = QuantScheme::BnbInt8;
    q.bits = 8;
    q.tensor = tensor;
    q.logicalShape = w.shape;
    const std::uint64_t rows = w.shape.empty() ? 1 : w.shape.front();
    if (w.shape.size() != 2 || !isFloatScale(si.dtype) || product(si.shape) != rows) {
        warn(QuantRule::CompanionShape, static_cast<std::size_t>(scb),
            "SCB " + shapeText(si.shape) + " " + std::string(dtypeName(si.dtype)) + " does not fit weight "
                + shapeText(w.shape) + " (F32 [" + std::to_string(rows) + "] expected)");
        q.decodable = false;
        q.note = "SCB does not fit: values stay raw";
    }
    companion(q, CompanionRole::Scale, scb);
    companion(q, CompanionRole::State, find(base + ".weight_format"));
    add(std::move(q));
}

} // namespace stb
