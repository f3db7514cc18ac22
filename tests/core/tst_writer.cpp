// The writer produces what the reference writer produces, and every dtype round-trips through
// the parser.
#include "core/format/header.h"
#include "core/format/writer.h"
#include "tests/support/testfiles.h"

#include <QTest>

#include <cstring>

using namespace stb;

namespace {

std::string text(const std::vector<std::byte> &bytes, std::size_t from, std::size_t length)
{
    return std::string(reinterpret_cast<const char *>(bytes.data()) + from, length);
}

std::vector<std::byte> floats(std::initializer_list<float> values)
{
    std::vector<std::byte> out(values.size() * 4);
    std::memcpy(out.data(), std::data(values), out.size());
    return out;
}

} // namespace

class tst_Writer : public QObject {
    Q_OBJECT

private slots:
    // safetensors/src/tensor.rs test_serialization: the exact bytes the reference writes.
    void referenceGoldenBytes()
    {
        const std::vector<TensorSpec> specs = {{"attn.0", DType::F32, {1, 2, 3}}};
        const std::vector<std::vector<std::byte>> data = {floats({0, 1, 2, 3, 4, 5})};
        const auto out = serialize(specs, data, {});
        const std::string json = R"({"attn.0":{"dtype":"F32","shape":[1,2,3],"data_offsets":[0,24]}})";
        QCOMPARE(std::to_integer<int>(out[0]), 64);
        QCOMPARE(text(out, 8, 64), json + std::string(64 - json.size(), ' '));
        QCOMPARE(out.size(), std::size_t(8 + 64 + 24));
        QVERIFY(parseHeader(out).valid());
    }

    // test_empty: an empty model, with and without metadata.
    void referenceEmpty()
    {
        const auto empty = serialize({}, {}, {});
        QCOMPARE(text(empty, 0, 1), std::string("\x08"));
        QCOMPARE(text(empty, 8, 8), std::string("{}      "));
        const auto withMetadata = serialize({}, {}, {{"framework", "pt"}});
        QCOMPARE(std::to_integer<int>(withMetadata[0]), 40);
        QCOMPARE(text(withMetadata, 8, 40), std::string(R"({"__metadata__":{"framework":"pt"}})") + "     ");
        const Header header = parseHeader(withMetadata);
        QVERIFY(header.valid());
        QCOMPARE(header.metadata.size(), std::size_t(1));
    }

    // Sorted by descending dtype (the reference's alignment order), then by name.
    void layoutOrder()
    {
        const std::vector<TensorSpec> specs = {
            {"b", DType::U8, {3}}, {"a", DType::F64, {1}}, {"c", DType::F64, {1}}, {"d", DType::BF16, {2}}};
        FileLayout layout;
        std::string error;
        QVERIFY(planFile(specs, {}, layout, error));
        QCOMPARE(layout.order, (std::vector<std::size_t>{1, 2, 3, 0}));
        QCOMPARE(layout.begins, (std::vector<std::uint64_t>{20, 0, 8, 16}));
        QCOMPARE(layout.dataSize, std::uint64_t(23));
        QCOMPARE((layout.prefix.size() - 8) % 8, std::size_t(0));
    }

    void rejectsBadInput()
    {
        FileLayout layout;
        std::string error;
        const std::vector<TensorSpec> twice = {{"x", DType::F32, {1}}, {"x", DType::U8, {1}}};
        QVERIFY(!planFile(twice, {}, layout, error));
        const std::vector<TensorSpec> halfByte = {{"x", DType::F4, {3}}};
        QVERIFY(!planFile(halfByte, {}, layout, error));
    }

    void roundTripEveryDType_data()
    {
        QTest::addColumn<int>("dtype");
        for (const auto &info : allDTypes())
            QTest::newRow(std::string(info.name).c_str()) << static_cast<int>(info.dtype);
    }
    void roundTripEveryDType()
    {
        QFETCH(int, dtype);
        const auto type = static_cast<DType>(dtype);
        // Shapes that make whole bytes for every width (4 and 6 bits included).
        const std::vector<TensorSpec> specs = {{"w.scalar", type, {}},   {"w.matrix", type, {4, 6}},
                                               {"w.empty", type, {0, 5}}, {"name with \"quotes\"\n", type, {8}}};
        std::vector<std::vector<std::byte>> data;
        for (const auto &spec : specs) {
            TensorInfo info;
            info.dtype = type;
            info.shape = spec.shape;
            const auto bytes = info.expectedBytes();
            if (!bytes) {
                QCOMPARE(spec.name, std::string("w.scalar")); // a lone 4- or 6-bit element
                QVERIFY(dtypeBits(type) < 8);
                return;
            }
            std::vector<std::byte> buffer(static_cast<std::size_t>(*bytes));
            for (std::size_t i = 0; i < buffer.size(); ++i)
                buffer[i] = static_cast<std::byte>(i * 37 + 11);
            data.push_back(std::move(buffer));
        }
        const auto out = serialize(specs, data, {{"k", "v"}});
        const Header header = parseHeader(out);
        QVERIFY2(header.valid(), header.verdict() ? header.verdict()->message.c_str() : "");
        QCOMPARE(header.tensors.size(), specs.size());
        for (std::size_t i = 0; i < specs.size(); ++i) {
            const auto found = std::find_if(header.tensors.begin(), header.tensors.end(),
                                            [&](const TensorInfo &t) { return t.name == specs[i].name; });
            QVERIFY(found != header.tensors.end());
            QCOMPARE(found->dtype, type);
            QCOMPARE(found->shape, specs[i].shape);
            QCOMPARE(found->byteLength(), data[i].size());
            QVERIFY(std::equal(data[i].begin(), data[i].end(), out.begin() + static_cast<std::ptrdiff_t>(header.fileOffset(*found))));
        }
        // The only warnings: the empty tensor sharing its offset, and a dtype older readers lack.
        auto count = [&](Rule rule) {
            return std::count_if(header.diagnostics.begin(), header.diagnostics.end(),
                                 [&](const Diagnostic &d) { return d.rule == rule; });
        };
        QCOMPARE(count(Rule::SharedOffset), 1);
        QCOMPARE(count(Rule::NewDtype), dtypeInfo(type).knownToOlderReaders ? 0 : 1);
        QCOMPARE(header.warningCount(), std::size_t(1 + count(Rule::NewDtype)));
    }

    void sampleModelIsValid()
    {
        const auto model = test::makeSampleModel(2, 16);
        const auto out = serialize(model.specs, model.data, model.metadata);
        const Header header = parseHeader(out);
        QVERIFY(header.valid());
        QCOMPARE(header.tensors.size(), model.specs.size());
        QCOMPARE(header.warningCount(), std::size_t(0));
    }
};

QTEST_GUILESS_MAIN(tst_Writer)
#include "tst_writer.moc"
