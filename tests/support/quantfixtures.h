#pragma once

#include "core/format/writer.h"

#include <cstdint>
#include <string>
#include <vector>

namespace stb::test {

// Quantized weights written the way the real tools write them (docs/quantization.md names each
// tool's source), computed here from known floats without any code of core/quant: the layouts,
// packing orders and rounding are spelled out again on purpose, so a test compares two
// independent readings of the same specification.
struct QuantFixture {
    std::string weight; // the logical name the browser should report
    std::vector<std::uint64_t> shape; // logical shape
    std::vector<TensorSpec> specs; // codes and companions
    std::vector<std::vector<std::byte>> data;
    std::vector<float> original; // the known floats, row-major
    std::vector<float> expected; // what the tool's own dequantization gives, row-major
    std::uint64_t bytes = 0; // codes plus companions
};

// Deterministic, roughly normal weights with a few larger values.
std::vector<float> knownWeights(std::uint64_t count, std::uint32_t seed, float sigma = 0.02f);

// DeepSeek-V3: F8_E4M3 [out, in] + F32 weight_scale_inv per block×block tile (compressed-tensors'
// FP8_BLOCK: the same scales named weight_scale).
QuantFixture fp8Block(const std::string &base, std::uint64_t out, std::uint64_t in, std::uint64_t block = 128,
    const std::string &scaleName = "weight_scale_inv");
// compressed-tensors float-quantized: F8_E4M3 + F32 weight_scale [1] or [out, 1] (+ input_scale).
QuantFixture fp8Scaled(const std::string &base, std::uint64_t out, std::uint64_t in, bool perChannel);
// gpt-oss: `base`_blocks U8 [rows, groups, 16] + `base`_scales U8 [rows, groups].
QuantFixture mxfp4(const std::string &base, std::uint64_t rows, std::uint64_t groups);
// AutoGPTQ (v1: zeros stored minus one in their fields, a zero of 0 as all ones) or GPTQModel
// v2, 2, 3, 4 or 8 bits, asymmetric groups, packed by AutoGPTQ's own loop (3 bits: `out` and `in`
// multiples of 32). Every fourth output is positive, so its zero-points are 0.
QuantFixture gptq(const std::string &base, std::uint64_t out, std::uint64_t in, unsigned bits,
    std::uint64_t group, bool v2 = false, bool actOrder = false);
// AutoAWQ GEMM 4-bit, interleaved packing.
QuantFixture awq(const std::string &base, std::uint64_t out, std::uint64_t in, std::uint64_t group);
// bitsandbytes 4-bit (nf4 or fp4), blocks of 64, optionally with nested (double-quantized) absmax;
// the packed bytes viewed as `storage` (bnb_4bit_quant_storage: U8, or BF16 with out · in a
// multiple of 4).
QuantFixture bnb4(const std::string &base, std::uint64_t out, std::uint64_t in, bool nf4, bool nested,
    DType storage = DType::U8);
// bitsandbytes LLM.int8: I8 weight + F32 SCB.
QuantFixture bnbInt8(const std::string &base, std::uint64_t out, std::uint64_t in);
// compressed-tensors pack-quantized, symmetric int4 (or int8) groups, F16 scales.
QuantFixture packQuantized(
    const std::string &base, std::uint64_t out, std::uint64_t in, std::uint64_t group, unsigned bits = 4);
// The same with random zero points added: `base`.weight_zero_point, I32 [ceil(out / (32 / bits)),
// groups], 32 / bits outputs' zeros to a word. f.expected no longer holds: compare with the
// decoded values.
QuantFixture withZeroPoints(
    QuantFixture f, const std::string &base, std::uint64_t out, std::uint64_t groups, unsigned bits);

// An ordinary BF16 tensor of `count` known values (norms, embeddings of a mixed checkpoint).
QuantFixture plainBf16(const std::string &name, std::vector<std::uint64_t> shape);

// All fixtures in one file; false with a reason on failure.
bool writeFixtures(const std::string &path, const std::vector<QuantFixture> &fixtures, std::string &error);

// IEEE half and bfloat16 rounding to nearest even, as torch's .half() and .bfloat16() do.
std::uint16_t halfBits(float value);
float halfValue(std::uint16_t bits);
std::uint16_t bf16Bits(float value);
float bf16Value(std::uint16_t bits);

} // namespace stb::test
