// Repeated structure from names alone: decoders, encoder-decoders, vision blocks, experts nested
// in layers, gaps, deviations of each kind, and names with numbers that are not repeats. Each
// detection is rendered as one line per repeat and compared with the expected text.
#include "core/layers/repeatdetector.h"

#include <QTest>

#include <string>
#include <vector>

using namespace Qt::StringLiterals;
using namespace stb;

namespace {

// A list of tensor names with dtypes and shapes, as a header would give them.
class NameSet {
public:
    NameSet &add(
        const std::string &name, DType dtype = DType::BF16, std::vector<std::uint64_t> shape = { 64, 64 })
    {
        TensorInfo info;
        info.name = name;
        info.dtype = dtype;
        info.shape = std::move(shape);
        m_infos.push_back(std::move(info));
        return *this;
    }
    // Every name of `roles` under prefix.N for each N in `indices`.
    NameSet &blocks(
        const std::string &prefix, const std::vector<int> &indices, const std::vector<std::string> &roles)
    {
        for (int i : indices) {
            for (const auto &role : roles)
                add(prefix + "." + std::to_string(i) + "." + role);
        }
        return *this;
    }
    TensorInfo &named(const std::string &name)
    {
        for (auto &info : m_infos) {
            if (info.name == name)
                return info;
        }
        qFatal("no tensor %s", name.c_str());
    }
    void remove(const std::string &name)
    {
        std::erase_if(m_infos, [&](const TensorInfo &i) { return i.name == name; });
    }
    std::vector<const TensorInfo *> pointers() const
    {
        std::vector<const TensorInfo *> out;
        for (const auto &info : m_infos)
            out.push_back(&info);
        return out;
    }

private:
    std::vector<TensorInfo> m_infos;
};

std::vector<int> range(int from, int to)
{
    std::vector<int> out;
    for (int i = from; i < to; ++i)
        out.push_back(i);
    return out;
}

const std::vector<std::string> kDecoderRoles
    = { "input_layernorm.weight", "mlp.down_proj.weight", "mlp.gate_proj.weight", "mlp.up_proj.weight",
          "post_attention_layernorm.weight", "self_attn.k_proj.weight", "self_attn.o_proj.weight",
          "self_attn.q_proj.weight", "self_attn.v_proj.weight" };

// "0-3,5,7-9"
QString ranges(const std::vector<std::uint64_t> &values)
{
    QStringList parts;
    for (std::size_t i = 0; i < values.size();) {
        std::size_t j = i;
        while (j + 1 < values.size() && values[j + 1] == values[j] + 1)
            ++j;
        parts << (i == j ? QString::number(values[i]) : u"%1-%2"_s.arg(values[i]).arg(values[j]));
        i = j + 1;
    }
    return parts.join(u',');
}

// "model.layers 0-31 roles=9 [missing=3,4] [dev=5:mlp.down_proj.weight:shape,...]", nested
// repeats indented with their rows.
void describe(const Repeat &repeat, QStringList &out, const QString &indent = {})
{
    QString line = indent + QString::fromStdString(repeat.prefix) + u' ' + ranges(repeat.indices);
    if (repeat.nested())
        line += u" rows="_s + ranges(repeat.outerIndices);
    line += u" roles="_s + QString::number(repeat.roles.size());
    if (!repeat.missing.empty())
        line += u" missing="_s + ranges(repeat.missing);
    QStringList deviations;
    for (const auto &d : repeat.deviations) {
        const QString where
            = d.outerIndex ? u"%1/%2"_s.arg(*d.outerIndex).arg(d.index) : QString::number(d.index);
        deviations << where + u':' + QString::fromStdString(d.role) + u':'
                + QString::fromUtf8(deviationKindName(d.kind));
    }
    if (!deviations.isEmpty())
        line += u" dev="_s + deviations.join(u',');
    out << line;
    for (const auto &inner : repeat.repeats)
        describe(inner, out, indent + u"  "_s);
}

QStringList describe(const std::vector<Repeat> &repeats)
{
    QStringList out;
    for (const auto &repeat : repeats)
        describe(repeat, out);
    return out;
}

NameSet decoder(int layers)
{
    NameSet names;
    names.add("model.embed_tokens.weight").blocks("model.layers", range(0, layers), kDecoderRoles);
    names.add("model.norm.weight").add("lm_head.weight");
    return names;
}

NameSet moe(int layers, int experts, int denseLayers = 0)
{
    NameSet names;
    names.add("model.embed_tokens.weight");
    for (int l = 0; l < layers; ++l) {
        const std::string layer = "model.layers." + std::to_string(l);
        for (const char *role :
            { "input_layernorm.weight", "post_attention_layernorm.weight", "self_attn.q_proj.weight",
                "self_attn.k_proj.weight", "self_attn.v_proj.weight", "self_attn.o_proj.weight" })
            names.add(layer + "." + role);
        if (l < denseLayers) {
            for (const char *role : { "mlp.gate_proj.weight", "mlp.up_proj.weight", "mlp.down_proj.weight" })
                names.add(layer + "." + role);
            continue;
        }
        names.add(layer + ".mlp.gate.weight");
        names.blocks(layer + ".mlp.experts", range(0, experts),
            { "gate_proj.weight", "up_proj.weight", "down_proj.weight" });
    }
    return names;
}

} // namespace

using NameSetPtr = std::shared_ptr<NameSet>;
Q_DECLARE_METATYPE(NameSetPtr)

class tst_Layers : public QObject {
    Q_OBJECT

private slots:
    void detect_data();
    void detect();
    void nestedTable();
    void labelsAndNames();
};

void tst_Layers::detect_data()
{
    QTest::addColumn<NameSetPtr>("names");
    QTest::addColumn<QStringList>("expected");
    auto row = [](const char *tag, NameSet names, QStringList expected) {
        QTest::newRow(tag) << std::make_shared<NameSet>(std::move(names)) << expected;
    };

    row("plain decoder", decoder(32), { u"model.layers 0-31 roles=9"_s });

    NameSet encoderDecoder;
    encoderDecoder.add("model.shared.weight")
        .blocks("model.encoder.layers", range(0, 6),
            { "self_attn.k_proj.weight", "self_attn.q_proj.weight", "fc1.weight", "fc2.weight",
                "final_layer_norm.weight" })
        .blocks("model.decoder.layers", range(0, 4),
            { "self_attn.q_proj.weight", "encoder_attn.q_proj.weight", "fc1.weight", "fc2.weight" });
    row("encoder-decoder", encoderDecoder,
        { u"model.decoder.layers 0-3 roles=4"_s, u"model.encoder.layers 0-5 roles=5"_s });

    NameSet vision;
    vision.add("vision_tower.patch_embed.proj.weight").add("vision_tower.pos_embed");
    vision.blocks("vision_tower.blocks", range(0, 24),
        { "attn.qkv.weight", "attn.proj.weight", "norm1.weight", "norm2.weight", "mlp.fc1.weight",
            "mlp.fc2.weight" });
    row("vision blocks", vision, { u"vision_tower.blocks 0-23 roles=6"_s });

    row("nested experts", moe(4, 8),
        { u"model.layers 0-3 roles=7"_s, u"  model.layers.{N}.mlp.experts 0-7 rows=0-3 roles=3"_s });

    row("dense first layer", moe(3, 4, 1),
        { u"model.layers 0-2 roles=7 dev=0:mlp.gate.weight:missing_role,0:mlp.down_proj.weight:extra_role,"
          "0:mlp.gate_proj.weight:extra_role,0:mlp.up_proj.weight:extra_role"_s,
            u"  model.layers.{N}.mlp.experts 0-3 rows=1-2 roles=3"_s });

    NameSet gaps;
    gaps.blocks("model.layers", { 0, 1, 2, 5, 6, 9 }, kDecoderRoles);
    row("gaps", gaps, { u"model.layers 0-2,5-6,9 roles=9 missing=3-4,7-8"_s });

    NameSet missingRole = decoder(6);
    missingRole.remove("model.layers.2.mlp.up_proj.weight");
    row("missing role", missingRole, { u"model.layers 0-5 roles=9 dev=2:mlp.up_proj.weight:missing_role"_s });

    NameSet extraRole = decoder(6);
    extraRole.add("model.layers.3.self_attn.rotary_emb.inv_freq");
    row("extra role", extraRole,
        { u"model.layers 0-5 roles=9 dev=3:self_attn.rotary_emb.inv_freq:extra_role"_s });

    NameSet shape = decoder(8);
    for (int l = 0; l < 8; ++l)
        shape.named("model.layers." + std::to_string(l) + ".mlp.down_proj.weight").shape
            = { 64, l == 5 ? 96u : 128u };
    row("shape deviation", shape, { u"model.layers 0-7 roles=9 dev=5:mlp.down_proj.weight:shape"_s });

    NameSet dtype = decoder(4);
    dtype.named("model.layers.1.self_attn.q_proj.weight").dtype = DType::F16;
    row("dtype deviation", dtype, { u"model.layers 0-3 roles=9 dev=1:self_attn.q_proj.weight:dtype"_s });

    NameSet expertShape = moe(3, 4);
    expertShape.named("model.layers.2.mlp.experts.1.up_proj.weight").shape = { 64, 32 };
    row("nested deviation", expertShape,
        { u"model.layers 0-2 roles=7"_s,
            u"  model.layers.{N}.mlp.experts 0-3 rows=0-2 roles=3 dev=2/1:up_proj.weight:shape"_s });

    // Two kinds of layer of two each: no majority, so a variety rather than deviations.
    NameSet split = decoder(4);
    for (int l = 0; l < 2; ++l)
        split.named("model.layers." + std::to_string(l) + ".mlp.up_proj.weight").shape = { 64, 32 };
    row("no majority", split, { u"model.layers 0-3 roles=9"_s });

    NameSet numbered;
    numbered.add("conv1.weight").add("conv2.weight").add("fc1.weight").add("fc2.weight").add("fc2.bias");
    numbered.add("layer_norm_1.weight")
        .add("layer_norm_2.weight")
        .add("bn1.running_mean")
        .add("h1")
        .add("h2");
    row("numbers inside names", numbered, {});

    row("single block", decoder(1), {});

    // T5: a block's sub-layers are numbered but of different kinds; the blocks repeat.
    NameSet t5;
    for (int b = 0; b < 3; ++b) {
        const std::string block = "encoder.block." + std::to_string(b) + ".layer.";
        for (const char *role : { "0.SelfAttention.q.weight", "0.SelfAttention.k.weight",
                 "0.SelfAttention.v.weight", "0.SelfAttention.o.weight", "0.layer_norm.weight",
                 "1.DenseReluDense.wi.weight", "1.DenseReluDense.wo.weight", "1.layer_norm.weight" })
            t5.add(block + role);
    }
    row("t5 sub-layers", t5, { u"encoder.block 0-2 roles=8"_s });

    // A Sequential of a convolution and a batch norm: numbered, not repeated.
    NameSet sequential;
    sequential.add("features.0.weight").add("features.0.bias");
    for (const char *role : { "weight", "bias", "running_mean", "running_var", "num_batches_tracked" })
        sequential.add(std::string("features.1.") + role);
    row("conv and batch norm", sequential, {});

    NameSet leading;
    leading.blocks("layers", { 0, 1 }, { "w" }).add("layers.01.w").add("layers.007.w");
    row("leading zeros are names", leading, { u"layers 0-1 roles=1"_s });
}

void tst_Layers::detect()
{
    QFETCH(NameSetPtr, names);
    QFETCH(QStringList, expected);
    const auto pointers = names->pointers();
    QCOMPARE(describe(detectRepeats(pointers)), expected);
}

// The table gives each (row, column, role) its tensor; rows of a nested repeat are the layers.
void tst_Layers::nestedTable()
{
    NameSet names = moe(3, 4);
    names.remove("model.layers.1.mlp.experts.2.down_proj.weight");
    const auto pointers = names.pointers();
    const auto repeats = detectRepeats(pointers);
    QCOMPARE(repeats.size(), 1u);
    QCOMPARE(repeats[0].repeats.size(), 1u);
    const Repeat &experts = repeats[0].repeats[0];
    QCOMPARE(experts.rows(), 3u);
    QCOMPARE(experts.roles[0].name, "down_proj.weight");
    for (std::size_t row = 0; row < experts.rows(); ++row) {
        for (std::size_t column = 0; column < experts.indices.size(); ++column) {
            for (std::size_t role = 0; role < experts.roles.size(); ++role) {
                const std::size_t tensor = experts.tensorAt(row, column, role);
                const std::string name = experts.blockName(row, column) + "." + experts.roles[role].name;
                if (name == "model.layers.1.mlp.experts.2.down_proj.weight") {
                    QCOMPARE(tensor, kNoTensor);
                    continue;
                }
                QVERIFY2(tensor != kNoTensor, name.c_str());
                QCOMPARE(pointers[tensor]->name, name);
            }
        }
    }
    QCOMPARE(experts.blockCount(), 12u);
    QCOMPARE(experts.deviations.size(), 1u);
    QCOMPARE(experts.deviations[0].outerIndex, std::optional<std::uint64_t>(1));
    QCOMPARE(experts.deviations[0].index, 2u);
    QCOMPARE(experts.deviations[0].detail, "absent where 11 of 12 blocks have it");
}

void tst_Layers::labelsAndNames()
{
    NameSet names = moe(94, 4);
    const auto pointers = names.pointers();
    const auto repeats = detectRepeats(pointers);
    QCOMPARE(repeats.size(), 1u);
    QCOMPARE(repeats[0].label(), "model.layers.{0\u201393} \u00d7 94");
    QCOMPARE(repeats[0].repeats[0].label(), "model.layers.{N}.mlp.experts.{0\u20133} \u00d7 4 in 94 blocks");
    QCOMPARE(repeats[0].blockName(0, 93), "model.layers.93");
    QCOMPARE(repeats[0].repeats[0].blockName(93, 3), "model.layers.93.mlp.experts.3");

    NameSet shape = decoder(3);
    shape.named("model.layers.1.mlp.down_proj.weight").shape = { 64, 11 };
    const auto shapePointers = shape.pointers();
    const auto deviations = detectRepeats(shapePointers)[0].deviations;
    QCOMPARE(deviations.size(), 1u);
    QCOMPARE(deviations[0].detail, "[64, 11] where 2 of 3 blocks have [64, 64]");
}

QTEST_GUILESS_MAIN(tst_Layers)
#include "tst_layers.moc"
