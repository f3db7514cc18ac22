#pragma once

#include <complex>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>

namespace stb {

// Every dtype of the reference format, in the reference's enum order. The order matters: the
// reference writer sorts tensors by descending dtype (largest alignment first), then by name.
enum class DType : std::uint8_t {
    BOOL,
    F4,
    F6_E2M3,
    F6_E3M2,
    U8,
    I8,
    F8_E5M2,
    F8_E4M3,
    F8_E8M0,
    F8_E4M3FNUZ,
    F8_E5M2FNUZ,
    I16,
    U16,
    F16,
    BF16,
    I32,
    U32,
    F32,
    C64,
    F64,
    I64,
    U64,
};
inline constexpr std::size_t kDTypeCount = 22;

enum class DTypeKind : std::uint8_t { Bool, Unsigned, Signed, Float, Complex };

struct DTypeInfo {
    DType dtype;
    std::string_view name;   // as written in headers: "BF16", "F8_E4M3"
    unsigned bits;           // bits per element; sub-byte types have 4 or 6
    DTypeKind kind;
    bool knownToOlderReaders; // false for F4, F6_*, F8_E8M0, FNUZ and C64 (rules.md warning)
};

// Table lookups; never fail for a valid enum value.
const DTypeInfo &dtypeInfo(DType dtype);
std::span<const DTypeInfo> allDTypes();
// Exact, case-sensitive match on the header spelling; nullopt for anything else.
std::optional<DType> dtypeFromName(std::string_view name);
inline std::string_view dtypeName(DType dtype) { return dtypeInfo(dtype).name; }
inline unsigned dtypeBits(DType dtype) { return dtypeInfo(dtype).bits; }
// Bytes that `elements` values of `dtype` fill, with checked arithmetic: nullopt when the bit
// count overflows 64 bits or is not a whole number of bytes. Every entry point that takes an
// element count and a byte span checks them against each other with this.
inline std::optional<std::uint64_t> bytesForElements(DType dtype, std::uint64_t elements)
{
    const unsigned bits = dtypeBits(dtype);
    std::uint64_t total = 0;
    if (__builtin_mul_overflow(elements, bits, &total) || total % 8 != 0)
        return std::nullopt;
    return total / 8;
}
bool isFloatingPoint(DType dtype); // the float kinds and C64

// Raw code of element `index`: the element's bits, zero-extended (for C64 the whole 64 bits).
// Sub-byte elements are packed as a little-endian bit stream: element i occupies bits
// [i*w, (i+1)*w), so for F4 element 0 is the low nibble of byte 0.
// Precondition: `bytes` holds at least ceil((index+1)*w/8) bytes.
std::uint64_t elementCode(DType dtype, std::span<const std::byte> bytes, std::uint64_t index);

// Exact value of a code as a double (every dtype fits a double exactly except I64/U64 beyond
// 2^53, which round to nearest). NaN codes give a quiet NaN, Inf codes give ±infinity, and the
// sign of zero is kept. For C64 it returns the real part; use decodeComplex for both.
double decodeCode(DType dtype, std::uint64_t code);
std::complex<double> decodeComplex(std::uint64_t code); // C64: low 32 bits real, high imaginary

inline double decodeElement(DType dtype, std::span<const std::byte> bytes, std::uint64_t index)
{
    return decodeCode(dtype, elementCode(dtype, bytes, index));
}

// Human text of one element: integers exactly, floats with the shortest round-trip digits,
// "nan", "inf", "-inf", C64 as "re+imi", BOOL as "true"/"false" (any non-zero byte is true).
std::string formatElement(DType dtype, std::span<const std::byte> bytes, std::uint64_t index);

} // namespace stb
