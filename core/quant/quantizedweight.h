#pragma once

#include "core/quant/quantscheme.h"

#include <array>
#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

namespace stb {

// A companion tensor of a quantized weight: an index into Checkpoint::tensors() and its role.
struct QuantCompanion {
    CompanionRole role = CompanionRole::Scale;
    std::size_t tensor = 0;
};

// One logical weight of a recognised scheme: the tensor holding its codes, its companions, the
// shape it had before quantization and what dequantizing it takes. Plain data, built by
// QuantView (recognition); decoded by Dequantizer.
struct QuantizedWeight {
    std::string name; // the logical name ("…mlp.down_proj.weight"; for MXFP4 the name before _blocks)
    QuantScheme scheme = QuantScheme::Fp8Tensor;
    unsigned bits = 0;
    // Elements along the input dimension sharing one scale (GPTQ, AWQ, pack-quantized groups;
    // bitsandbytes and MXFP4 blocks of the flat tensor; FP8 block columns); 0 for per-tensor or
    // per-channel scales.
    std::uint64_t groupSize = 0;
    std::array<std::uint64_t, 2> block { 0, 0 }; // fp8-block: rows and columns a scale covers
    std::size_t tensor = 0; // the codes, in Checkpoint::tensors()
    std::vector<std::uint64_t> logicalShape;
    std::uint64_t parameters = 0; // logical elements (saturating)
    std::uint64_t bytes = 0; // codes plus companions
    std::string origin; // dtype before quantization when the file says ("bfloat16")
    std::vector<QuantCompanion> companions;

    bool zeroPlusOne = false; // gptq (v1) checkpoint format: stored zero-points are z - 1
    std::uint64_t nestedBlock = 0; // bitsandbytes double quantization: absmax codes per block
    double nestedOffset = 0; // … and the mean added back
    bool decodable = true; // false: recognised and counted, values stay raw (see note)
    std::string note;

    // The first companion with that role, or nullptr.
    const QuantCompanion *companion(CompanionRole role) const
    {
        for (const auto &c : companions) {
            if (c.role == role)
                return &c;
        }
        return nullptr;
    }
};

} // namespace stb
