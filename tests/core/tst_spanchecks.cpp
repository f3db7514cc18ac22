// Every core entry point that takes an element count and a byte span checks that they agree
// (issue 15, item 18): a count of 2^61 with a 7-byte span must be refused, not allocated for.
#include "core/compare/diffhistogram.h"
#include "core/format/dtype.h"
#include "core/stats/tensoranalyzer.h"

#include <QTest>

#include <vector>

using namespace stb;

Q_DECLARE_METATYPE(stb::DType)

class tst_SpanChecks : public QObject {
    Q_OBJECT

private slots:
    void bytesForElements_data()
    {
        QTest::addColumn<DType>("dtype");
        QTest::addColumn<quint64>("elements");
        QTest::addColumn<bool>("fits");
        QTest::addColumn<quint64>("bytes");
        // As the reference's ValidationOverflow: the size in bits must fit in 64 bits.
        QTest::newRow("F32 2") << DType::F32 << quint64(2) << true << quint64(8);
        QTest::newRow("F32 2^58: 2^60 bytes") << DType::F32 << (quint64(1) << 58) << true << (quint64(1) << 60);
        QTest::newRow("F32 2^61: 2^66 bits overflow") << DType::F32 << (quint64(1) << 61) << false << quint64(0);
        QTest::newRow("U8 2^61-1") << DType::U8 << ((quint64(1) << 61) - 1) << true << ((quint64(1) << 61) - 1);
        QTest::newRow("U8 2^64-1: bits overflow") << DType::U8 << ~quint64(0) << false << quint64(0);
        QTest::newRow("F64 2^58: 2^64 bits overflow") << DType::F64 << (quint64(1) << 58) << false << quint64(0);
        QTest::newRow("F4 odd count: half a byte") << DType::F4 << quint64(3) << false << quint64(0);
        QTest::newRow("F4 2^61: 2^60 bytes") << DType::F4 << (quint64(1) << 61) << true << (quint64(1) << 60);
        QTest::newRow("F4 2^62: 2^64 bits overflow") << DType::F4 << (quint64(1) << 62) << false << quint64(0);
        QTest::newRow("zero") << DType::BF16 << quint64(0) << true << quint64(0);
    }
    void bytesForElements()
    {
        QFETCH(DType, dtype);
        QFETCH(quint64, elements);
        QFETCH(bool, fits);
        QFETCH(quint64, bytes);
        const auto result = stb::bytesForElements(dtype, elements);
        QCOMPARE(result.has_value(), fits);
        if (fits)
            QCOMPARE(*result, bytes);
    }

    // The fuzzer's finding: 2^61 F32 elements over 7 bytes.
    void countAndSpanDisagree_data()
    {
        QTest::addColumn<quint64>("elements");
        QTest::addColumn<int>("bytes");
        QTest::newRow("2^61 over 7 bytes") << (quint64(1) << 61) << 7;
        QTest::newRow("one too few") << quint64(3) << 8;
        QTest::newRow("one too many") << quint64(1) << 8;
        QTest::newRow("overflowing count") << (quint64(1) << 62) << 8;
    }
    void countAndSpanDisagree()
    {
        QFETCH(quint64, elements);
        QFETCH(int, bytes);
        const std::vector<std::byte> data(static_cast<std::size_t>(bytes));
        AnalysisOptions options;
        options.threads = 1;
        QVERIFY(!analyzeTensor(DType::F32, data, elements, options));
        QVERIFY(!tensorDigest(DType::F32, data, elements));
        const DiffSide bad{DType::F32, data, elements};
        const DiffSide good{DType::F32, std::span(data).first(4), 1};
        QVERIFY(!diffHistograms(bad, good, 8));
        QVERIFY(!diffHistograms(good, bad, 8));
        // The same entry points accept what agrees.
        QVERIFY(analyzeTensor(DType::F32, std::span(data).first(4), 1, options));
        QVERIFY(diffHistograms(good, good, 8));
    }
};

QTEST_GUILESS_MAIN(tst_SpanChecks)
#include "tst_spanchecks.moc"
