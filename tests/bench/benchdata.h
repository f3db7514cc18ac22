#pragma once

#include "core/format/writer.h"

#include <cmath>
#include <cstdint>
#include <cstring>
#include <random>
#include <string>
#include <vector>

namespace stb::bench {

// A ~`totalBytes` checkpoint of `count` tensors of normally distributed values, half BF16 and
// half F32, with transformer-like names. Values come from a pool of precomputed normal numbers
// read at tensor-dependent offsets, so writing gigabytes stays fast and each tensor differs.
struct NormalModel {
    std::vector<TensorSpec> specs;
    std::vector<float> pool;

    NormalModel(std::uint64_t totalBytes, std::size_t count)
        : pool(1 << 20)
    {
        std::mt19937 rng(42);
        std::normal_distribution<float> normal(0.0f, 0.02f);
        for (auto &v : pool)
            v = normal(rng);
        const std::uint64_t perTensor = totalBytes / count;
        for (std::size_t i = 0; i < count; ++i) {
            const bool bf16 = i % 2 == 0;
            const std::uint64_t elements = perTensor / (bf16 ? 2 : 4);
            const std::uint64_t rows = 1024;
            specs.push_back({"model.layers." + std::to_string(i / 8) + ".block" + std::to_string(i % 8) + ".weight",
                             bf16 ? DType::BF16 : DType::F32, {rows, elements / rows}});
        }
    }

    // Fills tensor i's bytes; `perturb` adds a small offset to every value (a changed tensor).
    void fill(std::size_t i, std::span<std::byte> out, bool perturb = false) const
    {
        const bool bf16 = specs[i].dtype == DType::BF16;
        const std::size_t n = out.size() / (bf16 ? 2 : 4);
        std::size_t at = (i * 7919) % pool.size();
        for (std::size_t k = 0; k < n; ++k) {
            float v = pool[at] + (perturb ? 0.001f : 0.0f);
            at = at + 1 == pool.size() ? 0 : at + 1;
            if (bf16) {
                std::uint32_t bits;
                std::memcpy(&bits, &v, 4);
                const auto half = static_cast<std::uint16_t>((bits + 0x7FFF + ((bits >> 16) & 1)) >> 16);
                std::memcpy(out.data() + 2 * k, &half, 2);
            } else {
                std::memcpy(out.data() + 4 * k, &v, 4);
            }
        }
    }
};

} // namespace stb::bench
