#include "core/format/dtype.h"

#include <array>
#include <bit>
#include <charconv>
#include <cmath>
#include <cstring>
#include <limits>
#include <system_error>

namespace stb {

namespace {

using Kind = DTypeKind;

// Indexed by the enum value, so dtypeInfo is one load; the static_assert below keeps the two
// in step when a dtype is added.
constexpr std::array<DTypeInfo, kDTypeCount> kTable { {
    { DType::BOOL, "BOOL", 8, Kind::Bool, true },
    { DType::F4, "F4", 4, Kind::Float, false },
    { DType::F6_E2M3, "F6_E2M3", 6, Kind::Float, false },
    { DType::F6_E3M2, "F6_E3M2", 6, Kind::Float, false },
    { DType::U8, "U8", 8, Kind::Unsigned, true },
    { DType::I8, "I8", 8, Kind::Signed, true },
    { DType::F8_E5M2, "F8_E5M2", 8, Kind::Float, true },
    { DType::F8_E4M3, "F8_E4M3", 8, Kind::Float, true },
    { DType::F8_E8M0, "F8_E8M0", 8, Kind::Float, false },
    { DType::F8_E4M3FNUZ, "F8_E4M3FNUZ", 8, Kind::Float, false },
    { DType::F8_E5M2FNUZ, "F8_E5M2FNUZ", 8, Kind::Float, false },
    { DType::I16, "I16", 16, Kind::Signed, true },
    { DType::U16, "U16", 16, Kind::Unsigned, true },
    { DType::F16, "F16", 16, Kind::Float, true },
    { DType::BF16, "BF16", 16, Kind::Float, true },
    { DType::I32, "I32", 32, Kind::Signed, true },
    { DType::U32, "U32", 32, Kind::Unsigned, true },
    { DType::F32, "F32", 32, Kind::Float, true },
    { DType::C64, "C64", 64, Kind::Complex, false },
    { DType::F64, "F64", 64, Kind::Float, true },
    { DType::I64, "I64", 64, Kind::Signed, true },
    { DType::U64, "U64", 64, Kind::Unsigned, true },
} };

constexpr bool tableMatchesEnum()
{
    for (std::size_t i = 0; i < kTable.size(); ++i) {
        if (static_cast<std::size_t>(kTable[i].dtype) != i)
            return false;
    }
    return static_cast<std::size_t>(DType::U64) + 1 == kDTypeCount;
}
static_assert(tableMatchesEnum(), "kTable must list every DType in enum order");

// A name's first eight bytes, zero-padded, as one integer. dtypeFromName compares these and
// the length instead of calling memcmp for each name of the table of the same length (it runs
// once per tensor of a header: those calls were 7% of `check` of 100,000 tensors).
constexpr std::uint64_t namePrefix(std::string_view name)
{
    std::uint64_t key = 0;
    for (std::size_t i = 0; i < name.size() && i < 8; ++i)
        key |= std::uint64_t(static_cast<unsigned char>(name[i])) << (8 * i);
    return key;
}

constexpr std::array<std::uint64_t, kDTypeCount> kNamePrefixes = [] {
    std::array<std::uint64_t, kDTypeCount> prefixes {};
    for (std::size_t i = 0; i < kTable.size(); ++i)
        prefixes[i] = namePrefix(kTable[i].name);
    return prefixes;
}();

constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();
constexpr double kInf = std::numeric_limits<double>::infinity();

// Tensor data is little-endian and may sit at any address: memcpy is the only load that is
// both alignment-safe and free on the platforms we run on.
template<typename T> T loadLittleEndian(const std::byte *p)
{
    T value;
    std::memcpy(&value, p, sizeof value);
    if constexpr (std::endian::native == std::endian::big) {
        T swapped = 0;
        for (std::size_t i = 0; i < sizeof value; ++i)
            swapped = static_cast<T>((swapped << 8) | ((value >> (8 * i)) & 0xFF));
        value = swapped;
    }
    return value;
}

// 2^e built from its bit pattern. Exact and branch-free for -1022 <= e <= 1023, which covers
// every exponent the narrow formats need (the extremes are E8M0's 2^-127 and 2^127).
constexpr double pow2(int e)
{
    return std::bit_cast<double>(static_cast<std::uint64_t>(e + 1023) << 52);
}

constexpr double withSign(double magnitude, std::uint32_t negative)
{
    return std::bit_cast<double>(
        std::bit_cast<std::uint64_t>(magnitude) | static_cast<std::uint64_t>(negative & 1) << 63);
}

// Value of a finite sign/exponent/mantissa code with E exponent and M mantissa bits. The
// significand has at most 11 bits here and the scale is a normal double, so the product is
// exact. Exponent field 0 is subnormal: the scale of field 1 without the implicit bit.
template<unsigned E, unsigned M, int Bias> constexpr double narrowFinite(std::uint32_t code)
{
    const std::uint32_t exponent = (code >> M) & ((1u << E) - 1);
    const std::uint32_t mantissa = code & ((1u << M) - 1);
    const std::uint32_t normal = exponent != 0;
    const double significand = static_cast<double>(mantissa | normal << M);
    const double scale = pow2(static_cast<int>(exponent + (normal ^ 1)) - Bias - static_cast<int>(M));
    return withSign(significand * scale, code >> (E + M));
}

// IEEE-style formats (F16, F8_E5M2): an all-ones exponent is Inf with a zero mantissa, NaN
// otherwise.
template<unsigned E, unsigned M, int Bias> constexpr double ieeeNarrow(std::uint32_t code)
{
    constexpr std::uint32_t kExponentMask = ((1u << E) - 1) << M;
    if ((code & kExponentMask) != kExponentMask)
        return narrowFinite<E, M, Bias>(code);
    return (code & ((1u << M) - 1)) ? kNaN : withSign(kInf, code >> (E + M));
}

// FNUZ formats spend the negative-zero pattern on their only NaN and have no Inf.
template<unsigned E, unsigned M, int Bias> constexpr double fnuzNarrow(std::uint32_t code)
{
    return code == 0x80 ? kNaN : narrowFinite<E, M, Bias>(code);
}

double f32Bits(std::uint64_t code)
{
    // float -> double is an IEEE conversion, so a signalling NaN comes out quiet.
    return static_cast<double>(std::bit_cast<float>(static_cast<std::uint32_t>(code)));
}

template<typename Float> std::string floatText(Float value)
{
    if (std::isnan(value))
        return "nan";
    if (std::isinf(value))
        return value < 0 ? "-inf" : "inf";
    // Shortest digits that read back as the same value; "-0" survives.
    char buffer[32];
    const auto result = std::to_chars(buffer, buffer + sizeof buffer, value);
    return std::string(buffer, result.ptr);
}

template<typename Int> std::string integerText(Int value)
{
    char buffer[24];
    const auto result = std::to_chars(buffer, buffer + sizeof buffer, value);
    return std::string(buffer, result.ptr);
}

} // namespace

const DTypeInfo &dtypeInfo(DType dtype)
{
    return kTable[static_cast<std::size_t>(dtype)];
}

std::span<const DTypeInfo> allDTypes()
{
    return kTable;
}

std::optional<DType> dtypeFromName(std::string_view name)
{
    const std::uint64_t prefix = namePrefix(name);
    for (std::size_t i = 0; i < kTable.size(); ++i) {
        const std::string_view known = kTable[i].name;
        if (kNamePrefixes[i] == prefix && known.size() == name.size()
            && (name.size() <= 8 || known.substr(8) == name.substr(8)))
            return kTable[i].dtype;
    }
    return std::nullopt;
}

bool isFloatingPoint(DType dtype)
{
    const DTypeKind kind = dtypeInfo(dtype).kind;
    return kind == DTypeKind::Float || kind == DTypeKind::Complex;
}

std::uint64_t elementCode(DType dtype, std::span<const std::byte> bytes, std::uint64_t index)
{
    const std::byte *data = bytes.data();
    switch (dtypeBits(dtype)) {
    case 4: {
        const auto byte = std::to_integer<std::uint32_t>(data[index / 2]);
        return (byte >> ((index & 1) * 4)) & 0xF;
    }
    case 6: {
        // Four elements fill three bytes. Computing the group first keeps index * 6 from
        // overflowing, and the second byte is touched only when the element straddles into it.
        const unsigned bit = static_cast<unsigned>(index & 3) * 6;
        const std::byte *p = data + (index >> 2) * 3 + bit / 8;
        const unsigned shift = bit % 8;
        std::uint32_t value = std::to_integer<std::uint32_t>(p[0]) >> shift;
        if (shift > 2)
            value |= std::to_integer<std::uint32_t>(p[1]) << (8 - shift);
        return value & 0x3F;
    }
    case 8:
        return loadLittleEndian<std::uint8_t>(data + index);
    case 16:
        return loadLittleEndian<std::uint16_t>(data + index * 2);
    case 32:
        return loadLittleEndian<std::uint32_t>(data + index * 4);
    default:
        return loadLittleEndian<std::uint64_t>(data + index * 8);
    }
}

double decodeCode(DType dtype, std::uint64_t code)
{
    // Narrow codes are masked to their width so that stray high bits cannot reach the sign
    // or the special-value tests.
    const auto c8 = static_cast<std::uint32_t>(code & 0xFF);
    switch (dtype) {
    case DType::BOOL:
        return c8 != 0 ? 1.0 : 0.0;
    case DType::U8:
        return static_cast<double>(static_cast<std::uint8_t>(code));
    case DType::I8:
        return static_cast<double>(static_cast<std::int8_t>(code));
    case DType::U16:
        return static_cast<double>(static_cast<std::uint16_t>(code));
    case DType::I16:
        return static_cast<double>(static_cast<std::int16_t>(code));
    case DType::U32:
        return static_cast<double>(static_cast<std::uint32_t>(code));
    case DType::I32:
        return static_cast<double>(static_cast<std::int32_t>(code));
    case DType::U64:
        return static_cast<double>(code);
    case DType::I64:
        return static_cast<double>(static_cast<std::int64_t>(code));
    case DType::F16:
        return ieeeNarrow<5, 10, 15>(static_cast<std::uint32_t>(code & 0xFFFF));
    case DType::BF16:
        return f32Bits((code & 0xFFFF) << 16);
    case DType::F32:
    case DType::C64:
        return f32Bits(code & 0xFFFFFFFF);
    case DType::F64: {
        // A signalling NaN would survive a bit copy; the contract promises a quiet one.
        const double value = std::bit_cast<double>(code);
        return value != value ? kNaN : value;
    }
    case DType::F8_E4M3:
        // OCP E4M3FN: no Inf; only S.1111.111 is NaN, so 0x78..0x7E are ordinary numbers.
        return (c8 & 0x7F) == 0x7F ? kNaN : narrowFinite<4, 3, 7>(c8);
    case DType::F8_E5M2:
        return ieeeNarrow<5, 2, 15>(c8);
    case DType::F8_E4M3FNUZ:
        return fnuzNarrow<4, 3, 8>(c8);
    case DType::F8_E5M2FNUZ:
        return fnuzNarrow<5, 2, 16>(c8);
    case DType::F8_E8M0:
        // A bare biased exponent: no sign, no zero, no mantissa.
        return c8 == 0xFF ? kNaN : pow2(static_cast<int>(c8) - 127);
    case DType::F6_E2M3:
        // The OCP MX 6- and 4-bit formats have neither Inf nor NaN.
        return narrowFinite<2, 3, 1>(static_cast<std::uint32_t>(code & 0x3F));
    case DType::F6_E3M2:
        return narrowFinite<3, 2, 3>(static_cast<std::uint32_t>(code & 0x3F));
    case DType::F4:
        return narrowFinite<2, 1, 1>(static_cast<std::uint32_t>(code & 0xF));
    }
    return kNaN;
}

std::complex<double> decodeComplex(std::uint64_t code)
{
    return { f32Bits(code & 0xFFFFFFFF), f32Bits(code >> 32) };
}

std::string formatElement(DType dtype, std::span<const std::byte> bytes, std::uint64_t index)
{
    const std::uint64_t code = elementCode(dtype, bytes, index);
    const DTypeInfo &info = dtypeInfo(dtype);
    switch (info.kind) {
    case DTypeKind::Bool:
        return code != 0 ? "true" : "false";
    case DTypeKind::Unsigned:
        return integerText(code);
    case DTypeKind::Signed: {
        // Move the sign bit to bit 63, then shift back arithmetically (defined in C++20).
        const unsigned unused = 64 - info.bits;
        return integerText(static_cast<std::int64_t>(code << unused) >> unused);
    }
    case DTypeKind::Complex: {
        // The float overloads give the digits a reader of F32 expects ("0.1", not the
        // 17-digit expansion of its double value).
        const auto real = std::bit_cast<float>(static_cast<std::uint32_t>(code));
        const auto imag = std::bit_cast<float>(static_cast<std::uint32_t>(code >> 32));
        std::string text = floatText(real);
        text += (std::signbit(imag) && !std::isnan(imag)) ? '-' : '+';
        text += floatText(std::fabs(imag));
        text += 'i';
        return text;
    }
    case DTypeKind::Float:
        break;
    }
    if (dtype == DType::F32)
        return floatText(std::bit_cast<float>(static_cast<std::uint32_t>(code)));
    return floatText(decodeCode(dtype, code));
}

} // namespace stb
