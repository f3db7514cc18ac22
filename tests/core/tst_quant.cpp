// Quantized checkpoints: recognition, totals and dequantized values of every scheme, against
// fixtures quantized by tests/support/quantfixtures (an independent reading of each layout).
#include "core/format/dtype.h"
#include "core/io/checkpoint.h"
#include "core/quant/dequantizer.h"
#include "core/quant/dequantruns.h"
#include "core/quant/quantanalyzer.h"
#include "core/quant/quantconfig.h"
#include "core/quant/quantview.h"
#include "core/stats/kernels/avx512.h"
#include "core/stats/kernels/valuescan.h"
#include "tests/support/quantfixtures.h"

#include <QTemporaryDir>
#include <QTest>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <functional>

using namespace stb;
using namespace stb::test;

using Make = std::function<QuantFixture()>;
Q_DECLARE_METATYPE(Make)

namespace {

// Statistics of the expected values, in double, to compare with the analyzer's.
struct Expected {
    double min = INFINITY, max = -INFINITY, mean = 0, std = 0;
};
Expected expectedStats(const std::vector<float> &v)
{
    Expected e;
    for (float x : v) {
        e.min = std::min(e.min, double(x));
        e.max = std::max(e.max, double(x));
        e.mean += x;
    }
    e.mean /= double(v.size());
    for (float x : v)
        e.std += (x - e.mean) * (x - e.mean);
    e.std = std::sqrt(e.std / double(v.size()));
    return e;
}

} // namespace

class tst_Quant : public QObject {
    Q_OBJECT

private slots:
    void initTestCase() { QVERIFY(m_dir.isValid()); }
    void scheme_data();
    void scheme();
    void mixedCheckpoint();
    void shardedFp8();
    void e4m3ByArithmetic();

private:
    std::shared_ptr<const Checkpoint> write(const QString &name, const std::vector<QuantFixture> &fixtures)
    {
        std::string error;
        const std::string path = m_dir.filePath(name).toStdString();
        if (!writeFixtures(path, fixtures, error))
            return nullptr;
        return Checkpoint::open(path, error);
    }

    QTemporaryDir m_dir;
};

void tst_Quant::scheme_data()
{
    QTest::addColumn<Make>("make");
    QTest::addColumn<QString>("scheme");
    QTest::addColumn<unsigned>("bits");
    QTest::addColumn<quint64>("group");
    // Largest |dequantized - original| allowed, as a share of the largest |original|: the
    // scheme's rounding error (half a step of its coarsest code).
    QTest::addColumn<double>("error");
    // config.json's text when the checkpoint format needs it (gptq_v2 looks like gptq).
    QTest::addColumn<QByteArray>("config");

    QTest::newRow("fp8-block") << Make([] { return fp8Block("l.fp8", 200, 300); }) << "fp8-block" << 8u
                               << quint64(128) << 0.04 << QByteArray();
    QTest::newRow("fp8-block compressed-tensors") // FP8_BLOCK: the block scales named weight_scale
        << Make([] { return fp8Block("l.ctb", 200, 300, 128, "weight_scale"); }) << "fp8-block" << 8u
        << quint64(128) << 0.04 << QByteArray();
    QTest::newRow("fp8-tensor") << Make([] { return fp8Scaled("l.t", 64, 96, false); }) << "fp8-tensor" << 8u
                                << quint64(0) << 0.04 << QByteArray();
    QTest::newRow("fp8-channel") << Make([] { return fp8Scaled("l.c", 64, 96, true); }) << "fp8-channel" << 8u
                                 << quint64(0) << 0.04 << QByteArray();
    QTest::newRow("mxfp4") << Make([] { return mxfp4("l.experts.gate_up_proj", 48, 6); }) << "mxfp4" << 4u
                           << quint64(32) << 0.26 << QByteArray();
    QTest::newRow("gptq 4-bit") << Make([] { return gptq("l.q", 64, 256, 4, 64); }) << "gptq" << 4u
                                << quint64(64) << 0.08 << QByteArray();
    QTest::newRow("gptq 8-bit") << Make([] { return gptq("l.q8", 32, 128, 8, 32); }) << "gptq" << 8u
                                << quint64(32) << 0.01 << QByteArray();
    // 2 bits as GPTQModel writes them (gptq_v2): with asymmetric groups a zero-point of 0 is common,
    // and the v1 format's stored zero - 1 cannot hold it (AutoGPTQ's packer ORs in -1).
    QTest::newRow("gptq_v2 2-bit")
        << Make([] { return gptq("l.q2", 32, 128, 2, 32, true); }) << "gptq" << 2u << quint64(32) << 0.35
        << QByteArray(R"({"quantization_config": {"quant_method": "gptq", "checkpoint_format": "gptq_v2"}})");
    QTest::newRow("gptq 3-bit") << Make([] { return gptq("l.q3", 64, 256, 3, 64); }) << "gptq" << 3u
                                << quint64(64) << 0.15 << QByteArray();
    QTest::newRow("gptq 3-bit act-order") << Make([] { return gptq("l.q3a", 96, 128, 3, 32, false, true); })
                                          << "gptq" << 3u << quint64(32) << 0.15 << QByteArray();
    QTest::newRow("gptq_v2 4-bit")
        << Make([] { return gptq("l.v2", 64, 128, 4, 32, true); }) << "gptq" << 4u << quint64(32) << 0.08
        << QByteArray(R"({"quantization_config": {"quant_method": "gptq", "checkpoint_format": "gptq_v2"}})");
    QTest::newRow("gptq act-order") << Make([] { return gptq("l.qa", 64, 256, 4, 64, false, true); })
                                    << "gptq" << 4u << quint64(64) << 0.08 << QByteArray();
    QTest::newRow("awq") << Make([] { return awq("l.a", 64, 256, 64); }) << "awq" << 4u << quint64(64) << 0.08
                         << QByteArray();
    QTest::newRow("bnb-nf4") << Make([] { return bnb4("l.n", 40, 96, true, false); }) << "bnb-nf4" << 4u
                             << quint64(64) << 0.13 << QByteArray();
    // FSDP-QLoRA's bnb_4bit_quant_storage: the packed bytes viewed as BF16.
    QTest::newRow("bnb-nf4 bf16 storage")
        << Make([] { return bnb4("l.nb", 40, 96, true, false, DType::BF16); }) << "bnb-nf4" << 4u
        << quint64(64) << 0.13 << QByteArray();
    QTest::newRow("bnb-nf4 nested") << Make([] { return bnb4("l.nn", 128, 160, true, true); }) << "bnb-nf4"
                                    << 4u << quint64(64) << 0.14 << QByteArray();
    QTest::newRow("bnb-fp4") << Make([] { return bnb4("l.f", 40, 96, false, false); }) << "bnb-fp4" << 4u
                             << quint64(64) << 0.17 << QByteArray();
    QTest::newRow("bnb-fp4 partial block") << Make([] { return bnb4("l.fp", 10, 100, false, false); })
                                           << "bnb-fp4" << 4u << quint64(64) << 0.3 << QByteArray();
    QTest::newRow("bnb-int8") << Make([] { return bnbInt8("l.i", 48, 80); }) << "bnb-int8" << 8u << quint64(0)
                              << 0.005 << QByteArray();
    QTest::newRow("pack-quantized") << Make([] { return packQuantized("l.p", 48, 128, 32); })
                                    << "pack-quantized" << 4u << quint64(32) << 0.08 << QByteArray();
    QTest::newRow("pack-quantized 8-bit") << Make([] { return packQuantized("l.p8", 16, 64, 64, 8); })
                                          << "pack-quantized" << 8u << quint64(0) << 0.005 << QByteArray();
}

void tst_Quant::scheme()
{
    QFETCH(Make, make);
    QFETCH(QString, scheme);
    QFETCH(unsigned, bits);
    QFETCH(quint64, group);
    QFETCH(double, error);
    QFETCH(QByteArray, config);

    const QuantFixture fixture = make();
    const QuantFixture norm = plainBf16("model.norm.weight", { 64 });
    const auto checkpoint = write(
        QStringLiteral("%1.safetensors").arg(QLatin1String(QTest::currentDataTag())), { fixture, norm });
    QVERIFY(checkpoint);
    std::string configError;
    const auto parsed = parseQuantConfig(config.toStdString(), configError);
    const QuantView view = QuantView::build(*checkpoint, parsed ? &*parsed : nullptr);

    // Recognition: one logical weight, the right scheme, shape and companions.
    QCOMPARE(view.warnings().size(), std::size_t(0));
    QCOMPARE(view.weights().size(), std::size_t(1));
    const QuantizedWeight &w = view.weights().front();
    QCOMPARE(QString::fromStdString(std::string(quantSchemeName(w.scheme))), scheme);
    QCOMPARE(w.name, fixture.weight);
    QCOMPARE(w.bits, bits);
    QCOMPARE(quint64(w.groupSize), group);
    QCOMPARE(w.logicalShape, fixture.shape);
    QCOMPARE(w.companions.size() + 1, fixture.specs.size());
    QCOMPARE(w.bytes, fixture.bytes);

    // Totals: logical elements plus the norm, companions excluded.
    QCOMPARE(view.effectiveParameters(), fixture.original.size() + 64);
    QCOMPARE(view.schemes().size(), std::size_t(1));
    QCOMPARE(view.schemes().front().parameters, quint64(fixture.original.size()));
    QCOMPARE(view.schemes().front().bitsPerWeight(),
        8.0 * double(fixture.bytes) / double(fixture.original.size()));
    QCOMPARE(*view.bitsPerWeight(), 8.0 * double(fixture.bytes + 128) / double(fixture.original.size() + 64));

    // Values: as the tool dequantizes them, and within the scheme's error of the originals.
    std::string reason;
    const auto dq = Dequantizer::make(*checkpoint, w, reason);
    QVERIFY2(dq, reason.c_str());
    QCOMPARE(dq->elements(), quint64(fixture.expected.size()));
    std::vector<float> values(fixture.expected.size());
    QVERIFY(dq->decodeGuarded(0, values.size(), values.data()));
    float amax = 0, worst = 0;
    for (float v : fixture.original)
        amax = std::max(amax, std::fabs(v));
    for (std::size_t e = 0; e < values.size(); ++e) {
        if (std::fabs(values[e] - fixture.expected[e]) > 1e-6f * std::fabs(fixture.expected[e]) + 1e-12f)
            QFAIL(qPrintable(QStringLiteral("element %1: %2, expected %3")
                                 .arg(e)
                                 .arg(values[e])
                                 .arg(fixture.expected[e])));
        worst = std::max(worst, std::fabs(values[e] - fixture.original[e]));
    }
    QVERIFY2(worst <= error * amax, qPrintable(QStringLiteral("worst error %1 of %2").arg(worst).arg(amax)));
    // A run starting mid-row decodes the same values.
    std::vector<float> part(37);
    QVERIFY(dq->decodeGuarded(fixture.expected.size() / 3, part.size(), part.data()));
    for (std::size_t k = 0; k < part.size(); ++k)
        QCOMPARE(part[k], values[fixture.expected.size() / 3 + k]);

    // Storage order: the same values as a multiset, bit for bit, decoded in odd pieces with one
    // scratch, with the AVX-512 kernels, the AVX2 ones and the portable bodies; and logical order
    // the same every way.
    const auto sortedBits = [](const std::vector<float> &v) {
        std::vector<std::uint32_t> bits(v.size());
        std::memcpy(bits.data(), v.data(), 4 * v.size());
        std::sort(bits.begin(), bits.end());
        return bits;
    };
    const auto logical = sortedBits(values);
    for (int family = 0; family < 3; ++family) {
        kernels::avx512::setEnabled(family == 0);
        kernels::avx2::setEnabled(family == 1);
        std::vector<float> storage(values.size()), again(values.size());
        DequantScratch scratch = dq->makeScratch();
        for (std::uint64_t at = 0; at < storage.size(); at += 37)
            QVERIFY(dq->decodeStorageGuarded(
                at, std::min<std::uint64_t>(37, storage.size() - at), storage.data() + at, scratch));
        QVERIFY(sortedBits(storage) == logical);
        QVERIFY(dq->decodeGuarded(0, again.size(), again.data()));
        QVERIFY(std::memcmp(again.data(), values.data(), 4 * values.size()) == 0);
    }
    kernels::avx512::setEnabled(true);
    kernels::avx2::setEnabled(true);

    // Statistics on the dequantized values, on 1 and 3 threads.
    const Expected e = expectedStats(fixture.expected);
    for (unsigned threads : { 1u, 3u }) {
        const auto analysis = analyzeQuantized(*dq, AnalysisOptions { 16, threads, false });
        QVERIFY(analysis);
        QCOMPARE(analysis->stats.count, quint64(values.size()));
        QCOMPARE(analysis->stats.min, e.min);
        QCOMPARE(analysis->stats.max, e.max);
        QVERIFY(std::fabs(analysis->stats.mean - e.mean) <= 1e-9 * amax);
        QVERIFY(std::fabs(analysis->stats.std - e.std) <= 1e-9 * amax);
        std::uint64_t binned = 0;
        for (auto c : analysis->histogram.counts)
            binned += c;
        QCOMPARE(binned, quint64(values.size()));
    }
}

void tst_Quant::mixedCheckpoint()
{
    const std::vector<QuantFixture> fixtures = { plainBf16("model.embed_tokens.weight", { 100, 32 }),
        gptq("model.layers.0.mlp.down_proj", 32, 64, 4, 32),
        gptq("model.layers.0.mlp.up_proj", 64, 32, 4, 32), fp8Block("model.layers.1.mlp.down_proj", 32, 64),
        plainBf16("model.layers.0.input_layernorm.weight", { 32 }),
        bnbInt8("model.layers.1.self_attn.o_proj", 32, 32) };
    const auto checkpoint = write(QStringLiteral("mixed.safetensors"), fixtures);
    QVERIFY(checkpoint);
    const QuantView view = QuantView::build(*checkpoint);
    QVERIFY(view.warnings().empty());
    QCOMPARE(view.weights().size(), std::size_t(4));
    QCOMPARE(view.schemes().size(), std::size_t(3)); // enum order: fp8-block, gptq, bnb-int8
    QCOMPARE(view.schemes()[0].scheme, QuantScheme::Fp8Block);
    QCOMPARE(view.schemes()[1].scheme, QuantScheme::Gptq);
    QCOMPARE(view.schemes()[1].weights, std::size_t(2));
    QCOMPARE(view.schemes()[1].parameters, quint64(2 * 32 * 64));
    QCOMPARE(view.schemes()[2].scheme, QuantScheme::BnbInt8);
    QCOMPARE(view.effectiveParameters(), quint64(3200 + 2048 + 2048 + 2048 + 32 + 1024));
    // Every tensor is either ordinary, codes or a companion, and each companion names its weight.
    for (std::size_t t = 0; t < checkpoint->tensors().size(); ++t) {
        const auto codes = view.weightOfCodes(t), of = view.weightOfCompanion(t);
        const std::string &name = checkpoint->tensors()[t].info->name;
        QVERIFY(codes < 0 || of < 0);
        if (name.find("layernorm") != std::string::npos || name.find("embed") != std::string::npos)
            QVERIFY(codes < 0 && of < 0);
        if (of >= 0)
            QVERIFY(
                name.rfind(view.weights()[std::size_t(of)].name.substr(0, name.find(".mlp") + 4), 0) == 0);
    }
}

void tst_Quant::shardedFp8()
{
    // A weight in one shard, its block scale in the other: recognition and decoding span shards.
    QuantFixture a = fp8Block("model.layers.0.mlp.down_proj", 130, 260);
    QuantFixture b = fp8Block("model.layers.1.mlp.down_proj", 64, 128);
    QuantFixture shard1, shard2;
    shard1.specs = { a.specs[0], b.specs[0], b.specs[1] };
    shard1.data = { a.data[0], b.data[0], b.data[1] };
    shard2.specs = { a.specs[1] };
    shard2.data = { a.data[1] };
    std::string error;
    QVERIFY(writeFixtures(
        m_dir.filePath(QStringLiteral("model-00001-of-00002.safetensors")).toStdString(), { shard1 }, error));
    QVERIFY(writeFixtures(
        m_dir.filePath(QStringLiteral("model-00002-of-00002.safetensors")).toStdString(), { shard2 }, error));
    const std::string index = m_dir.filePath(QStringLiteral("model.safetensors.index.json")).toStdString();
    {
        std::string json = "{\"weight_map\": {";
        for (const auto *f : { &shard1, &shard2 }) {
            for (const auto &s : f->specs)
                json += "\"" + s.name + "\": \"model-0000" + (f == &shard1 ? "1" : "2")
                    + "-of-00002.safetensors\",";
        }
        json.back() = '}';
        json += "}";
        QFile file(QString::fromStdString(index));
        QVERIFY(file.open(QIODevice::WriteOnly));
        file.write(json.data(), qint64(json.size()));
    }
    const auto checkpoint = Checkpoint::open(index, error);
    QVERIFY2(checkpoint && checkpoint->isSharded(), error.c_str());
    const QuantView view = QuantView::build(*checkpoint);
    QVERIFY(view.warnings().empty());
    QCOMPARE(view.weights().size(), std::size_t(2));
    QCOMPARE(view.effectiveParameters(), quint64(130 * 260 + 64 * 128));
    for (const auto &w : view.weights()) {
        const QuantFixture &f = w.name == a.weight ? a : b;
        std::string reason;
        const auto dq = Dequantizer::make(*checkpoint, w, reason);
        QVERIFY2(dq, reason.c_str());
        std::vector<float> values(dq->elements());
        QVERIFY(dq->decodeGuarded(0, values.size(), values.data()));
        for (std::size_t e = 0; e < values.size(); ++e)
            QCOMPARE(values[e], f.expected[e]);
    }
}

// Every F8_E4M3 code decoded by arithmetic equals the table of decodeCode, bit for bit (NaN
// codes as NaN), scaled, with each kernel family: scales whose products round, reach
// subnormals or overflow, and runs that end inside a vector.
void tst_Quant::e4m3ByArithmetic()
{
    std::vector<std::uint8_t> codes(256 + 77);
    std::vector<float> table(256);
    for (unsigned c = 0; c < 256; ++c)
        table[c] = static_cast<float>(decodeCode(DType::F8_E4M3, c));
    for (std::size_t k = 0; k < codes.size(); ++k)
        codes[k] = static_cast<std::uint8_t>(k * 73 % 256); // every code, then 77 in another order
    const float scales[] = { 0.375f, 0.1f, -1.7e-3f, 3e-39f, 1e-45f, 1e30f, 0x1p99f, 0x1p110f, -5e37f, 0.0f,
        -0.0f, INFINITY, -INFINITY, NAN };
    for (int family = 0; family < 3; ++family) { // AVX-512, AVX2, the portable body
        kernels::avx512::setEnabled(family == 0);
        kernels::avx2::setEnabled(family == 1);
        for (const float scale : scales) {
            for (std::size_t n : { codes.size(), std::size_t(31), std::size_t(1) }) {
                std::vector<float> byTable(n), byArithmetic(n + 1, 42.0f);
                quant::tableRun(codes.data(), table.data(), scale, n, byTable.data());
                quant::e4m3Run(codes.data(), scale, n, byArithmetic.data());
                QCOMPARE(byArithmetic[n], 42.0f); // nothing written past the run
                for (std::size_t k = 0; k < n; ++k) {
                    const QString where = QStringLiteral("code %1, scale %2, kernels %3")
                                              .arg(codes[k])
                                              .arg(scale)
                                              .arg(family);
                    if (std::isnan(byTable[k]))
                        QVERIFY2(std::isnan(byArithmetic[k]), qPrintable(where));
                    else
                        QVERIFY2(std::memcmp(&byTable[k], &byArithmetic[k], 4) == 0,
                            qPrintable(QStringLiteral("%1: %2 vs %3")
                                           .arg(where)
                                           .arg(byArithmetic[k])
                                           .arg(byTable[k])));
                }
            }
        }
    }
    kernels::avx512::setEnabled(true);
    kernels::avx2::setEnabled(true);
}

QTEST_GUILESS_MAIN(tst_Quant)
#include "tst_quant.moc"
