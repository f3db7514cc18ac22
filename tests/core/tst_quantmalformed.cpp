// Quantized weights whose companions are missing, misshapen or lying, and configs that
// contradict the tensors: warnings with rule ids, never a crash or a read outside the file.
#include "core/io/checkpoint.h"
#include "core/quant/dequantizer.h"
#include "core/quant/quantanalyzer.h"
#include "core/quant/quantconfig.h"
#include "core/quant/quantview.h"
#include "tests/support/quantfixtures.h"

#include <QDir>
#include <QFile>
#include <QTemporaryDir>
#include <QTest>

#include <cstring>
#include <filesystem>
#include <functional>

using namespace stb;
using namespace stb::test;

using Mutate = std::function<void(QuantFixture &)>;
Q_DECLARE_METATYPE(Mutate)

namespace {

std::size_t indexOf(const QuantFixture &f, const std::string &suffix)
{
    for (std::size_t i = 0; i < f.specs.size(); ++i) {
        if (f.specs[i].name.size() >= suffix.size()
            && f.specs[i].name.compare(f.specs[i].name.size() - suffix.size(), suffix.size(), suffix) == 0)
            return i;
    }
    return SIZE_MAX;
}

void remove(QuantFixture &f, const std::string &suffix)
{
    const std::size_t i = indexOf(f, suffix);
    f.specs.erase(f.specs.begin() + std::ptrdiff_t(i));
    f.data.erase(f.data.begin() + std::ptrdiff_t(i));
}

// Replaces a tensor's shape (and bytes: `fill` repeated to the new size, or `bytes` as given).
void reshape(QuantFixture &f, const std::string &suffix, std::vector<std::uint64_t> shape,
    std::size_t bytesPerElement, std::uint8_t fill = 0)
{
    const std::size_t i = indexOf(f, suffix);
    std::uint64_t n = 1;
    for (auto d : shape)
        n *= d;
    f.specs[i].shape = std::move(shape);
    f.data[i].assign(n * bytesPerElement, std::byte { fill });
}

void replaceText(QuantFixture &f, const std::string &suffix, const std::string &text)
{
    const std::size_t i = indexOf(f, suffix);
    f.specs[i].shape = { text.size() };
    f.data[i].resize(text.size());
    std::memcpy(f.data[i].data(), text.data(), text.size());
}

bool hasRule(const QuantView &view, const QString &rule)
{
    for (const auto &d : view.warnings()) {
        if (QString::fromStdString(std::string(d.id())) == rule)
            return true;
    }
    return false;
}

} // namespace

class tst_QuantMalformed : public QObject {
    Q_OBJECT

private slots:
    void initTestCase() { QVERIFY(m_dir.isValid()); }
    void companions_data();
    void companions();
    void config_data();
    void config();
    void truncatedFile();
    void configParsing();
    void mistypedConfigFields_data();
    void mistypedConfigFields();

private:
    QTemporaryDir m_dir;
};

void tst_QuantMalformed::companions_data()
{
    QTest::addColumn<int>("kind"); // 0 fp8-block, 1 gptq, 2 mxfp4, 3 bnb-nf4, 4 pack, 5 int8, 6 fp8-tensor
    QTest::addColumn<Mutate>("mutate");
    QTest::addColumn<QString>("rule");
    QTest::addColumn<int>("weights"); // recognised weights
    QTest::addColumn<bool>("decodable");

    QTest::newRow("fp8 block scale of the wrong shape") << 0 << Mutate([](QuantFixture &f) {
        reshape(f, ".weight_scale_inv", { 5, 5 }, 4);
    }) << "quant-companion-shape" << 1 << false;
    QTest::newRow("fp8 block scale of the wrong dtype")
        << 0 << Mutate([](QuantFixture &f) { f.specs[indexOf(f, ".weight_scale_inv")].dtype = DType::I32; })
        << "quant-companion-shape" << 1 << false;
    QTest::newRow("fp8 weight without its scale")
        << 0 << Mutate([](QuantFixture &f) { remove(f, ".weight_scale_inv"); }) << "quant-missing-scale" << 0
        << false;
    QTest::newRow("fp8 scale without its weight")
        << 0 << Mutate([](QuantFixture &f) { remove(f, "proj.weight"); }) << "quant-orphan-companion" << 0
        << false;
    QTest::newRow("fp8 scale neither per tensor nor per channel") << 6 << Mutate([](QuantFixture &f) {
        reshape(f, ".weight_scale", { 3, 2 }, 4);
    }) << "quant-companion-shape" << 1 << false;
    QTest::newRow("gptq qzeros of the wrong shape") << 1 << Mutate([](QuantFixture &f) {
        reshape(f, ".qzeros", { 2, 9 }, 4);
    }) << "quant-companion-shape" << 0 << false;
    QTest::newRow("gptq without scales")
        << 1 << Mutate([](QuantFixture &f) { remove(f, ".scales"); }) << "quant-missing-scale" << 0 << false;
    QTest::newRow("gptq qzeros without qweight")
        << 1 << Mutate([](QuantFixture &f) { remove(f, ".qweight"); }) << "quant-orphan-companion" << 0
        << false;
    QTest::newRow("gptq g_idx naming no group")
        << 1 << Mutate([](QuantFixture &f) { reshape(f, ".g_idx", { 128 }, 4, 0x7f); }) << "" << 1 << true;
    QTest::newRow("gptq g_idx of the wrong length")
        << 1 << Mutate([](QuantFixture &f) { reshape(f, ".g_idx", { 100 }, 4); }) << "quant-companion-shape"
        << 1 << false;
    QTest::newRow("mxfp4 scales of the wrong shape") << 2 << Mutate([](QuantFixture &f) {
        reshape(f, "_scales", { 8, 3 }, 1);
    }) << "quant-companion-shape" << 1 << false;
    QTest::newRow("mxfp4 scales without blocks") << 2 << Mutate([](QuantFixture &f) { remove(f, "_blocks"); })
                                                 << "quant-orphan-companion" << 0 << false;
    QTest::newRow("bnb state not JSON")
        << 3 << Mutate([](QuantFixture &f) { replaceText(f, "bitsandbytes__nf4", "{\"shape\": [1,"); })
        << "quant-state-invalid" << 0 << false;
    QTest::newRow("bnb state deeply nested") << 3 << Mutate([](QuantFixture &f) {
        replaceText(f, "bitsandbytes__nf4", std::string(5000, '[') + std::string(5000, ']'));
    }) << "quant-state-invalid" << 0 << false;
    QTest::newRow("bnb state claims a huge shape") << 3 << Mutate([](QuantFixture &f) {
        replaceText(
            f, "bitsandbytes__nf4", R"({"quant_type": "nf4", "blocksize": 64, "shape": [100000, 100000]})");
    }) << "quant-companion-shape" << 1 << false;
    QTest::newRow("bnb absmax too short")
        << 3 << Mutate([](QuantFixture &f) { reshape(f, ".absmax", { 3 }, 4); }) << "quant-companion-shape"
        << 1 << false;
    QTest::newRow("bnb without absmax")
        << 3 << Mutate([](QuantFixture &f) { remove(f, ".absmax"); }) << "quant-missing-scale" << 0 << false;
    QTest::newRow("pack weight_shape beyond the packed words") << 4 << Mutate([](QuantFixture &f) {
        QuantFixture g = f;
        const std::size_t i = indexOf(f, ".weight_shape");
        const std::int64_t dims[2] = { 16, 100000 };
        std::memcpy(f.data[i].data(), dims, 16);
    }) << "quant-companion-shape" << 1 << false;
    QTest::newRow("pack weight_shape negative") << 4 << Mutate([](QuantFixture &f) {
        const std::size_t i = indexOf(f, ".weight_shape");
        const std::int64_t dims[2] = { -16, 64 };
        std::memcpy(f.data[i].data(), dims, 16);
    }) << "quant-companion-shape" << 0 << false;
    QTest::newRow("int8 SCB of the wrong length")
        << 5 << Mutate([](QuantFixture &f) { reshape(f, ".SCB", { 7 }, 4); }) << "quant-companion-shape" << 1
        << false;
    QTest::newRow("SCB without its weight")
        << 5 << Mutate([](QuantFixture &f) { remove(f, "o_proj.weight"); }) << "quant-orphan-companion" << 0
        << false;
}

void tst_QuantMalformed::companions()
{
    QFETCH(int, kind);
    QFETCH(Mutate, mutate);
    QFETCH(QString, rule);
    QFETCH(int, weights);
    QFETCH(bool, decodable);

    QuantFixture f = kind == 0 ? fp8Block("m.down_proj", 40, 300)
        : kind == 1            ? gptq("m.down_proj", 16, 128, 4, 64)
        : kind == 2            ? mxfp4("m.gate_up_proj", 8, 2)
        : kind == 3            ? bnb4("m.down_proj", 16, 32, true, false)
        : kind == 4            ? packQuantized("m.down_proj", 16, 64, 32)
        : kind == 5            ? bnbInt8("m.o_proj", 16, 16)
                               : fp8Scaled("m.down_proj", 16, 32, false);
    mutate(f);
    std::string error;
    const std::string path
        = m_dir.filePath(QStringLiteral("%1.safetensors").arg(QLatin1String(QTest::currentDataTag())))
              .toStdString();
    QVERIFY2(writeFixtures(path, { f }, error), error.c_str());
    const auto checkpoint = Checkpoint::open(path, error);
    QVERIFY(checkpoint);
    const QuantView view = QuantView::build(*checkpoint);
    if (!rule.isEmpty())
        QVERIFY2(hasRule(view, rule), qPrintable(rule));
    QCOMPARE(int(view.weights().size()), weights);
    for (const auto &w : view.weights()) {
        QCOMPARE(w.decodable, decodable);
        std::string reason;
        const auto dq = Dequantizer::make(*checkpoint, w, reason);
        if (!dq) {
            QVERIFY(!reason.empty());
            continue;
        }
        QVERIFY(decodable);
        QVERIFY(analyzeQuantized(*dq, AnalysisOptions {}));
    }
    if (QByteArray(QTest::currentDataTag()).contains("naming no group")) {
        std::string reason;
        QVERIFY(!Dequantizer::make(*checkpoint, view.weights().front(), reason));
        QVERIFY(reason.find("g_idx") != std::string::npos);
    }
}

void tst_QuantMalformed::config_data()
{
    QTest::addColumn<QByteArray>("json");
    QTest::addColumn<bool>("mismatch");
    QTest::addColumn<bool>("zeroPlusOne");

    QTest::newRow("gptq as written") << QByteArray(
        R"({"quantization_config": {"quant_method": "gptq", "bits": 4, "group_size": 64}})")
                                     << false << true;
    QTest::newRow("gptq_v2") << QByteArray(
        R"({"quantization_config": {"quant_method": "gptq", "bits": 4, "checkpoint_format": "gptq_v2"}})")
                             << false << false;
    QTest::newRow("says 8 bits") << QByteArray(
        R"({"quantization_config": {"quant_method": "gptq", "bits": 8}})")
                                 << true << true;
    QTest::newRow("says group 128") << QByteArray(
        R"({"quantization_config": {"quant_method": "gptq", "bits": 4, "group_size": 32}})")
                                    << true << true;
    QTest::newRow("says fp8") << QByteArray(
        R"({"quantization_config": {"quant_method": "fp8", "weight_block_size": [128, 128]}})")
                              << true << true;
    QTest::newRow("no quantization") << QByteArray(R"({"hidden_size": 16})") << false << true;
    QTest::newRow("not JSON") << QByteArray("{\"quantization_config\": ") << true << true;
}

void tst_QuantMalformed::config()
{
    QFETCH(QByteArray, json);
    QFETCH(bool, mismatch);
    QFETCH(bool, zeroPlusOne);
    const QString folder = m_dir.filePath(
        QStringLiteral("config-%1").arg(QLatin1String(QTest::currentDataTag())).replace(u' ', u'-'));
    QVERIFY(QDir().mkpath(folder));
    QFile config(folder + QStringLiteral("/config.json"));
    QVERIFY(config.open(QIODevice::WriteOnly));
    config.write(json);
    config.close();
    std::string error;
    const std::string path = (folder + QStringLiteral("/model.safetensors")).toStdString();
    QVERIFY(writeFixtures(path, { gptq("m.down_proj", 16, 128, 4, 64) }, error));
    const auto checkpoint = Checkpoint::open(path, error);
    QVERIFY(checkpoint);
    const QuantView view = QuantView::buildWithConfig(*checkpoint);
    QCOMPARE(hasRule(view, QStringLiteral("quant-config-mismatch")), mismatch);
    QCOMPARE(view.weights().size(), std::size_t(1));
    QCOMPARE(view.weights().front().zeroPlusOne, zeroPlusOne);
}

void tst_QuantMalformed::truncatedFile()
{
    // The header promises more bytes than the file holds: recognised, never read past the end.
    std::string error;
    const std::string path = m_dir.filePath(QStringLiteral("truncated.safetensors")).toStdString();
    QVERIFY(writeFixtures(path, { gptq("m.down_proj", 16, 128, 4, 64) }, error));
    std::filesystem::resize_file(path, std::filesystem::file_size(path) - 100);
    const auto checkpoint = Checkpoint::open(path, error);
    QVERIFY(checkpoint);
    const QuantView view = QuantView::build(*checkpoint);
    QCOMPARE(view.weights().size(), std::size_t(1));
    std::string reason;
    QVERIFY(!Dequantizer::make(*checkpoint, view.weights().front(), reason));
    QVERIFY(reason.find("not all in the file") != std::string::npos);
}

void tst_QuantMalformed::configParsing()
{
    std::string error;
    QVERIFY(!parseQuantConfig(std::string(100, '[') + std::string(100, ']'), error));
    QVERIFY(error.find("nests") != std::string::npos);
    const auto c = parseQuantConfig(
        R"({"quantization_config": {"quant_method": "compressed-tensors", "format": "pack-quantized",
        "config_groups": {"group_0": {"weights": {"num_bits": 4, "group_size": 128}}}}})",
        error);
    QVERIFY(c);
    QCOMPARE(c->bits, std::optional<unsigned>(4));
    QCOMPARE(c->groupSize, std::optional<std::int64_t>(128));
    QCOMPARE(c->format, std::string("pack-quantized"));
}

// Mistyped fields are ignored, never thrown from (nlohmann throws on a mistyped value(): the
// first config below ended the fuzzer, and would have ended the browser opening its model).
void tst_QuantMalformed::mistypedConfigFields_data()
{
    QTest::addColumn<QString>("json");
    QTest::addColumn<bool>("bnb8bit");
    QTest::addColumn<int>("bits"); // -1: none
    QTest::newRow("load_in_8bit a string (fuzz_quantconfig crash)")
        << R"({"quantization_config":{"quant_method":"bitsandbytes","load_in_8bit":"U32"}})" << false << -1;
    QTest::newRow("load_in_8bit a number") << R"({"quantization_config":{"load_in_8bit":1}})" << false << -1;
    QTest::newRow("load_in_8bit true") << R"({"quantization_config":{"load_in_8bit":true}})" << true << -1;
    QTest::newRow("bits negative") << R"({"quantization_config":{"bits":-1}})" << false << -1;
    QTest::newRow("bits too large") << R"({"quantization_config":{"bits":4294967296}})" << false << -1;
    QTest::newRow("bits a string") << R"({"quantization_config":{"bits":"4"}})" << false << -1;
    QTest::newRow("bits a float") << R"({"quantization_config":{"bits":4.0}})" << false << -1;
    QTest::newRow("bits 4") << R"({"quantization_config":{"bits":4}})" << false << 4;
    QTest::newRow("num_bits mistyped, group_size an object")
        << R"({"quantization_config":{"config_groups":{"g":{"weights":{"num_bits":[4],"group_size":{}}}}}})"
        << false << -1;
}

void tst_QuantMalformed::mistypedConfigFields()
{
    QFETCH(QString, json);
    QFETCH(bool, bnb8bit);
    QFETCH(int, bits);
    std::string error;
    const auto config = parseQuantConfig(json.toStdString(), error);
    QVERIFY2(config, error.c_str());
    QCOMPARE(config->bnb8bit, bnb8bit);
    QCOMPARE(config->bits, bits < 0 ? std::optional<unsigned>() : std::optional<unsigned>(unsigned(bits)));
}

QTEST_GUILESS_MAIN(tst_QuantMalformed)
#include "tst_quantmalformed.moc"
