// Dequantizer, part five: where a logical element's code lies in the codes tensor, for "Show in
// Hex" from a dequantized value (docs/quantization.md gives each layout).
#include "core/quant/dequantizer.h"

#include <algorithm>

namespace stb {

namespace {

constexpr unsigned kAwqSlot[8] = { 0, 4, 1, 5, 2, 6, 3, 7 }; // the nibble holding column c of 8

// `bits` bits at bit `bit` of a little-endian packed 32-bit word whose first byte is `wordByte`
// and whose bit 0 is bit `streamBit` of its codes' stream (codes at multiples of `bits` in it):
// the bytes inside that word, and how many codes touch them.
CodeBytes inWord(std::uint64_t wordByte, std::uint64_t streamBit, std::uint64_t bit, unsigned bits)
{
    CodeBytes c;
    c.bits = bits;
    const std::uint64_t last = std::min<std::uint64_t>(bit + bits, 32) - 1;
    c.offset = wordByte + bit / 8;
    c.length = last / 8 - bit / 8 + 1;
    c.shift = static_cast<unsigned>(bit % 8);
    c.continues = bit + bits > 32;
    // Codes overlapping the bytes' bits [lo, hi) of the stream.
    const std::uint64_t lo = streamBit + bit / 8 * 8, hi = streamBit + (last / 8 + 1) * 8;
    c.sharing = (hi - 1) / bits - lo / bits + 1;
    return c;
}

} // namespace

CodeBytes Dequantizer::codeBytes(std::uint64_t element) const
{
    const std::uint64_t row = element / m_cols, col = element % m_cols;
    switch (m_scheme) {
    case QuantScheme::Fp8Block:
    case QuantScheme::Fp8Tensor:
    case QuantScheme::Fp8Channel:
    case QuantScheme::BnbInt8:
        return { element, 1, 0, 8, 1, false };
    case QuantScheme::Mxfp4: // low nibble first
        return { element / 2, 1, (element % 2) ? 4u : 0u, 4, 2, false };
    case QuantScheme::BnbNf4:
    case QuantScheme::BnbFp4: // high nibble first
        return { element / 2, 1, (element % 2) ? 0u : 4u, 4, 2, false };
    case QuantScheme::Gptq: {
        // qweight [in·bits/32, out]: input `col` of output `row` at bit bits·col of column `row`'s
        // stream of words, one word per stored row.
        const std::uint64_t bit = m_bits * col;
        return inWord(4 * ((bit / 32) * m_rows + row), bit / 32 * 32, bit % 32, m_bits);
    }
    case QuantScheme::Awq: {
        const std::uint64_t wordsPerRow = m_rows / 8;
        return inWord(4 * (col * wordsPerRow + row / 8), 0, 4 * kAwqSlot[row % 8], 4);
    }
    case QuantScheme::PackQuantized: {
        const unsigned pack = 32 / m_bits;
        return inWord(4 * (row * m_scaleCols + col / pack), 0, m_bits * (col % pack), m_bits);
    }
    }
    return {};
}

} // namespace stb
