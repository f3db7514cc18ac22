#include "core/format/dtype.h"

#include <QByteArray>
#include <QList>
#include <QTest>
#include <QtCore/qfloat16.h>

#include <bit>
#include <cmath>
#include <cstring>
#include <limits>
#include <memory>

using namespace stb;

Q_DECLARE_METATYPE(stb::DType)
Q_DECLARE_METATYPE(stb::DTypeKind)

namespace {

constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();
constexpr double kInf = std::numeric_limits<double>::infinity();

// Doubles are compared bit-exactly (QCOMPARE would be fuzzy), except that all NaNs are equal.
bool sameValue(double actual, double expected)
{
    if (std::isnan(actual) || std::isnan(expected))
        return std::isnan(actual) && std::isnan(expected);
    return actual == expected && std::signbit(actual) == std::signbit(expected);
}

bool isQuietNaN(double value)
{
    constexpr std::uint64_t kQuiet = 0x7FF8000000000000;
    return (std::bit_cast<std::uint64_t>(value) & kQuiet) == kQuiet;
}

QByteArray mismatch(quint64 code, double actual, double expected)
{
    return "code 0x" + QByteArray::number(code, 16) + ": got " + QByteArray::number(actual, 'g', 17)
        + (std::signbit(actual) ? " (sign set)" : "") + ", expected " + QByteArray::number(expected, 'g', 17)
        + (std::signbit(expected) ? " (sign set)" : "");
}

std::span<const std::byte> asBytes(const QByteArray &data)
{
    return std::as_bytes(std::span(data.constData(), static_cast<std::size_t>(data.size())));
}

// How a narrow format spends its top exponent. The test's own reference decoder, written as
// fraction arithmetic with ldexp/pow rather than the implementation's integer significand.
enum class Specials { IeeeLike, AllOnesNaN, Fnuz, ExponentOnly, None };

double referenceDecode(unsigned code, int expBits, int manBits, int bias, Specials specials)
{
    if (specials == Specials::ExponentOnly)
        return code == 0xFF ? kNaN : std::pow(2.0, static_cast<int>(code) - 127);
    const int width = 1 + expBits + manBits;
    const unsigned signMask = 1u << (width - 1);
    const bool negative = (code & signMask) != 0;
    const unsigned expField = (code & (signMask - 1)) >> manBits;
    const unsigned manField = code & ((1u << manBits) - 1);
    const unsigned expMax = (1u << expBits) - 1;
    const unsigned manMax = (1u << manBits) - 1;
    switch (specials) {
    case Specials::IeeeLike:
        if (expField == expMax)
            return manField != 0 ? kNaN : (negative ? -kInf : kInf);
        break;
    case Specials::AllOnesNaN:
        if (expField == expMax && manField == manMax)
            return kNaN;
        break;
    case Specials::Fnuz:
        if (code == signMask)
            return kNaN;
        break;
    default:
        break;
    }
    const double fraction = manField / std::pow(2.0, manBits);
    const double magnitude = expField == 0 ? std::ldexp(fraction, 1 - bias)
                                           : std::ldexp(1.0 + fraction, static_cast<int>(expField) - bias);
    return negative ? -magnitude : magnitude;
}

} // namespace

Q_DECLARE_METATYPE(Specials)

class tst_DType : public QObject {
    Q_OBJECT

private slots:
    void table_data();
    void table();
    void tableOrder();
    void fromNameRoundTrip_data();
    void fromNameRoundTrip();
    void fromNameRejects_data();
    void fromNameRejects();
    void decode_data();
    void decode();
    void exhaustive_data();
    void exhaustive();
    void f16AgainstQFloat16();
    void mxValueLists_data();
    void mxValueLists();
    void subBytePacking_data();
    void subBytePacking();
    void exactSizeBuffers_data();
    void exactSizeBuffers();
    void littleEndianUnaligned_data();
    void littleEndianUnaligned();
    void complexPair();
    void format_data();
    void format();
};

void tst_DType::table_data()
{
    QTest::addColumn<DType>("dtype");
    QTest::addColumn<QByteArray>("name");
    QTest::addColumn<uint>("bits");
    QTest::addColumn<DTypeKind>("kind");
    QTest::addColumn<bool>("known");
    QTest::addColumn<bool>("floating");

    using K = DTypeKind;
    const auto row = [](DType dtype, const char *name, uint bits, K kind, bool known, bool floating) {
        QTest::newRow(name) << dtype << QByteArray(name) << bits << kind << known << floating;
    };
    // Bits and names from rules.md "Dtypes"; the older-reader list from its warnings.
    row(DType::BOOL, "BOOL", 8, K::Bool, true, false);
    row(DType::F4, "F4", 4, K::Float, false, true);
    row(DType::F6_E2M3, "F6_E2M3", 6, K::Float, false, true);
    row(DType::F6_E3M2, "F6_E3M2", 6, K::Float, false, true);
    row(DType::U8, "U8", 8, K::Unsigned, true, false);
    row(DType::I8, "I8", 8, K::Signed, true, false);
    row(DType::F8_E5M2, "F8_E5M2", 8, K::Float, true, true);
    row(DType::F8_E4M3, "F8_E4M3", 8, K::Float, true, true);
    row(DType::F8_E8M0, "F8_E8M0", 8, K::Float, false, true);
    row(DType::F8_E4M3FNUZ, "F8_E4M3FNUZ", 8, K::Float, false, true);
    row(DType::F8_E5M2FNUZ, "F8_E5M2FNUZ", 8, K::Float, false, true);
    row(DType::I16, "I16", 16, K::Signed, true, false);
    row(DType::U16, "U16", 16, K::Unsigned, true, false);
    row(DType::F16, "F16", 16, K::Float, true, true);
    row(DType::BF16, "BF16", 16, K::Float, true, true);
    row(DType::I32, "I32", 32, K::Signed, true, false);
    row(DType::U32, "U32", 32, K::Unsigned, true, false);
    row(DType::F32, "F32", 32, K::Float, true, true);
    row(DType::C64, "C64", 64, K::Complex, false, true);
    row(DType::F64, "F64", 64, K::Float, true, true);
    row(DType::I64, "I64", 64, K::Signed, true, false);
    row(DType::U64, "U64", 64, K::Unsigned, true, false);
}

void tst_DType::table()
{
    QFETCH(DType, dtype);
    QFETCH(QByteArray, name);
    QFETCH(uint, bits);
    QFETCH(DTypeKind, kind);
    QFETCH(bool, known);
    QFETCH(bool, floating);

    const DTypeInfo &info = dtypeInfo(dtype);
    QCOMPARE(info.dtype, dtype);
    QCOMPARE(QByteArray::fromStdString(std::string(info.name)), name);
    QCOMPARE(QByteArray::fromStdString(std::string(dtypeName(dtype))), name);
    QCOMPARE(info.bits, bits);
    QCOMPARE(dtypeBits(dtype), bits);
    QCOMPARE(info.kind, kind);
    QCOMPARE(info.knownToOlderReaders, known);
    QCOMPARE(isFloatingPoint(dtype), floating);
}

void tst_DType::tableOrder()
{
    const std::span<const DTypeInfo> all = allDTypes();
    QCOMPARE(all.size(), kDTypeCount);
    QCOMPARE(all.size(), std::size_t(22));
    for (std::size_t i = 0; i < all.size(); ++i) {
        QCOMPARE(static_cast<std::size_t>(all[i].dtype), i);
        QCOMPARE(&dtypeInfo(all[i].dtype), &all[i]);
        for (std::size_t j = 0; j < i; ++j)
            QVERIFY(all[i].name != all[j].name);
    }
}

void tst_DType::fromNameRoundTrip_data()
{
    QTest::addColumn<QByteArray>("name");
    QTest::addColumn<DType>("dtype");
    // Spelled out here, not read from the table, so a typo in the table fails.
    const std::pair<const char *, DType> names[] = {
        { "BOOL", DType::BOOL },
        { "F4", DType::F4 },
        { "F6_E2M3", DType::F6_E2M3 },
        { "F6_E3M2", DType::F6_E3M2 },
        { "U8", DType::U8 },
        { "I8", DType::I8 },
        { "F8_E5M2", DType::F8_E5M2 },
        { "F8_E4M3", DType::F8_E4M3 },
        { "F8_E8M0", DType::F8_E8M0 },
        { "F8_E4M3FNUZ", DType::F8_E4M3FNUZ },
        { "F8_E5M2FNUZ", DType::F8_E5M2FNUZ },
        { "I16", DType::I16 },
        { "U16", DType::U16 },
        { "F16", DType::F16 },
        { "BF16", DType::BF16 },
        { "I32", DType::I32 },
        { "U32", DType::U32 },
        { "F32", DType::F32 },
        { "C64", DType::C64 },
        { "F64", DType::F64 },
        { "I64", DType::I64 },
        { "U64", DType::U64 },
    };
    static_assert(std::size(names) == kDTypeCount);
    for (const auto &[name, dtype] : names)
        QTest::newRow(name) << QByteArray(name) << dtype;
}

void tst_DType::fromNameRoundTrip()
{
    QFETCH(QByteArray, name);
    QFETCH(DType, dtype);

    const std::optional<DType> found = dtypeFromName(name.toStdString());
    QVERIFY(found.has_value());
    QCOMPARE(*found, dtype);
    const std::optional<DType> again = dtypeFromName(dtypeName(dtype));
    QVERIFY(again.has_value());
    QCOMPARE(*again, dtype);
}

void tst_DType::fromNameRejects_data()
{
    QTest::addColumn<QByteArray>("name");
    QTest::newRow("lower case") << QByteArray("f32");
    QTest::newRow("trailing space") << QByteArray("F32 ");
    QTest::newRow("leading space") << QByteArray(" F32");
    QTest::newRow("empty") << QByteArray("");
    QTest::newRow("FP32") << QByteArray("FP32");
    QTest::newRow("embedded NUL") << QByteArray("F32\0", 4);
    QTest::newRow("mixed case") << QByteArray("Bf16");
    QTest::newRow("torch spelling") << QByteArray("F8_E4M3FN");
    QTest::newRow("prefix") << QByteArray("F8");
    QTest::newRow("not a dtype") << QByteArray("C128");
}

void tst_DType::fromNameRejects()
{
    QFETCH(QByteArray, name);
    QVERIFY(!dtypeFromName(std::string_view(name.constData(), static_cast<std::size_t>(name.size())))
                 .has_value());
}

void tst_DType::decode_data()
{
    QTest::addColumn<DType>("dtype");
    QTest::addColumn<quint64>("code");
    QTest::addColumn<double>("expected");

    const auto row = [](DType dtype, quint64 code, double expected, const char *what) {
        QTest::addRow("%s 0x%llx %s", dtypeName(dtype).data(), code, what) << dtype << code << expected;
    };
    using D = DType;

    row(D::BOOL, 0x00, 0, "false");
    row(D::BOOL, 0x01, 1, "true");
    row(D::BOOL, 0x02, 1, "non-zero byte");
    row(D::BOOL, 0xFF, 1, "all ones");

    row(D::U8, 0x00, 0, "min");
    row(D::U8, 0xFF, 255, "max");
    row(D::I8, 0x7F, 127, "max");
    row(D::I8, 0x80, -128, "min");
    row(D::I8, 0xFF, -1, "minus one");
    row(D::U16, 0xFFFF, 65535, "max");
    row(D::I16, 0x7FFF, 32767, "max");
    row(D::I16, 0x8000, -32768, "min");
    row(D::I16, 0xFFFF, -1, "minus one");
    row(D::U32, 0xFFFFFFFF, 4294967295.0, "max");
    row(D::I32, 0x7FFFFFFF, 2147483647.0, "max");
    row(D::I32, 0x80000000, -2147483648.0, "min");
    row(D::I64, 0x8000000000000000, -0x1p63, "min");
    row(D::I64, 0x7FFFFFFFFFFFFFFF, 0x1p63, "max rounds up");
    row(D::I64, 0xFFFFFFFFFFFFFFFF, -1, "minus one");
    row(D::I64, 0x0020000000000001, 0x1p53, "2^53+1 rounds to even");
    row(D::U64, 0xFFFFFFFFFFFFFFFF, 0x1p64, "max rounds up");
    row(D::U64, 0x0020000000000000, 9007199254740992.0, "2^53");

    row(D::F16, 0x0000, 0.0, "+0");
    row(D::F16, 0x8000, -0.0, "-0");
    row(D::F16, 0x0001, 0x1p-24, "min subnormal");
    row(D::F16, 0x03FF, 0x3FFp-24, "max subnormal");
    row(D::F16, 0x0400, 0x1p-14, "min normal");
    row(D::F16, 0x3C00, 1.0, "one");
    row(D::F16, 0xC000, -2.0, "minus two");
    row(D::F16, 0x3555, 0.333251953125, "third");
    row(D::F16, 0x7BFF, 65504.0, "max");
    row(D::F16, 0xFBFF, -65504.0, "lowest");
    row(D::F16, 0x7C00, kInf, "+inf");
    row(D::F16, 0xFC00, -kInf, "-inf");
    row(D::F16, 0x7C01, kNaN, "signalling nan");
    row(D::F16, 0x7E00, kNaN, "quiet nan");
    row(D::F16, 0x7FFF, kNaN, "nan all ones");
    row(D::F16, 0xFE00, kNaN, "negative nan");

    row(D::BF16, 0x0000, 0.0, "+0");
    row(D::BF16, 0x8000, -0.0, "-0");
    row(D::BF16, 0x0001, 0x1p-133, "min subnormal");
    row(D::BF16, 0x007F, 0x7Fp-133, "max subnormal");
    row(D::BF16, 0x0080, 0x1p-126, "min normal");
    row(D::BF16, 0x3F80, 1.0, "one");
    row(D::BF16, 0xBFC0, -1.5, "minus one and a half");
    row(D::BF16, 0x7F7F, 0xFFp120, "max");
    row(D::BF16, 0x7F80, kInf, "+inf");
    row(D::BF16, 0xFF80, -kInf, "-inf");
    row(D::BF16, 0x7F81, kNaN, "signalling nan");
    row(D::BF16, 0x7FC0, kNaN, "quiet nan");
    row(D::BF16, 0xFFFF, kNaN, "negative nan");

    row(D::F32, 0x00000000, 0.0, "+0");
    row(D::F32, 0x80000000, -0.0, "-0");
    row(D::F32, 0x00000001, 0x1p-149, "min subnormal");
    row(D::F32, 0x007FFFFF, 0x7FFFFFp-149, "max subnormal");
    row(D::F32, 0x00800000, 0x1p-126, "min normal");
    row(D::F32, 0x3F800000, 1.0, "one");
    row(D::F32, 0x3DCCCCCD, 0.100000001490116119384765625, "tenth");
    row(D::F32, 0x7F7FFFFF, 0xFFFFFFp104, "max");
    row(D::F32, 0xFF7FFFFF, -0xFFFFFFp104, "lowest");
    row(D::F32, 0x7F800000, kInf, "+inf");
    row(D::F32, 0xFF800000, -kInf, "-inf");
    row(D::F32, 0x7F800001, kNaN, "signalling nan");
    row(D::F32, 0x7FC00000, kNaN, "quiet nan");
    row(D::F32, 0xFFFFFFFF, kNaN, "negative nan");
    row(D::F32, 0xFFFFFFFF3F800000, 1.0, "high bits ignored");

    row(D::F64, 0x0000000000000000, 0.0, "+0");
    row(D::F64, 0x8000000000000000, -0.0, "-0");
    row(D::F64, 0x0000000000000001, 0x1p-1074, "min subnormal");
    row(D::F64, 0x000FFFFFFFFFFFFF, 0xFFFFFFFFFFFFFp-1074, "max subnormal");
    row(D::F64, 0x0010000000000000, 0x1p-1022, "min normal");
    row(D::F64, 0x3FF0000000000000, 1.0, "one");
    row(D::F64, 0x3FB999999999999A, 0.1, "tenth");
    row(D::F64, 0x7FEFFFFFFFFFFFFF, 0x1.FFFFFFFFFFFFFp1023, "max");
    row(D::F64, 0x7FF0000000000000, kInf, "+inf");
    row(D::F64, 0xFFF0000000000000, -kInf, "-inf");
    row(D::F64, 0x7FF0000000000001, kNaN, "signalling nan");
    row(D::F64, 0x7FF8000000000000, kNaN, "quiet nan");
    row(D::F64, 0xFFFFFFFFFFFFFFFF, kNaN, "negative nan");

    row(D::C64, 0x400000003FC00000, 1.5, "real part is the low half");
    row(D::C64, 0x3FC0000000000000, 0.0, "imaginary only");
    row(D::C64, 0x00000000BF800000, -1.0, "negative real");

    // OCP E4M3 (E4M3FN): bias 7, no Inf, NaN only at S.1111.111.
    row(D::F8_E4M3, 0x00, 0.0, "+0");
    row(D::F8_E4M3, 0x80, -0.0, "-0");
    row(D::F8_E4M3, 0x01, 0x1p-9, "min subnormal");
    row(D::F8_E4M3, 0x07, 0x7p-9, "max subnormal");
    row(D::F8_E4M3, 0x08, 0x1p-6, "min normal");
    row(D::F8_E4M3, 0x38, 1.0, "one");
    row(D::F8_E4M3, 0xB8, -1.0, "minus one");
    row(D::F8_E4M3, 0x78, 256.0, "top exponent is finite");
    row(D::F8_E4M3, 0x7E, 448.0, "max");
    row(D::F8_E4M3, 0xFE, -448.0, "lowest");
    row(D::F8_E4M3, 0x7F, kNaN, "+nan");
    row(D::F8_E4M3, 0xFF, kNaN, "-nan");

    // E5M2: bias 15, IEEE-like.
    row(D::F8_E5M2, 0x00, 0.0, "+0");
    row(D::F8_E5M2, 0x80, -0.0, "-0");
    row(D::F8_E5M2, 0x01, 0x1p-16, "min subnormal");
    row(D::F8_E5M2, 0x03, 0x3p-16, "max subnormal");
    row(D::F8_E5M2, 0x04, 0x1p-14, "min normal");
    row(D::F8_E5M2, 0x3C, 1.0, "one");
    row(D::F8_E5M2, 0xBC, -1.0, "minus one");
    row(D::F8_E5M2, 0x7B, 57344.0, "max");
    row(D::F8_E5M2, 0xFB, -57344.0, "lowest");
    row(D::F8_E5M2, 0x7C, kInf, "+inf");
    row(D::F8_E5M2, 0xFC, -kInf, "-inf");
    for (quint64 code : { 0x7D, 0x7E, 0x7F, 0xFD, 0xFE, 0xFF })
        row(D::F8_E5M2, code, kNaN, "nan");

    // FNUZ: the -0 pattern is the only NaN, no Inf.
    row(D::F8_E4M3FNUZ, 0x00, 0.0, "+0");
    row(D::F8_E4M3FNUZ, 0x80, kNaN, "nan");
    row(D::F8_E4M3FNUZ, 0x01, 0x1p-10, "min subnormal");
    row(D::F8_E4M3FNUZ, 0x81, -0x1p-10, "negative min subnormal");
    row(D::F8_E4M3FNUZ, 0x07, 0x7p-10, "max subnormal");
    row(D::F8_E4M3FNUZ, 0x08, 0x1p-7, "min normal");
    row(D::F8_E4M3FNUZ, 0x40, 1.0, "one");
    row(D::F8_E4M3FNUZ, 0xC0, -1.0, "minus one");
    row(D::F8_E4M3FNUZ, 0x78, 128.0, "top exponent is finite");
    row(D::F8_E4M3FNUZ, 0x7F, 240.0, "max");
    row(D::F8_E4M3FNUZ, 0xFF, -240.0, "lowest");

    row(D::F8_E5M2FNUZ, 0x00, 0.0, "+0");
    row(D::F8_E5M2FNUZ, 0x80, kNaN, "nan");
    row(D::F8_E5M2FNUZ, 0x01, 0x1p-17, "min subnormal");
    row(D::F8_E5M2FNUZ, 0x03, 0x3p-17, "max subnormal");
    row(D::F8_E5M2FNUZ, 0x04, 0x1p-15, "min normal");
    row(D::F8_E5M2FNUZ, 0x40, 1.0, "one");
    row(D::F8_E5M2FNUZ, 0xC0, -1.0, "minus one");
    row(D::F8_E5M2FNUZ, 0x7C, 32768.0, "top exponent is finite");
    row(D::F8_E5M2FNUZ, 0x7F, 57344.0, "max");
    row(D::F8_E5M2FNUZ, 0xFF, -57344.0, "lowest");

    // E8M0: 2^(e-127), no sign, no zero.
    row(D::F8_E8M0, 0x00, 0x1p-127, "min");
    row(D::F8_E8M0, 0x01, 0x1p-126, "second");
    row(D::F8_E8M0, 0x7F, 1.0, "one");
    row(D::F8_E8M0, 0x80, 2.0, "two");
    row(D::F8_E8M0, 0xFE, 0x1p127, "max");
    row(D::F8_E8M0, 0xFF, kNaN, "nan");

    row(D::F6_E2M3, 0x00, 0.0, "+0");
    row(D::F6_E2M3, 0x20, -0.0, "-0");
    row(D::F6_E2M3, 0x01, 0.125, "min subnormal");
    row(D::F6_E2M3, 0x07, 0.875, "max subnormal");
    row(D::F6_E2M3, 0x08, 1.0, "min normal is one");
    row(D::F6_E2M3, 0x1F, 7.5, "max");
    row(D::F6_E2M3, 0x3F, -7.5, "lowest");

    row(D::F6_E3M2, 0x00, 0.0, "+0");
    row(D::F6_E3M2, 0x20, -0.0, "-0");
    row(D::F6_E3M2, 0x01, 0.0625, "min subnormal");
    row(D::F6_E3M2, 0x03, 0.1875, "max subnormal");
    row(D::F6_E3M2, 0x04, 0.25, "min normal");
    row(D::F6_E3M2, 0x0C, 1.0, "one");
    row(D::F6_E3M2, 0x1F, 28.0, "max");
    row(D::F6_E3M2, 0x3F, -28.0, "lowest");

    row(D::F4, 0x0, 0.0, "+0");
    row(D::F4, 0x8, -0.0, "-0");
    row(D::F4, 0x1, 0.5, "subnormal");
    row(D::F4, 0x2, 1.0, "min normal is one");
    row(D::F4, 0x7, 6.0, "max");
    row(D::F4, 0xF, -6.0, "lowest");
}

void tst_DType::decode()
{
    QFETCH(DType, dtype);
    QFETCH(quint64, code);
    QFETCH(double, expected);

    const double actual = decodeCode(dtype, code);
    QVERIFY2(sameValue(actual, expected), mismatch(code, actual, expected).constData());
    if (std::isnan(expected))
        QVERIFY2(isQuietNaN(actual), "NaN codes must decode to a quiet NaN");
}

void tst_DType::exhaustive_data()
{
    QTest::addColumn<DType>("dtype");
    QTest::addColumn<int>("expBits");
    QTest::addColumn<int>("manBits");
    QTest::addColumn<int>("bias");
    QTest::addColumn<Specials>("specials");
    QTest::addColumn<int>("nanCount");
    QTest::addColumn<bool>("hasNegativeZero");
    QTest::addColumn<double>("maxFinite");

    using S = Specials;
    QTest::newRow("F8_E4M3") << DType::F8_E4M3 << 4 << 3 << 7 << S::AllOnesNaN << 2 << true << 448.0;
    QTest::newRow("F8_E5M2") << DType::F8_E5M2 << 5 << 2 << 15 << S::IeeeLike << 6 << true << 57344.0;
    QTest::newRow("F8_E4M3FNUZ") << DType::F8_E4M3FNUZ << 4 << 3 << 8 << S::Fnuz << 1 << false << 240.0;
    QTest::newRow("F8_E5M2FNUZ") << DType::F8_E5M2FNUZ << 5 << 2 << 16 << S::Fnuz << 1 << false << 57344.0;
    QTest::newRow("F8_E8M0") << DType::F8_E8M0 << 8 << 0 << 127 << S::ExponentOnly << 1 << false << 0x1p127;
    QTest::newRow("F6_E2M3") << DType::F6_E2M3 << 2 << 3 << 1 << S::None << 0 << true << 7.5;
    QTest::newRow("F6_E3M2") << DType::F6_E3M2 << 3 << 2 << 3 << S::None << 0 << true << 28.0;
    QTest::newRow("F4") << DType::F4 << 2 << 1 << 1 << S::None << 0 << true << 6.0;
    QTest::newRow("F16") << DType::F16 << 5 << 10 << 15 << S::IeeeLike << 2046 << true << 65504.0;
    QTest::newRow("BF16") << DType::BF16 << 8 << 7 << 127 << S::IeeeLike << 254 << true << 0xFFp120;
}

// Every code against the reference decoder, plus properties that need no decoder: the NaN
// count, the -0 count, the largest finite value, and strictly increasing magnitudes.
void tst_DType::exhaustive()
{
    QFETCH(DType, dtype);
    QFETCH(int, expBits);
    QFETCH(int, manBits);
    QFETCH(int, bias);
    QFETCH(Specials, specials);
    QFETCH(int, nanCount);
    QFETCH(bool, hasNegativeZero);
    QFETCH(double, maxFinite);

    const bool unsignedFormat = specials == Specials::ExponentOnly;
    const unsigned width = unsignedFormat ? 8 : static_cast<unsigned>(1 + expBits + manBits);
    const unsigned codes = 1u << width;
    int nans = 0;
    int negativeZeros = 0;
    double largest = -kInf;
    double previous = -kInf;
    for (unsigned code = 0; code < codes; ++code) {
        const double actual = decodeCode(dtype, code);
        const double expected = referenceDecode(code, expBits, manBits, bias, specials);
        if (!sameValue(actual, expected))
            QFAIL(mismatch(code, actual, expected).constData());
        if (std::isnan(actual)) {
            ++nans;
            continue;
        }
        if (actual == 0 && std::signbit(actual))
            ++negativeZeros;
        if (std::isfinite(actual))
            largest = std::max(largest, actual);
        const bool positiveHalf = unsignedFormat || code < codes / 2;
        if (positiveHalf) {
            if (!(actual > previous))
                QFAIL(("not increasing at code 0x" + QByteArray::number(code, 16)).constData());
            previous = actual;
        }
    }
    QCOMPARE(nans, nanCount);
    QCOMPARE(negativeZeros, hasNegativeZero ? 1 : 0);
    QVERIFY(sameValue(largest, maxFinite));
    if (unsignedFormat)
        QVERIFY(decodeCode(dtype, 0) > 0);
}

// Qt's own half-precision conversion is an implementation we did not write.
void tst_DType::f16AgainstQFloat16()
{
    for (quint32 code = 0; code <= 0xFFFF; ++code) {
        const auto bits = static_cast<quint16>(code);
        const double expected = static_cast<float>(std::bit_cast<qfloat16>(bits));
        const double actual = decodeCode(DType::F16, code);
        if (!sameValue(actual, expected))
            QFAIL(mismatch(code, actual, expected).constData());
    }
}

void tst_DType::mxValueLists_data()
{
    QTest::addColumn<DType>("dtype");
    QTest::addColumn<QList<double>>("positives");

    // The value tables of the OCP Microscaling Formats spec v1.0, codes 0 upwards.
    QTest::newRow("F4 (E2M1)") << DType::F4 << QList<double> { 0, 0.5, 1, 1.5, 2, 3, 4, 6 };
    // One line per exponent value, so the grid reads like the spec's table.
    // clang-format off
    QTest::newRow("F6_E2M3") << DType::F6_E2M3 << QList<double> {
        0,     0.125, 0.25,  0.375, 0.5,   0.625, 0.75,  0.875,
        1,     1.125, 1.25,  1.375, 1.5,   1.625, 1.75,  1.875,
        2,     2.25,  2.5,   2.75,  3,     3.25,  3.5,   3.75,
        4,     4.5,   5,     5.5,   6,     6.5,   7,     7.5,
    };
    QTest::newRow("F6_E3M2") << DType::F6_E3M2 << QList<double> {
        0,     0.0625, 0.125, 0.1875,
        0.25,  0.3125, 0.375, 0.4375,
        0.5,   0.625,  0.75,  0.875,
        1,     1.25,   1.5,   1.75,
        2,     2.5,    3,     3.5,
        4,     5,      6,     7,
        8,     10,     12,    14,
        16,    20,     24,    28,
    };
    // clang-format on
}

void tst_DType::mxValueLists()
{
    QFETCH(DType, dtype);
    QFETCH(QList<double>, positives);

    const auto signBit = static_cast<quint64>(positives.size());
    QCOMPARE(signBit, quint64(1) << (dtypeBits(dtype) - 1));
    for (quint64 code = 0; code < signBit; ++code) {
        const double value = positives[static_cast<qsizetype>(code)];
        const double actual = decodeCode(dtype, code);
        if (!sameValue(actual, value))
            QFAIL(mismatch(code, actual, value).constData());
        const double negated = decodeCode(dtype, code | signBit);
        if (!sameValue(negated, -value))
            QFAIL(mismatch(code | signBit, negated, -value).constData());
    }
}

void tst_DType::subBytePacking_data()
{
    QTest::addColumn<DType>("dtype");
    QTest::addColumn<QByteArray>("bytes");
    QTest::addColumn<QList<quint64>>("codes");

    // Codes packed by hand: element i at bits [i*w, (i+1)*w) of a little-endian stream.
    QTest::newRow("F4 low nibble first")
        << DType::F4 << QByteArray::fromHex("21f7") << QList<quint64> { 0x1, 0x2, 0x7, 0xF };
    QTest::newRow("F4 one byte") << DType::F4 << QByteArray::fromHex("5a") << QList<quint64> { 0xA, 0x5 };
    // 0x56afc1 = 0x15<<18 | 0x2a<<12 | 0x3f<<6 | 0x01: elements 1 and 2 straddle bytes.
    QTest::newRow("F6 four in three bytes")
        << DType::F6_E2M3 << QByteArray::fromHex("c1af56") << QList<quint64> { 0x01, 0x3F, 0x2A, 0x15 };
    // Element 4 starts on the byte boundary after the first group.
    QTest::newRow("F6 two groups") << DType::F6_E3M2 << QByteArray::fromHex("c1af563ff003")
                                   << QList<quint64> { 0x01, 0x3F, 0x2A, 0x15, 0x3F, 0x00, 0x3F, 0x00 };
    QTest::newRow("F6 lone high bits")
        << DType::F6_E2M3 << QByteArray::fromHex("600006") << QList<quint64> { 0x20, 0x01, 0x20, 0x01 };
    QTest::newRow("F6 alternating bits")
        << DType::F6_E3M2 << QByteArray::fromHex("6aa556") << QList<quint64> { 0x2A, 0x15, 0x2A, 0x15 };
    QTest::newRow("F6 all ones") << DType::F6_E2M3 << QByteArray::fromHex("ffffff")
                                 << QList<quint64> { 0x3F, 0x3F, 0x3F, 0x3F };
}

void tst_DType::subBytePacking()
{
    QFETCH(DType, dtype);
    QFETCH(QByteArray, bytes);
    QFETCH(QList<quint64>, codes);

    QCOMPARE(static_cast<quint64>(codes.size()) * dtypeBits(dtype), static_cast<quint64>(bytes.size()) * 8);
    for (qsizetype i = 0; i < codes.size(); ++i) {
        const auto index = static_cast<std::uint64_t>(i);
        QCOMPARE(static_cast<quint64>(elementCode(dtype, asBytes(bytes), index)), codes[i]);
        QVERIFY(sameValue(decodeElement(dtype, asBytes(bytes), index), decodeCode(dtype, codes[i])));
    }
}

void tst_DType::exactSizeBuffers_data()
{
    QTest::addColumn<DType>("dtype");
    for (const DTypeInfo &info : allDTypes())
        QTest::newRow(info.name.data()) << info.dtype;
}

// Each element is read from a heap block of exactly ceil((index+1)*w/8) bytes, so a read past
// the element is a heap overflow under the STB_SANITIZE build and a wrong value otherwise.
void tst_DType::exactSizeBuffers()
{
    QFETCH(DType, dtype);

    const unsigned bits = dtypeBits(dtype);
    constexpr int kElements = 9;
    QByteArray full(kElements * 8, Qt::Uninitialized);
    for (qsizetype i = 0; i < full.size(); ++i)
        full[i] = static_cast<char>(0x5B * i + 0x11);
    for (std::uint64_t index = 0; index < kElements; ++index) {
        const std::size_t needed = ((index + 1) * bits + 7) / 8;
        const auto exact = std::make_unique<std::byte[]>(needed);
        std::memcpy(exact.get(), full.constData(), needed);
        const std::uint64_t fromExact = elementCode(dtype, std::span(exact.get(), needed), index);
        QCOMPARE(
            static_cast<quint64>(fromExact), static_cast<quint64>(elementCode(dtype, asBytes(full), index)));
    }
}

void tst_DType::littleEndianUnaligned_data()
{
    QTest::addColumn<DType>("dtype");
    QTest::addColumn<QByteArray>("bytes");
    QTest::addColumn<int>("skip");
    QTest::addColumn<quint64>("index");
    QTest::addColumn<quint64>("code");

    // `skip` leading bytes put the element at an odd address.
    QTest::newRow("U8") << DType::U8 << QByteArray::fromHex("00ab") << 1 << quint64(0) << quint64(0xAB);
    QTest::newRow("I16") << DType::I16 << QByteArray::fromHex("ee0100ff7f") << 1 << quint64(1)
                         << quint64(0x7FFF);
    QTest::newRow("F16") << DType::F16 << QByteArray::fromHex("ee003c") << 1 << quint64(0) << quint64(0x3C00);
    QTest::newRow("I32") << DType::I32 << QByteArray::fromHex("eeeeee78563412") << 3 << quint64(0)
                         << quint64(0x12345678);
    QTest::newRow("F32 second") << DType::F32 << QByteArray::fromHex("ee000000000000803f") << 1 << quint64(1)
                                << quint64(0x3F800000);
    QTest::newRow("U64") << DType::U64 << QByteArray::fromHex("ee0807060504030201") << 1 << quint64(0)
                         << quint64(0x0102030405060708);
    QTest::newRow("C64 whole code") << DType::C64 << QByteArray::fromHex("eeeeeeeeee0000c03f00000040") << 5
                                    << quint64(0) << quint64(0x400000003FC00000);
}

void tst_DType::littleEndianUnaligned()
{
    QFETCH(DType, dtype);
    QFETCH(QByteArray, bytes);
    QFETCH(int, skip);
    QFETCH(quint64, index);
    QFETCH(quint64, code);

    const std::span<const std::byte> data = asBytes(bytes).subspan(static_cast<std::size_t>(skip));
    QCOMPARE(static_cast<quint64>(elementCode(dtype, data, index)), code);
}

void tst_DType::complexPair()
{
    // Low word 0x3FC00000 = 1.5f (real), high word 0xC0000000 = -2.0f (imaginary).
    const std::complex<double> value = decodeComplex(0xC00000003FC00000);
    QVERIFY(sameValue(value.real(), 1.5));
    QVERIFY(sameValue(value.imag(), -2.0));
    QVERIFY(sameValue(decodeCode(DType::C64, 0xC00000003FC00000), 1.5));

    const std::complex<double> signedZeros = decodeComplex(0x8000000000000000);
    QVERIFY(sameValue(signedZeros.real(), 0.0));
    QVERIFY(sameValue(signedZeros.imag(), -0.0));

    const std::complex<double> nanPart = decodeComplex(0x7FC000003F800000);
    QVERIFY(sameValue(nanPart.real(), 1.0));
    QVERIFY(std::isnan(nanPart.imag()));

    const QByteArray bytes = QByteArray::fromHex("0000c03f000000c0");
    QCOMPARE(static_cast<quint64>(elementCode(DType::C64, asBytes(bytes), 0)), quint64(0xC00000003FC00000));
}

void tst_DType::format_data()
{
    QTest::addColumn<DType>("dtype");
    QTest::addColumn<QByteArray>("bytes");
    QTest::addColumn<quint64>("index");
    QTest::addColumn<QByteArray>("text");

    const auto row = [](const char *name, DType dtype, const char *hex, quint64 index, const char *text) {
        QTest::newRow(name) << dtype << QByteArray::fromHex(hex) << index << QByteArray(text);
    };
    using D = DType;
    row("BOOL false", D::BOOL, "00", 0, "false");
    row("BOOL true", D::BOOL, "01", 0, "true");
    row("BOOL non-zero", D::BOOL, "0080", 1, "true");
    row("U8 max", D::U8, "ff", 0, "255");
    row("I8 min", D::I8, "80", 0, "-128");
    row("I16 minus one", D::I16, "ffff", 0, "-1");
    row("U16 max", D::U16, "ffff", 0, "65535");
    row("I32 min", D::I32, "00000080", 0, "-2147483648");
    row("U32 max", D::U32, "ffffffff", 0, "4294967295");
    row("I64 min", D::I64, "0000000000000080", 0, "-9223372036854775808");
    row("I64 2^53+1 exact", D::I64, "0100000000002000", 0, "9007199254740993");
    row("U64 max", D::U64, "ffffffffffffffff", 0, "18446744073709551615");
    row("F32 one and a half", D::F32, "0000c03f", 0, "1.5");
    row("F32 tenth shortest", D::F32, "cdcccc3d", 0, "0.1");
    row("F32 max", D::F32, "ffff7f7f", 0, "3.4028235e+38");
    row("F32 min subnormal", D::F32, "01000000", 0, "1e-45");
    row("F32 -0", D::F32, "00000080", 0, "-0");
    row("F32 +0", D::F32, "00000000", 0, "0");
    row("F32 inf", D::F32, "0000807f", 0, "inf");
    row("F32 -inf", D::F32, "000080ff", 0, "-inf");
    row("F32 nan", D::F32, "0000c07f", 0, "nan");
    row("F32 negative nan", D::F32, "ffffffff", 0, "nan");
    row("F64 tenth", D::F64, "9a9999999999b93f", 0, "0.1");
    row("F64 large", D::F64, "9c7500883ce4377e", 0, "1e+300");
    row("F64 signalling nan", D::F64, "010000000000f07f", 0, "nan");
    row("F16 third", D::F16, "5535", 0, "0.333251953125");
    row("F16 max", D::F16, "ff7b", 0, "65504");
    row("F16 min subnormal", D::F16, "0100", 0, "5.960464477539063e-08");
    row("F16 -inf", D::F16, "00fc", 0, "-inf");
    row("BF16 one", D::BF16, "803f", 0, "1");
    row("F8_E4M3 max", D::F8_E4M3, "7e", 0, "448");
    row("F8_E4M3 nan", D::F8_E4M3, "7f", 0, "nan");
    row("F8_E4M3 negative nan", D::F8_E4M3, "ff", 0, "nan");
    row("F8_E4M3 -0", D::F8_E4M3, "80", 0, "-0");
    row("F8_E5M2 inf", D::F8_E5M2, "7c", 0, "inf");
    row("F8_E5M2 -inf", D::F8_E5M2, "fc", 0, "-inf");
    row("F8_E4M3FNUZ nan", D::F8_E4M3FNUZ, "80", 0, "nan");
    row("F8_E8M0 min", D::F8_E8M0, "00", 0, "5.877471754111438e-39");
    row("F8_E8M0 one", D::F8_E8M0, "7f", 0, "1");
    row("F4 low nibble", D::F4, "f7", 0, "6");
    row("F4 high nibble", D::F4, "f7", 1, "-6");
    row("F6_E3M2 straddling", D::F6_E3M2, "ccf783", 1, "28");
    row("F6_E3M2 last of group", D::F6_E3M2, "ccf783", 3, "-0");
    row("C64 positive imaginary", D::C64, "0000c03f00000040", 0, "1.5+2i");
    row("C64 negative imaginary", D::C64, "0000c03f000000c0", 0, "1.5-2i");
    row("C64 signed zeros", D::C64, "0000008000000080", 0, "-0-0i");
    row("C64 tenth", D::C64, "cdcccc3dcdcccc3d", 0, "0.1+0.1i");
    row("C64 nan imaginary", D::C64, "0000803fffffffff", 0, "1+nani");
    row("C64 infinite imaginary", D::C64, "00000000000080ff", 0, "0-infi");
}

void tst_DType::format()
{
    QFETCH(DType, dtype);
    QFETCH(QByteArray, bytes);
    QFETCH(quint64, index);
    QFETCH(QByteArray, text);

    QCOMPARE(QByteArray::fromStdString(formatElement(dtype, asBytes(bytes), index)), text);
}

QTEST_GUILESS_MAIN(tst_DType)
#include "tst_dtype.moc"
