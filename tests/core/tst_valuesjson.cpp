// `heatmap --json` streamed: writeHeatmapJson's text, whatever pieces it comes in, is byte for
// byte the one-line dump of the document the CLI used to build whole (rebuilt here from its
// definition as the oracle): same keys in the same order, same numbers, null for cells without a
// finite value, both infinities counted.
#include "core/values/heatmap.h"
#include "core/values/valuesjson.h"

#include "tests/support/valuedata.h"

#include <QTest>

#include <cmath>
#include <limits>
#include <random>
#include <vector>

using namespace stb;

namespace {

// The document as heatmapJson built it before it was streamed.
Json wholeDocument(const HeatmapSummary &summary)
{
    Json min = Json::array(), max = Json::array(), mean = Json::array(), nan = Json::array(),
         inf = Json::array();
    for (std::uint32_t i = 0; i < summary.cellRows; ++i) {
        Json minRow = Json::array(), maxRow = Json::array(), meanRow = Json::array(), nanRow = Json::array(),
             infRow = Json::array();
        for (std::uint32_t j = 0; j < summary.cellCols; ++j) {
            const std::size_t c = summary.cellIndex(i, j);
            const bool any = summary.finite(i, j) > 0;
            minRow.push_back(any ? Json(summary.min[c]) : Json(nullptr));
            maxRow.push_back(any ? Json(summary.max[c]) : Json(nullptr));
            meanRow.push_back(any ? Json(summary.mean[c]) : Json(nullptr));
            nanRow.push_back(summary.nanCount(c));
            infRow.push_back(summary.posInfCount(c) + summary.negInfCount(c));
        }
        min.push_back(std::move(minRow));
        max.push_back(std::move(maxRow));
        mean.push_back(std::move(meanRow));
        nan.push_back(std::move(nanRow));
        inf.push_back(std::move(infRow));
    }
    return Json { { "rows", summary.rows }, { "cols", summary.cols }, { "cell_rows", summary.cellRows },
        { "cell_cols", summary.cellCols }, { "min", std::move(min) }, { "max", std::move(max) },
        { "mean", std::move(mean) }, { "nan", std::move(nan) }, { "inf", std::move(inf) } };
}

} // namespace

class tst_ValuesJson : public QObject {
    Q_OBJECT

private slots:
    void heatmapStreamsTheWholeDocument_data();
    void heatmapStreamsTheWholeDocument();
    void heatmapStopsWhenRefused();
};

void tst_ValuesJson::heatmapStreamsTheWholeDocument_data()
{
    QTest::addColumn<std::vector<float>>("values");
    QTest::addColumn<std::vector<std::uint64_t>>("shape");
    QTest::addColumn<QSize>("cells"); // wanted: width columns, height rows
    QTest::addColumn<int>("pieces"); // at least

    const float nan = std::numeric_limits<float>::quiet_NaN(), inf = std::numeric_limits<float>::infinity();
    // 0.1f, -1e-30f and 3.4e38f print in many digits or in exponent form as doubles.
    QTest::newRow("specials") << std::vector<float> { 0.1f, -2, 3, nan, 5, inf, -7, 8, -inf, 10, -1e-30f,
        3.4e38f } << std::vector<std::uint64_t> { 3, 4 }
                              << QSize(3, 2) << 1;
    QTest::newRow("no finite value") << std::vector<float> { nan, inf, -inf, nan }
                                     << std::vector<std::uint64_t> { 2, 2 } << QSize(2, 2) << 1;
    QTest::newRow("one cell") << std::vector<float> { 1, 2, 4 } << std::vector<std::uint64_t> { 3 }
                              << QSize(1, 1) << 1;
    QTest::newRow("empty") << std::vector<float> {} << std::vector<std::uint64_t> { 0, 5 } << QSize(2, 2)
                           << 1;
    std::mt19937 rng(7);
    std::normal_distribution<float> normal(0.0f, 1e-3f);
    std::vector<float> noise(600 * 800);
    for (float &v : noise)
        v = normal(rng);
    noise[1234] = nan;
    // Four values a cell (means no float holds) and some 5 MB of text: many pieces.
    QTest::newRow("pieces") << noise << std::vector<std::uint64_t> { 600, 800 } << QSize(400, 300) << 10;
}

void tst_ValuesJson::heatmapStreamsTheWholeDocument()
{
    QFETCH(std::vector<float>, values);
    QFETCH(std::vector<std::uint64_t>, shape);
    QFETCH(QSize, cells);
    QFETCH(int, pieces);
    std::string error;
    const auto summary = summarizeHeatmap(DType::F32, test::floatBytes(values), wholeView(shape),
        std::uint32_t(cells.height()), std::uint32_t(cells.width()), error);
    QVERIFY2(summary, error.c_str());

    std::string streamed;
    int calls = 0;
    QVERIFY(writeHeatmapJson(*summary, [&](std::string_view piece) {
        streamed += piece;
        ++calls;
        return true;
    }));
    const std::string whole = jsonText(wholeDocument(*summary));
    QCOMPARE(streamed.size(), whole.size());
    QVERIFY(streamed == whole);
    QVERIFY2(calls >= pieces, std::to_string(calls).c_str());
}

void tst_ValuesJson::heatmapStopsWhenRefused()
{
    const std::vector<float> values(200 * 300, 0.25f);
    const std::vector<std::uint64_t> shape { 200, 300 };
    std::string error;
    const auto summary
        = summarizeHeatmap(DType::F32, test::floatBytes(values), wholeView(shape), 200, 300, error);
    QVERIFY(summary);
    int calls = 0;
    QVERIFY(!writeHeatmapJson(*summary, [&](std::string_view) { return ++calls < 2; }));
    QCOMPARE(calls, 2); // nothing more asked of a sink that refused
}

QTEST_GUILESS_MAIN(tst_ValuesJson)
#include "tst_valuesjson.moc"
