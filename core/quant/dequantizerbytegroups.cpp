// Dequantizer, the byte-group view: 8-bit GPTQ and pack-quantized codes with their groups'
// scales and integer zeros, read by the statistics of quantbytegroups.cpp.
#include "core/quant/dequantizer.h"

#include "core/quant/valueloads.h"

#include <algorithm>

namespace stb {

using namespace quant;

std::optional<ByteGroups> Dequantizer::byteGroups() const
{
    const bool gptq = m_scheme == QuantScheme::Gptq;
    if ((!gptq && m_scheme != QuantScheme::PackQuantized) || !(m_bits == 8 || (gptq && m_bits == 4))
        || m_groupIndex.data)
        return std::nullopt;
    const std::uint64_t groupSize = m_groupSize ? m_groupSize : m_cols;
    if (!groupSize || groupSize % (32 / m_bits) || groupSize > kMaxByteGroup || m_cols % groupSize
        || m_cols / groupSize != m_groups || !m_rows)
        return std::nullopt;
    ByteGroups g;
    g.codes = reinterpret_cast<const std::uint8_t *>(m_codes.data);
    g.interleaved = gptq;
    g.bits = m_bits;
    g.outputs = m_rows;
    g.inputs = m_cols;
    g.groupSize = groupSize;
    g.groups = m_groups;
    g.rowBytes = gptq ? 4 * m_rows : 4 * m_scaleCols;
    return g;
}

void Dequantizer::byteGroupParams(
    std::uint64_t group, std::uint64_t o0, std::uint64_t n, float *scales, std::int32_t *zeros) const
{
    if (m_scheme == QuantScheme::Gptq) {
        convertScales(m_scale.dtype, m_scale.data, group * m_rows + o0, 1, n, scales);
        for (std::uint64_t k = 0; k < n; ++k)
            zeros[k] = gptqZero(group, o0 + k);
        return;
    }
    // Pack-quantized: (code - 128) - (zero point - 128), or code - 128 without zero points.
    for (std::uint64_t k = 0; k < n; ++k) {
        const std::uint64_t o = o0 + k;
        scales[k] = scaleAt(o * m_groups + group);
        zeros[k] = m_zeros.data ? static_cast<std::int32_t>(
                       (wordAt(m_zeros.data, (o / 4) * m_groups + group) >> (8 * (o % 4))) & 255u)
                                : 128;
    }
}

void Dequantizer::byteRowParams(
    std::uint64_t o, std::uint64_t group0, std::uint64_t n, float *scales, std::int32_t *zeros) const
{
    if (m_scheme == QuantScheme::Gptq) {
        for (std::uint64_t k = 0; k < n; ++k)
            byteGroupParams(group0 + k, o, 1, scales + k, zeros + k);
        return;
    }
    convertScales(m_scale.dtype, m_scale.data, o * m_groups + group0, 1, n, scales);
    if (!m_zeros.data) {
        std::fill(zeros, zeros + n, 128);
        return;
    }
    const std::uint64_t base = (o / 4) * m_groups + group0;
    const unsigned shift = 8 * static_cast<unsigned>(o % 4);
    for (std::uint64_t k = 0; k < n; ++k)
        zeros[k] = static_cast<std::int32_t>((wordAt(m_zeros.data, base + k) >> shift) & 255u);
}

} // namespace stb
