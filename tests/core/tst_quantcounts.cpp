// Statistics of dequantized values by code counts (Dequantizer::countStorage,
// analyzeQuantizedCodes) against the straightforward way: every element dequantized, then the
// F32 statistics (analyzeTensor) over them. Each scheme, several group sizes, partial last
// groups, and scales poisoned to +Inf, NaN and 0 (so values are NaN, ±Inf and zeros).
#include "core/io/checkpoint.h"
#include "core/quant/dequantizer.h"
#include "core/quant/quantconfig.h"
#include "core/quant/quantanalyzer.h"
#include "core/quant/quantview.h"
#include "core/stats/kernels/avx512.h"
#include "core/stats/kernels/valuescan.h"
#include "core/stats/tensoranalyzer.h"
#include "tests/support/quantfixtures.h"
#include "tests/support/statscompare.h"

#include <QTemporaryDir>
#include <QTest>

#include <algorithm>
#include <bit>
#include <cmath>
#include <cstring>
#include <functional>
#include <map>
#include <utility>

using namespace stb;
using namespace stb::test;

using Make = std::function<QuantFixture()>;
Q_DECLARE_METATYPE(Make)

namespace {

// Sets a scale companion's first elements to +Inf, NaN and 0 (an 8-bit scale code to 255, E8M0's
// NaN), so that the weight's values include NaN, ±Inf and zeros.
void poisonScales(QuantFixture &f)
{
    for (std::size_t k = 1; k < f.specs.size(); ++k) {
        const std::string &name = f.specs[k].name;
        const bool scale = name.find("scale") != std::string::npos || name.find("absmax") != std::string::npos
            || name.find("SCB") != std::string::npos;
        if (!scale || name.find("input_scale") != std::string::npos || name.find("quant_map") != std::string::npos)
            continue;
        std::vector<std::byte> &d = f.data[k];
        switch (f.specs[k].dtype) {
        case DType::F32: {
            const float poison[3] = { INFINITY, NAN, 0.0f };
            std::memcpy(d.data(), poison, std::min<std::size_t>(d.size(), sizeof poison));
            break;
        }
        case DType::F16: {
            const std::uint16_t poison[3] = { 0x7C00, 0x7E00, 0x0000 };
            std::memcpy(d.data(), poison, std::min<std::size_t>(d.size(), sizeof poison));
            break;
        }
        case DType::U8:
            d[0] = std::byte { 255 };
            break;
        default:
            break;
        }
    }
}

// A (value bits, count) multiset; NaN as one key whatever its payload.
using Multiset = std::map<std::uint32_t, std::uint64_t>;
std::uint32_t keyOf(float v)
{
    return std::isnan(v) ? 0x7FC00000u : std::bit_cast<std::uint32_t>(v);
}

class CollectSink final : public CodeCountSink {
public:
    void add(const float *values, const std::uint32_t *counts, std::size_t n) override
    {
        for (std::size_t k = 0; k < n; ++k) {
            if (counts[k])
                set[keyOf(values[k])] += counts[k];
        }
    }
    Multiset set;
};

bool sameDouble(double a, double b)
{
    return (std::isnan(a) && std::isnan(b)) || a == b;
}

} // namespace

class tst_QuantCounts : public QObject {
    Q_OBJECT

private slots:
    void initTestCase() { QVERIFY(m_dir.isValid()); }
    void countsEqualValues_data();
    void countsEqualValues();

private:
    QTemporaryDir m_dir;
};

void tst_QuantCounts::countsEqualValues_data()
{
    QTest::addColumn<Make>("make");
    QTest::addColumn<bool>("poison");
    QTest::addColumn<bool>("counted"); // Dequantizer::countsCodes()
    QTest::addColumn<int>("block"); // config.json's weight_block_size, or 0

    struct Row {
        const char *tag;
        Make make;
        int block = 0;
    };
    const std::vector<Row> rows = {
        { "fp8-block 128", [] { return fp8Block("l.b", 200, 300); } },
        { "fp8-block 64", [] { return fp8Block("l.b", 130, 260, 64); }, 64 },
        { "fp8-block 16", [] { return fp8Block("l.b", 37, 75, 16); }, 16 },
        { "fp8-tensor", [] { return fp8Scaled("l.t", 64, 96, false); } },
        { "fp8-channel", [] { return fp8Scaled("l.c", 64, 96, true); } },
        { "mxfp4", [] { return mxfp4("l.experts.gate_up_proj", 48, 6); } },
        { "mxfp4 one group", [] { return mxfp4("l.experts.down_proj", 7, 1); } },
        { "gptq 4-bit g64", [] { return gptq("l.q", 64, 256, 4, 64); } },
        { "gptq 4-bit g32", [] { return gptq("l.q", 96, 128, 4, 32); } },
        { "gptq 4-bit g128 partial", [] { return gptq("l.q", 32, 320, 4, 128); } },
        { "gptq_v2 2-bit g32", [] { return gptq("l.q", 32, 128, 2, 32, true); } },
        { "gptq 8-bit g32", [] { return gptq("l.q", 32, 128, 8, 32); } },
        { "awq g64", [] { return awq("l.a", 64, 256, 64); } },
        { "awq g32", [] { return awq("l.a", 128, 96, 32); } },
        { "bnb-nf4", [] { return bnb4("l.n", 40, 96, true, false); } },
        { "bnb-nf4 nested", [] { return bnb4("l.n", 128, 160, true, true); } },
        { "bnb-fp4 partial block", [] { return bnb4("l.f", 10, 100, false, false); } },
        { "bnb-int8", [] { return bnbInt8("l.i", 48, 80); } },
        { "pack-quantized g32", [] { return packQuantized("l.p", 48, 128, 32); } },
        { "pack-quantized g128 partial", [] { return packQuantized("l.p", 16, 200, 128); } },
        { "pack-quantized 8-bit", [] { return packQuantized("l.p", 16, 64, 64, 8); } },
        { "pack-quantized zero points",
            [] { return withZeroPoints(packQuantized("l.p", 20, 128, 32), "l.p", 20, 4, 4); } },
    };
    for (const Row &row : rows) {
        for (bool poison : { false, true })
            QTest::newRow(qPrintable(QStringLiteral("%1%2").arg(QLatin1String(row.tag), poison ? u" poisoned" : u"")))
                << row.make << poison << true << row.block;
    }
    // Layouts counting leaves to the decoded values: 3-bit codes straddle words; act-order
    // groups jump between inputs.
    QTest::newRow("gptq 3-bit") << Make([] { return gptq("l.q", 64, 256, 3, 64); }) << false << false << 0;
    QTest::newRow("gptq act-order") << Make([] { return gptq("l.q", 64, 256, 4, 64, false, true); }) << false
                                    << false << 0;
}

void tst_QuantCounts::countsEqualValues()
{
    QFETCH(Make, make);
    QFETCH(bool, poison);
    QFETCH(bool, counted);
    QFETCH(int, block);

    QuantFixture fixture = make();
    if (poison)
        poisonScales(fixture);
    std::string error;
    const std::string path
        = m_dir.filePath(QStringLiteral("%1.safetensors").arg(QLatin1String(QTest::currentDataTag()))).toStdString();
    QVERIFY2(writeFixtures(path, { fixture }, error), error.c_str());
    const auto checkpoint = Checkpoint::open(path, error);
    QVERIFY2(checkpoint, error.c_str());
    std::optional<QuantConfig> config;
    if (block) {
        const std::string text = R"({"quantization_config": {"quant_method": "fp8", "weight_block_size": [)"
            + std::to_string(block) + ", " + std::to_string(block) + "]}}";
        config = parseQuantConfig(text, error);
        QVERIFY2(config, error.c_str());
    }
    const QuantView view = QuantView::build(*checkpoint, config ? &*config : nullptr);
    QVERIFY(view.warnings().empty());
    QCOMPARE(view.weights().size(), std::size_t(1));
    const auto dq = Dequantizer::make(*checkpoint, view.weights().front(), error);
    QVERIFY2(dq, error.c_str());
    QCOMPARE(dq->countsCodes(), counted);
    // Without a histogram the AVX-512 kernels take the decoded float codes (FP8, MXFP4,
    // bitsandbytes) and pack-quantized 4-bit blocks faster than counting them, and the AVX2 ones
    // all float codes but bitsandbytes' 4-bit blocks; GPTQ in whole groups is summed as byte
    // groups (4-bit nibbles split into bytes) by every family; other integer codes with zero
    // points stay counted, and so does everything else when only the baseline x86-64 bodies run.
    {
        const bool was512 = kernels::avx512::enabled(), was2 = kernels::avx2::enabled();
        const QuantScheme scheme = view.weights().front().scheme;
        const bool integerCodes = scheme == QuantScheme::Gptq || scheme == QuantScheme::Awq
            || scheme == QuantScheme::PackQuantized;
        const bool fourBitBlocks = scheme == QuantScheme::BnbNf4 || scheme == QuantScheme::BnbFp4;
        const bool gptqGroups = scheme == QuantScheme::Gptq && dq->byteGroups();
        kernels::avx512::setEnabled(false);
        kernels::avx2::setEnabled(false);
        QCOMPARE(dq->countingPaysWithoutHistogram(), dq->countingPays() && !gptqGroups);
        if (kernels::avx2::supported()) {
            kernels::avx2::setEnabled(true);
            QCOMPARE(dq->countingPaysWithoutHistogram(),
                dq->countingPays() && (integerCodes || fourBitBlocks) && !gptqGroups);
        }
        if (kernels::avx512::supported()) {
            // pack-quantized 4-bit in whole groups decodes as blocks of nibbles, faster
            const QuantizedWeight &w = view.weights().front();
            const bool nibbleBlocks
                = scheme == QuantScheme::PackQuantized && w.bits == 4 && dq->columns() % w.groupSize == 0;
            kernels::avx512::setEnabled(true);
            QCOMPARE(dq->countingPaysWithoutHistogram(),
                dq->countingPays() && integerCodes && !nibbleBlocks && !gptqGroups);
        }
        kernels::avx512::setEnabled(was512);
        kernels::avx2::setEnabled(was2);
    }

    // The straightforward way: every element dequantized, then the F32 statistics.
    std::vector<float> values(dq->elements());
    QVERIFY(dq->decodeGuarded(0, values.size(), values.data()));
    Multiset decoded;
    std::uint64_t nonFinite = 0;
    for (float v : values) {
        ++decoded[keyOf(v)];
        nonFinite += !std::isfinite(v);
    }
    if (poison)
        QVERIFY(nonFinite > 0);
    // Storage order (the decoding analyzer's), in odd pieces, with each kernel family: the same
    // multiset, bit for bit.
    for (int family = 0; family < 3; ++family) {
        kernels::avx512::setEnabled(family == 0);
        kernels::avx2::setEnabled(family == 1);
        std::vector<float> storage(values.size());
        DequantScratch scratch = dq->makeScratch();
        for (std::uint64_t at = 0; at < storage.size(); at += 37)
            QVERIFY(dq->decodeStorageGuarded(
                at, std::min<std::uint64_t>(37, storage.size() - at), storage.data() + at, scratch));
        Multiset stored;
        for (float v : storage)
            ++stored[keyOf(v)];
        QVERIFY2(stored == decoded, qPrintable(QStringLiteral("kernels %1").arg(family)));
    }
    kernels::avx512::setEnabled(true);
    kernels::avx2::setEnabled(true);
    if (!counted) {
        QVERIFY(!analyzeQuantizedCodes(*dq, AnalysisOptions { 16, 1, false }));
        return;
    }

    // The counts, in odd pieces with one scratch, are the decoded values' multiset.
    for (std::uint64_t piece : { std::uint64_t(37), std::uint64_t(1000), values.size() }) {
        CollectSink sink;
        DequantScratch scratch = dq->makeScratch();
        for (std::uint64_t at = 0; at < values.size(); at += piece)
            dq->countStorage(at, std::min<std::uint64_t>(piece, values.size() - at), scratch, sink);
        QVERIFY2(sink.set == decoded, qPrintable(QStringLiteral("pieces of %1").arg(piece)));
        if (!dq->tapesCounts())
            continue;
        // Recorded on a tape a piece at a time, then replayed (reading no code): the same.
        std::vector<std::uint8_t> tape;
        std::vector<std::uint64_t> starts;
        CollectSink recorded, replayed;
        for (std::uint64_t at = 0; at < values.size(); at += piece) {
            const std::uint64_t n = std::min<std::uint64_t>(piece, values.size() - at);
            // Each piece's bytes and a guard after them, which recording must leave alone.
            starts.push_back(tape.size());
            tape.resize(tape.size() + dq->tapeBytes(n) + 64, 0xEE);
            dq->countStorage(at, n, scratch, recorded, CountTape { tape.data() + starts.back(), nullptr });
            QVERIFY(std::all_of(tape.end() - 64, tape.end(), [](std::uint8_t b) { return b == 0xEE; }));
        }
        for (std::uint64_t at = 0, k = 0; at < values.size(); at += piece, ++k)
            dq->countStorage(at, std::min<std::uint64_t>(piece, values.size() - at), scratch, replayed,
                CountTape { nullptr, tape.data() + starts[k] });
        QVERIFY2(recorded.set == decoded, qPrintable(QStringLiteral("recorded in pieces of %1").arg(piece)));
        QVERIFY2(replayed.set == decoded, qPrintable(QStringLiteral("replayed in pieces of %1").arg(piece)));
    }

    // Progress ends where the decoding analyzer's does (at its total when pass 2 runs), whether
    // pass 2 counts again or bins the pairs pass 1 kept.
    std::pair<std::uint64_t, std::uint64_t> last[2];
    for (int way = 0; way < 2; ++way) {
        const auto note = [&](std::uint64_t done, std::uint64_t total) { last[way] = { done, total }; };
        const AnalysisOptions options { 16, 2, false };
        QVERIFY(way ? analyzeQuantizedCodes(*dq, options, {}, note) : analyzeQuantizedValues(*dq, options, {}, note));
    }
    QCOMPARE(last[1], last[0]);

    // The statistics, on 1 and 3 threads, with the AVX-512 kernels, the AVX2 ones of the portable
    // family, and the portable bodies.
    for (int family = 0; family < 3; ++family) {
        kernels::avx512::setEnabled(family == 0);
        kernels::avx2::setEnabled(family == 1);
        for (unsigned bins : { 0u, 16u, 64u }) { // 0: no histogram (the CLI audit table)
            const auto reference = analyzeTensor(DType::F32,
                std::as_bytes(std::span<const float>(values)), values.size(), AnalysisOptions { bins, 1, false });
            QVERIFY(reference);
            for (unsigned threads : { 1u, 3u }) {
                const auto byCodes = analyzeQuantizedCodes(*dq, AnalysisOptions { bins, threads, false });
                QVERIFY(byCodes);
                const TensorStats &a = byCodes->stats, &e = reference->stats;
                compareCountsAndExtremes(a, e);
                if (QTest::currentTestFailed())
                    return;
                // Exactly, not only as QCOMPARE's fuzzy comparison of doubles sees it.
                QVERIFY(sameDouble(a.min, e.min));
                QVERIFY(sameDouble(a.max, e.max));
                QVERIFY(sameDouble(a.absMax, e.absMax));
                // Sums in another order: equal to within rounding.
                const double scale = std::isnan(e.absMax) ? 1.0 : e.absMax;
                QVERIFY2(std::isnan(e.mean) ? std::isnan(a.mean) : std::fabs(a.mean - e.mean) <= 1e-12 * scale,
                    qPrintable(QStringLiteral("mean %1 vs %2").arg(a.mean, 0, 'g', 17).arg(e.mean, 0, 'g', 17)));
                QVERIFY2(std::isnan(e.std) ? std::isnan(a.std) : std::fabs(a.std - e.std) <= 1e-12 * scale,
                    qPrintable(QStringLiteral("std %1 vs %2").arg(a.std, 0, 'g', 17).arg(e.std, 0, 'g', 17)));
                QCOMPARE(byCodes->histogram.lo, reference->histogram.lo);
                QCOMPARE(byCodes->histogram.hi, reference->histogram.hi);
                QCOMPARE(byCodes->histogram.counts, reference->histogram.counts);
                QCOMPARE(byCodes->outliers, reference->outliers);
                // And the decoding analyzer agrees with both.
                const auto byValues = analyzeQuantizedValues(*dq, AnalysisOptions { bins, threads, false });
                QVERIFY(byValues);
                QCOMPARE(byValues->histogram.counts, reference->histogram.counts);
                QCOMPARE(byValues->stats.zeros, e.zeros);
            }
        }
    }
    kernels::avx512::setEnabled(true);
    kernels::avx2::setEnabled(true);
}

QTEST_GUILESS_MAIN(tst_QuantCounts)
#include "tst_quantcounts.moc"
