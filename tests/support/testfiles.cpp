#include "tests/support/testfiles.h"

#include "core/format/tensorinfo.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <random>

namespace stb::test {

std::vector<std::byte> bytesOf(std::string_view text)
{
    std::vector<std::byte> out(text.size());
    if (!text.empty()) // memcpy from a null pointer is undefined even for 0 bytes
        std::memcpy(out.data(), text.data(), text.size());
    return out;
}

std::vector<std::byte> rawFile(std::string_view headerJson, std::size_t dataBytes, unsigned char fill,
                               long long lengthOverride)
{
    std::vector<std::byte> out(8);
    const std::uint64_t n = lengthOverride >= 0 ? static_cast<std::uint64_t>(lengthOverride) : headerJson.size();
    for (int i = 0; i < 8; ++i)
        out[static_cast<std::size_t>(i)] = static_cast<std::byte>((n >> (8 * i)) & 0xFF);
    const auto header = bytesOf(headerJson);
    out.insert(out.end(), header.begin(), header.end());
    out.insert(out.end(), dataBytes, static_cast<std::byte>(fill));
    return out;
}

bool writeBytes(const std::string &path, const std::vector<std::byte> &bytes)
{
    std::ofstream out(path, std::ios::binary | std::ios::trunc);
    out.write(reinterpret_cast<const char *>(bytes.data()), static_cast<std::streamsize>(bytes.size()));
    return static_cast<bool>(out);
}

namespace {

void putFloat(std::vector<std::byte> &out, DType dtype, float value)
{
    std::uint32_t bits;
    std::memcpy(&bits, &value, 4);
    if (dtype == DType::F32) {
        for (int i = 0; i < 4; ++i)
            out.push_back(static_cast<std::byte>((bits >> (8 * i)) & 0xFF));
    } else { // BF16, round to nearest even
        const std::uint32_t rounded = bits + 0x7FFF + ((bits >> 16) & 1);
        const auto half = static_cast<std::uint16_t>(rounded >> 16);
        out.push_back(static_cast<std::byte>(half & 0xFF));
        out.push_back(static_cast<std::byte>(half >> 8));
    }
}

} // namespace

SampleModel makeSampleModel(int layers, int hidden)
{
    SampleModel model;
    std::mt19937 rng(1234);
    std::normal_distribution<float> normal(0.0f, 0.02f);
    const auto h = static_cast<std::uint64_t>(hidden);
    auto add = [&](std::string name, DType dtype, std::vector<std::uint64_t> shape, float constant = NAN) {
        TensorSpec spec{std::move(name), dtype, std::move(shape)};
        TensorInfo info;
        info.dtype = spec.dtype;
        info.shape = spec.shape;
        const std::uint64_t count = *info.elementCount();
        std::vector<std::byte> bytes;
        bytes.reserve(static_cast<std::size_t>(*info.expectedBytes()));
        for (std::uint64_t i = 0; i < count; ++i) {
            if (dtype == DType::I64) {
                const std::uint64_t v = i;
                for (int b = 0; b < 8; ++b)
                    bytes.push_back(static_cast<std::byte>((v >> (8 * b)) & 0xFF));
            } else {
                putFloat(bytes, dtype, std::isnan(constant) ? normal(rng) : constant);
            }
        }
        model.specs.push_back(std::move(spec));
        model.data.push_back(std::move(bytes));
    };
    const std::uint64_t vocab = 256;
    add("model.embed_tokens.weight", DType::BF16, {vocab, h});
    for (int l = 0; l < layers; ++l) {
        const std::string p = "model.layers." + std::to_string(l) + ".";
        add(p + "input_layernorm.weight", DType::F32, {h}, 1.0f);
        add(p + "self_attn.q_proj.weight", DType::BF16, {h, h});
        add(p + "self_attn.k_proj.weight", DType::BF16, {h / 2, h});
        add(p + "self_attn.v_proj.weight", DType::BF16, {h / 2, h});
        add(p + "self_attn.o_proj.weight", DType::BF16, {h, h});
        add(p + "post_attention_layernorm.weight", DType::F32, {h}, 1.0f);
        add(p + "mlp.gate_proj.weight", DType::BF16, {4 * h, h});
        add(p + "mlp.up_proj.weight", DType::BF16, {4 * h, h});
        add(p + "mlp.down_proj.weight", DType::BF16, {h, 4 * h});
    }
    add("model.norm.weight", DType::F32, {h}, 1.0f);
    add("lm_head.weight", DType::BF16, {vocab, h});
    add("model.rotary_emb.position_ids", DType::I64, {1, 64});
    model.metadata = {{"format", "pt"}, {"generator", "safetensors-browser sample"}};
    return model;
}

std::shared_ptr<const Checkpoint> writeCheckpoint(const std::string &path, std::span<const TensorSpec> specs,
    const std::function<float(std::size_t, std::size_t)> &value)
{
    std::string error;
    const bool written = writeFile(
        path, specs, {},
        [&](std::size_t spec, std::span<std::byte> out) {
            std::fill(out.begin(), out.end(), std::byte { 0 });
            if (!value || specs[spec].dtype != DType::F32)
                return;
            for (std::size_t e = 0; e < out.size() / 4; ++e) {
                const float v = value(spec, e);
                std::memcpy(out.data() + e * 4, &v, 4);
            }
        },
        error);
    auto checkpoint = written ? Checkpoint::open(path, error) : nullptr;
    if (!checkpoint) {
        std::fprintf(stderr, "writeCheckpoint %s: %s\n", path.c_str(), error.c_str());
        std::abort();
    }
    return checkpoint;
}

} // namespace stb::test
