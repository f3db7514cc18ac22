#pragma once

#include "core/io/checkpoint.h"
#include "core/quant/quantizedweight.h"

#include <array>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>

namespace stb {

// Decodes a quantized weight's logical elements to floats straight from the mapping, a run at a
// time: the dequantized tensor is never materialised. Built once per weight (cheap: it checks
// that every tensor it reads is wholly inside its file and as large as its shape says, and
// that every g_idx is a valid group), then used from any number of threads.
class Dequantizer {
public:
    // nullopt with a reason when the weight is not decodable (QuantizedWeight::decodable) or a
    // tensor it reads does not fit. Reads only g_idx and small tables, under the SIGBUS guard.
    // `checkpoint` must outlive the Dequantizer (it points into its mappings).
    static std::optional<Dequantizer> make(
        const Checkpoint &checkpoint, const QuantizedWeight &weight, std::string &error);

    std::uint64_t elements() const { return m_elements; }

    // Logical elements [first, first + n) in row-major order of the logical shape, into `out`.
    // Reads the mapping: call it inside runGuarded (decodeGuarded does). Precondition:
    // first + n <= elements().
    void decode(std::uint64_t first, std::uint64_t n, float *out) const;
    // decode() under the SIGBUS guard; false when the file vanished under the read.
    bool decodeGuarded(std::uint64_t first, std::uint64_t n, float *out) const;

private:
    struct Source {
        const std::byte *data = nullptr;
        DType dtype = DType::F32;
    };
    Dequantizer() = default;
    void decodeRow(std::uint64_t row, std::uint64_t c0, std::uint64_t c1, float *out) const;
    void decodeFlat(std::uint64_t first, std::uint64_t n, float *out) const;
    float scaleAt(std::uint64_t index) const;

    QuantScheme m_scheme = QuantScheme::Fp8Tensor;
    std::uint64_t m_elements = 0, m_rows = 0, m_cols = 0;
    unsigned m_bits = 0;
    std::uint64_t m_groups = 0, m_groupSize = 0;
    std::array<std::uint64_t, 2> m_block { 0, 0 };
    std::uint64_t m_scaleCols = 0, m_zeroCols = 0, m_nestedBlock = 0;
    float m_nestedOffset = 0;
    bool m_zeroPlusOne = false;
    Source m_codes, m_scale, m_zeros, m_groupIndex, m_nestedAbsmax;
    std::array<float, 256> m_table {}; // code -> value (FP8, FP4, NF4, E2M1), or nested quant map
    std::array<float, 16> m_fourBit {}; // bitsandbytes 4-bit quant map
};

} // namespace stb
