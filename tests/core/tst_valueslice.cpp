// Reading values: every dtype's special codes decoded against literal values, strided and
// rectangular reads with their bounds, the slice-spec parser (valid specs against literal index
// lists, malformed ones against their messages) and every plane of a 4-D tensor against index
// arithmetic written out here.
#include "core/values/slicespec.h"
#include "core/values/stridedview.h"
#include "core/values/valuereader.h"
#include "tests/support/valuedata.h"

#include <QTest>

#include <cmath>
#include <cstring>
#include <limits>
#include <vector>

using namespace Qt::StringLiterals;
using namespace stb;

Q_DECLARE_METATYPE(stb::DType)

namespace {

constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();
constexpr double kInf = std::numeric_limits<double>::infinity();

bool sameValue(double a, double b)
{
    if (std::isnan(a) || std::isnan(b))
        return std::isnan(a) && std::isnan(b);
    return a == b && std::signbit(a) == std::signbit(b);
}

} // namespace

class tst_ValueSlice : public QObject {
    Q_OBJECT

private slots:
    void decodeEveryDType_data();
    void decodeEveryDType();
    void stridedReadsStayInBounds();
    void sliceSpec_data();
    void sliceSpec();
    void sliceSpecErrors_data();
    void sliceSpecErrors();
    void everyPlaneOf4D();
    void unravel();
};

void tst_ValueSlice::decodeEveryDType_data()
{
    QTest::addColumn<DType>("dtype");
    QTest::addColumn<std::vector<std::uint64_t>>("codes");
    QTest::addColumn<std::vector<double>>("expected");
    const auto row = [](const char *name, DType d, std::vector<std::uint64_t> c, std::vector<double> e) {
        QTest::newRow(name) << d << c << e;
    };
    row("BOOL", DType::BOOL, { 0, 1, 7 }, { 0, 1, 1 }); // any non-zero byte is true
    row("U8", DType::U8, { 0, 255 }, { 0, 255 });
    row("I8", DType::I8, { 0x80, 0x7F, 0xFF }, { -128, 127, -1 });
    row("I16", DType::I16, { 0x8000, 0xFFFF }, { -32768, -1 });
    row("U16", DType::U16, { 0xFFFF }, { 65535 });
    row("I32", DType::I32, { 0x80000000u }, { -2147483648.0 });
    row("U32", DType::U32, { 0xFFFFFFFFu }, { 4294967295.0 });
    row("I64", DType::I64, { 0x8000000000000000u }, { -9223372036854775808.0 });
    row("U64", DType::U64, { ~std::uint64_t(0) }, { 18446744073709551616.0 });
    row("F16", DType::F16, { 0x0000, 0x8000, 0x7C00, 0xFC00, 0x7E00, 0x0001, 0x3C00, 0x7BFF },
        { 0.0, -0.0, kInf, -kInf, kNaN, std::ldexp(1.0, -24), 1.0, 65504.0 });
    row("BF16", DType::BF16, { 0x0000, 0x8000, 0x7F80, 0xFF80, 0x7FC0, 0x0001, 0x3F80 },
        { 0.0, -0.0, kInf, -kInf, kNaN, std::ldexp(1.0, -133), 1.0 });
    row("F32", DType::F32,
        { 0x00000000, 0x80000000, 0x7F800000, 0xFF800000, 0x7FC00000, 0x00000001, 0x3F800000 },
        { 0.0, -0.0, kInf, -kInf, kNaN, std::ldexp(1.0, -149), 1.0 });
    row("F64", DType::F64,
        { 0x8000000000000000u, 0x7FF0000000000000u, 0xFFF0000000000000u, 0x7FF8000000000000u, 1 },
        { -0.0, kInf, -kInf, kNaN, std::ldexp(1.0, -1074) });
    row("C64", DType::C64, { 0x40000000'3F800000u, 0x00000000'7F800000u }, { 1.0, kInf }); // real parts
    row("F8_E4M3", DType::F8_E4M3, { 0x00, 0x80, 0x7F, 0xFF, 0x01, 0x7E, 0x38 },
        { 0.0, -0.0, kNaN, kNaN, std::ldexp(1.0, -9), 448.0, 1.0 });
    row("F8_E5M2", DType::F8_E5M2, { 0x80, 0x7C, 0xFC, 0x7E, 0x01, 0x3C },
        { -0.0, kInf, -kInf, kNaN, std::ldexp(1.0, -16), 1.0 });
    row("F8_E8M0", DType::F8_E8M0, { 0xFF, 0x7F, 0x00, 0xFE },
        { kNaN, 1.0, std::ldexp(1.0, -127), std::ldexp(1.0, 127) });
    row("F8_E4M3FNUZ", DType::F8_E4M3FNUZ, { 0x80, 0x00, 0x01, 0x7F },
        { kNaN, 0.0, std::ldexp(1.0, -10), 240.0 });
    row("F8_E5M2FNUZ", DType::F8_E5M2FNUZ, { 0x80, 0x01, 0x7F }, { kNaN, std::ldexp(1.0, -17), 57344.0 });
    row("F4", DType::F4, { 0x0, 0x8, 0x1, 0x7, 0xF, 0x2 }, { 0.0, -0.0, 0.5, 6.0, -6.0, 1.0 });
    row("F6_E2M3", DType::F6_E2M3, { 0x00, 0x20, 0x01, 0x1F, 0x3F, 0x08 },
        { 0.0, -0.0, 0.125, 7.5, -7.5, 1.0 });
    row("F6_E3M2", DType::F6_E3M2, { 0x00, 0x20, 0x01, 0x1F, 0x3F, 0x0C },
        { 0.0, -0.0, 0.0625, 28.0, -28.0, 1.0 });
}

void tst_ValueSlice::decodeEveryDType()
{
    QFETCH(DType, dtype);
    QFETCH(std::vector<std::uint64_t>, codes);
    QFETCH(std::vector<double>, expected);
    // Each code at several positions so that sub-byte elements straddle bytes.
    std::vector<std::uint64_t> repeated;
    for (int k = 0; k < 5; ++k)
        repeated.insert(repeated.end(), codes.begin(), codes.end());
    const std::vector<std::byte> bytes = test::packCodes(dtype, repeated);
    QCOMPARE(elementsIn(dtype, bytes) >= repeated.size(), true);
    std::vector<double> values(repeated.size());
    QVERIFY(readStrided(dtype, bytes, 0, 1, repeated.size(), values.data()));
    for (std::size_t i = 0; i < repeated.size(); ++i) {
        if (!sameValue(values[i], expected[i % codes.size()]))
            QFAIL(qPrintable(u"element %1 (code 0x%2): got %3, expected %4"_s.arg(i)
                                 .arg(repeated[i], 0, 16)
                                 .arg(values[i])
                                 .arg(expected[i % codes.size()])));
    }
    // A strided read picks the same values one code-list apart.
    std::vector<double> strided(5);
    QVERIFY(readStrided(dtype, bytes, codes.size() - 1, codes.size(), 5, strided.data()));
    for (double v : strided)
        QVERIFY(sameValue(v, expected.back()));
}

void tst_ValueSlice::stridedReadsStayInBounds()
{
    const std::vector<std::byte> bytes = test::packCodes(DType::F32, { 0, 0, 0, 0, 0, 0 }); // 6 floats
    double out[8];
    QVERIFY(readStrided(DType::F32, bytes, 0, 5, 2, out)); // elements 0 and 5
    QVERIFY(!readStrided(DType::F32, bytes, 0, 6, 2, out)); // element 6 is past the end
    QVERIFY(!readStrided(DType::F32, bytes, 6, 1, 1, out));
    QVERIFY(!readStrided(DType::F32, std::span(bytes).first(23), 5, 1, 1, out)); // clipped tensor
    QVERIFY(readStrided(DType::F32, bytes, 99, 1, 0, out)); // nothing to read

    const std::vector<std::uint64_t> shape { 2, 3 };
    const StridedView view = wholeView(shape);
    QVERIFY(readRect(DType::F32, bytes, view, 1, 1, 0, 3, out));
    QVERIFY(!readRect(DType::F32, bytes, view, 1, 2, 0, 3, out)); // row 2 does not exist
    QVERIFY(!readRect(DType::F32, bytes, view, 0, 1, 2, 2, out)); // column 3 does not exist
    const std::vector<std::uint64_t> cube { 1, 2, 3 };
    QVERIFY(!readRect(DType::F32, bytes, wholeView(cube), 0, 1, 0, 1, out)); // three axes
}

void tst_ValueSlice::sliceSpec_data()
{
    QTest::addColumn<QString>("spec");
    QTest::addColumn<std::vector<std::uint64_t>>("shape");
    // One list of source indices per kept axis, and the index fixed on every dropped axis
    // (written as a one-element list with a leading marker value of the axis number + 1000).
    QTest::addColumn<std::vector<std::vector<std::uint64_t>>>("axes");
    QTest::addColumn<std::vector<std::uint64_t>>("fixed"); // one entry per source axis; ~0 = kept

    const std::uint64_t k = ~std::uint64_t(0);
    using Lists = std::vector<std::vector<std::uint64_t>>;
    using Dims = std::vector<std::uint64_t>;
    QTest::newRow("empty is whole") << u""_s << Dims { 2, 3 } << Lists { { 0, 1 }, { 0, 1, 2 } }
                                    << Dims { k, k };
    QTest::newRow("issue example") << u"0,:,5:10"_s << Dims { 2, 3, 12 }
                                   << Lists { { 0, 1, 2 }, { 5, 6, 7, 8, 9 } } << Dims { 0, k, k };
    QTest::newRow("negative index") << u"-1"_s << Dims { 4, 2 } << Lists { { 0, 1 } } << Dims { 3, k };
    QTest::newRow("step") << u"::2"_s << Dims { 5 } << Lists { { 0, 2, 4 } } << Dims { k };
    QTest::newRow("start step") << u"1::3"_s << Dims { 8 } << Lists { { 1, 4, 7 } } << Dims { k };
    QTest::newRow("negative bounds") << u"-3:-1"_s << Dims { 5 } << Lists { { 2, 3 } } << Dims { k };
    QTest::newRow("clamped") << u"-99:99"_s << Dims { 3 } << Lists { { 0, 1, 2 } } << Dims { k };
    QTest::newRow("empty range") << u"4:2"_s << Dims { 5 } << Lists { {} } << Dims { k };
    QTest::newRow("ellipsis first") << u"...,1"_s << Dims { 2, 2, 3 } << Lists { { 0, 1 }, { 0, 1 } }
                                    << Dims { k, k, 1 };
    QTest::newRow("ellipsis middle") << u"1, ..., 2"_s << Dims { 2, 2, 2, 3 } << Lists { { 0, 1 }, { 0, 1 } }
                                     << Dims { 1, k, k, 2 };
    QTest::newRow("ellipsis for none") << u"1,...,0"_s << Dims { 2, 3 } << Lists {} << Dims { 1, 0 };
    QTest::newRow("all fixed is a scalar") << u"1,2"_s << Dims { 2, 3 } << Lists {} << Dims { 1, 2 };
    QTest::newRow("scalar tensor") << u"..."_s << Dims {} << Lists {} << Dims {};
    QTest::newRow("spaces") << u" 1 : 3 , 0 "_s << Dims { 4, 2 } << Lists { { 1, 2 } } << Dims { k, 0 };
    QTest::newRow("plus sign") << u"+1"_s << Dims { 3 } << Lists {} << Dims { 1 };
}

void tst_ValueSlice::sliceSpec()
{
    QFETCH(QString, spec);
    QFETCH(std::vector<std::uint64_t>, shape);
    QFETCH(std::vector<std::vector<std::uint64_t>>, axes);
    QFETCH(std::vector<std::uint64_t>, fixed);
    std::string error;
    const auto view = parseSliceSpec(spec.toStdString(), shape, error);
    QVERIFY2(view, error.c_str());
    QCOMPARE(view->axes.size(), axes.size());
    for (std::size_t a = 0; a < axes.size(); ++a)
        QCOMPARE(view->axes[a].count, axes[a].size());
    // Every element of the view against the source index built from the literal lists.
    const std::uint64_t count = view->elementCount();
    for (std::uint64_t flat = 0; flat < count; ++flat) {
        std::uint64_t rest = flat;
        std::vector<std::uint64_t> viewIndex(axes.size());
        for (std::size_t a = axes.size(); a-- > 0;) {
            viewIndex[a] = rest % axes[a].size();
            rest /= axes[a].size();
        }
        std::uint64_t expected = 0;
        std::size_t kept = 0;
        for (std::size_t d = 0; d < shape.size(); ++d) {
            std::uint64_t i = fixed[d];
            if (i == ~std::uint64_t(0)) {
                i = axes[kept][viewIndex[kept]];
                ++kept;
            }
            expected = expected * shape[d] + i;
        }
        QCOMPARE(view->sourceIndexOfFlat(flat), expected);
        QCOMPARE(view->sourceIndex(viewIndex), expected);
    }
}

void tst_ValueSlice::sliceSpecErrors_data()
{
    QTest::addColumn<QString>("spec");
    QTest::addColumn<QString>("message");
    QTest::newRow("letters") << u"a"_s << u"character 1: expected an index"_s;
    QTest::newRow("three colons") << u"1:2:3:4"_s << u"at most two ':'"_s;
    QTest::newRow("zero step") << u"::0"_s << u"step cannot be zero"_s;
    QTest::newRow("negative step") << u"::-1"_s << u"negative steps"_s;
    QTest::newRow("index out of range") << u"0,7"_s << u"index 7 is out of range for axis 1 of size 3"_s;
    QTest::newRow("negative out of range") << u"-3"_s << u"index -3 is out of range for axis 0 of size 2"_s;
    QTest::newRow("too many axes") << u"0,0,0"_s << u"names 3 axes but the tensor has 2"_s;
    QTest::newRow("two ellipses") << u"...,..."_s << u"at most one '...'"_s;
    QTest::newRow("empty entry") << u"0,,1"_s << u"character 3"_s;
    QTest::newRow("trailing comma") << u"0,"_s << u"character 3"_s;
    QTest::newRow("huge number") << u"99999999999999999999999"_s << u"number too large"_s;
    QTest::newRow("sign alone") << u"-"_s << u"expected a digit"_s;
    QTest::newRow("junk after") << u"0 1"_s << u"expected ',' or the end"_s;
    QTest::newRow("too long") << QString(2000, u' ') << u"longer than 1024"_s;
}

void tst_ValueSlice::sliceSpecErrors()
{
    QFETCH(QString, spec);
    QFETCH(QString, message);
    const std::vector<std::uint64_t> shape { 2, 3 };
    std::string error;
    QVERIFY(!parseSliceSpec(spec.toStdString(), shape, error));
    QVERIFY2(QString::fromStdString(error).contains(message), error.c_str());
}

void tst_ValueSlice::everyPlaneOf4D()
{
    // Values are the flat index, so a read value names the element it came from.
    const std::vector<std::uint64_t> shape { 3, 4, 5, 6 };
    std::vector<std::uint64_t> codes(3 * 4 * 5 * 6);
    for (std::size_t i = 0; i < codes.size(); ++i)
        codes[i] = i;
    const std::vector<std::byte> bytes = test::packCodes(DType::I32, codes);
    const auto flatOf
        = [&](const std::uint64_t(&idx)[4]) { return ((idx[0] * 4 + idx[1]) * 5 + idx[2]) * 6 + idx[3]; };
    int planes = 0;
    for (std::size_t rowAxis = 0; rowAxis < 4; ++rowAxis) {
        for (std::size_t colAxis = 0; colAxis < 4; ++colAxis) {
            if (rowAxis == colAxis)
                continue;
            // Every setting of the two fixed axes.
            for (std::uint64_t setting = 0; setting < 3 * 4 * 5 * 6; ++setting) {
                std::uint64_t fixed[4] = { setting % 3, setting / 3 % 4, setting / 12 % 5, setting / 60 % 6 };
                if (fixed[rowAxis] != 0 || fixed[colAxis] != 0)
                    continue; // one setting per combination of the fixed axes
                std::string error;
                const auto view = planeView(shape, rowAxis, colAxis, fixed, error);
                QVERIFY2(view, error.c_str());
                const std::uint64_t rows = shape[rowAxis], cols = shape[colAxis];
                std::vector<double> out(rows * cols);
                QVERIFY(readRect(DType::I32, bytes, *view, 0, rows, 0, cols, out.data()));
                for (std::uint64_t r = 0; r < rows; ++r) {
                    for (std::uint64_t c = 0; c < cols; ++c) {
                        std::uint64_t idx[4] = { fixed[0], fixed[1], fixed[2], fixed[3] };
                        idx[rowAxis] = r;
                        idx[colAxis] = c;
                        QCOMPARE(out[r * cols + c], double(flatOf(idx)));
                    }
                }
                // A sub-rectangle reads the same cells.
                double cell = 0;
                QVERIFY(readRect(DType::I32, bytes, *view, rows - 1, 1, cols - 1, 1, &cell));
                QCOMPARE(cell, out.back());
                ++planes;
            }
        }
    }
    QCOMPARE(planes, (2 * (5 * 6 + 4 * 6 + 4 * 5 + 3 * 6 + 3 * 5 + 3 * 4)));
    std::string error;
    const std::uint64_t bad[4] = { 3, 0, 0, 0 };
    QVERIFY(!planeView(shape, 1, 2, bad, error));
    QVERIFY(QString::fromStdString(error).contains(u"index 3 is out of range for axis 0 of size 3"_s));
    QVERIFY(!planeView(shape, 1, 1, bad, error));
    QVERIFY(!planeView(shape, 1, 4, bad, error));
}

void tst_ValueSlice::unravel()
{
    const std::vector<std::uint64_t> shape { 3, 4, 5 };
    QCOMPARE(unravelIndex(0, shape), (std::vector<std::uint64_t> { 0, 0, 0 }));
    QCOMPARE(unravelIndex(59, shape), (std::vector<std::uint64_t> { 2, 3, 4 }));
    QCOMPARE(unravelIndex(27, shape), (std::vector<std::uint64_t> { 1, 1, 2 }));
    QCOMPARE(unravelIndex(0, std::vector<std::uint64_t> {}), (std::vector<std::uint64_t> {}));
}

QTEST_GUILESS_MAIN(tst_ValueSlice)
#include "tst_valueslice.moc"
