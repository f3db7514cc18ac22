// Layer detection benchmark: the names of a 94-layer mixture-of-experts model with 128 experts
// (3 + 94 × 7 + 94 × 128 × 3 = 36,757
// tensors, the size of Qwen3-235B-A22B's index), detected from names alone, against a
// baseline that only sorts the same names (detection sorts them once too).
//   bench_layers
#include "benchutil.h"

#include "core/layers/repeatdetector.h"
#include "core/text/naturalorder.h"

#include <algorithm>
#include <cstdio>
#include <string>
#include <vector>

using namespace stb;

namespace {

std::vector<TensorInfo> moeNames(int layers, int experts)
{
    std::vector<TensorInfo> infos;
    auto add = [&](std::string name, std::vector<std::uint64_t> shape) {
        infos.push_back({ std::move(name), DType::BF16, std::move(shape), 0, 0, 0 });
    };
    add("model.embed_tokens.weight", { 151936, 4096 });
    add("model.norm.weight", { 4096 });
    add("lm_head.weight", { 151936, 4096 });
    for (int l = 0; l < layers; ++l) {
        const std::string layer = "model.layers." + std::to_string(l) + ".";
        for (const char *role : { "input_layernorm.weight", "post_attention_layernorm.weight" })
            add(layer + role, { 128 });
        for (const char *role : { "self_attn.q_proj.weight", "self_attn.k_proj.weight",
                 "self_attn.v_proj.weight", "self_attn.o_proj.weight" })
            add(layer + role, { 4096, 4096 });
        add(layer + "mlp.gate.weight", { 128, 4096 });
        for (int e = 0; e < experts; ++e) {
            const std::string expert = layer + "mlp.experts." + std::to_string(e) + ".";
            add(expert + "gate_proj.weight", { 1536, 4096 });
            add(expert + "up_proj.weight", { 1536, 4096 });
            add(expert + "down_proj.weight", { 4096, 1536 });
        }
    }
    return infos;
}

} // namespace

int main()
{
    stb::bench::printKernels();
    const auto infos = moeNames(94, 128);
    std::vector<const TensorInfo *> pointers;
    for (const auto &info : infos)
        pointers.push_back(&info);

    std::size_t repeats = 0;
    const double detectMs = stb::bench::medianMs(21, [&] { repeats = detectRepeats(pointers).size(); });
    const double sortMs = stb::bench::medianMs(21, [&] {
        auto copy = pointers;
        std::sort(copy.begin(), copy.end(),
            [](const TensorInfo *a, const TensorInfo *b) { return a->name < b->name; });
    });
    const auto found = detectRepeats(pointers);
    if (repeats != 1 || found[0].repeats.size() != 1 || found[0].repeats[0].blockCount() != 94u * 128u) {
        std::fprintf(stderr, "unexpected detection\n");
        return 1;
    }
    std::printf(
        "%zu tensors: detectRepeats %.1f ms (median of 21; target < 50 ms); baseline: sorting the names "
        "%.1f ms\n",
        infos.size(), detectMs, sortMs);
    return 0;
}
