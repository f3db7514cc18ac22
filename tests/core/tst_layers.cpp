// Repeated structure from names alone: decoders, encoder-decoders, vision blocks, experts nested
// in layers, gaps, deviations of each kind, and names with numbers that are not repeats. Each
// detection is rendered as one line per repeat and compared with the expected text.
#include "core/compare/comparison.h"
#include "core/format/writer.h"
#include "core/io/checkpoint.h"
#include "core/layers/depthprofile.h"
#include "core/layers/layerdiff.h"
#include "core/layers/layersreport.h"
#include "core/layers/repeatdetector.h"
#include "tests/support/testfiles.h"

#include <QFile>
#include <QFileInfo>
#include <QSet>
#include <QTemporaryDir>
#include <QTest>

#include <cmath>
#include <random>
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

// A small decoder written to disk: `layers` blocks of three F32 roles with normal values (seeded
// per tensor), with the values kept to compute statistics independently.
struct WrittenModel {
    std::vector<TensorSpec> specs;
    std::vector<std::vector<float>> values;

    std::size_t find(const std::string &name) const
    {
        for (std::size_t i = 0; i < specs.size(); ++i) {
            if (specs[i].name == name)
                return i;
        }
        qFatal("no tensor %s", name.c_str());
    }
    std::vector<float> &operator[](const std::string &name) { return values[find(name)]; }

    std::shared_ptr<const Checkpoint> write(const QString &path) const
    {
        return test::writeCheckpoint(path.toStdString(), specs,
            [&](std::size_t spec, std::size_t element) { return values[spec][element]; });
    }
};

const std::vector<std::string> kSmallRoles
    = { "mlp.down_proj.weight", "mlp.up_proj.weight", "self_attn.q_proj.weight" };

WrittenModel writtenModel(int layers, unsigned seed = 1)
{
    WrittenModel model;
    std::mt19937 rng(seed);
    for (int l = 0; l < layers; ++l) {
        for (std::size_t r = 0; r < kSmallRoles.size(); ++r) {
            model.specs.push_back(
                { "model.layers." + std::to_string(l) + "." + kSmallRoles[r], DType::F32, { 16, 32 } });
            // Each role its own scale, the same at every depth: a flat profile with noise.
            std::normal_distribution<float> normal(
                0.01f * static_cast<float>(r), 0.02f * static_cast<float>(r + 1));
            std::vector<float> v(16 * 32);
            for (auto &x : v)
                x = normal(rng);
            model.values.push_back(std::move(v));
        }
    }
    model.specs.push_back({ "lm_head.weight", DType::F32, { 4 } });
    model.values.push_back({ 1, 2, 3, 4 });
    return model;
}

// The depth statistics computed here, in double, from the values written.
double expectedStat(DepthStat stat, const std::vector<float> &values)
{
    double sum = 0, sumSquares = 0, absMax = 0;
    std::size_t finite = 0, nonfinite = 0, zeros = 0;
    for (float x : values) {
        if (!std::isfinite(x)) {
            ++nonfinite;
            continue;
        }
        ++finite;
        zeros += x == 0;
        sum += x;
        absMax = std::max(absMax, std::abs(static_cast<double>(x)));
    }
    const double mean = sum / static_cast<double>(finite);
    for (float x : values) {
        if (std::isfinite(x))
            sumSquares += (x - mean) * (x - mean);
    }
    const double std = std::sqrt(sumSquares / static_cast<double>(finite));
    switch (stat) {
    case DepthStat::Mean:
        return mean;
    case DepthStat::Std:
        return std;
    case DepthStat::Rms:
        return std::sqrt(mean * mean + std * std);
    case DepthStat::AbsMax:
        return absMax;
    case DepthStat::Nonfinite:
        return static_cast<double>(nonfinite);
    case DepthStat::ZeroFraction:
        return static_cast<double>(zeros) / static_cast<double>(values.size());
    }
    return NAN;
}

// Compared as text: QCOMPARE on nlohmann values would try Qt's conversions.
#define JSON_COMPARE(actual, expected)                                                                       \
    QCOMPARE(QString::fromStdString(Json(actual).dump()), QString::fromStdString(Json(expected).dump()))

bool near(double a, double b)
{
    return std::abs(a - b) <= 1e-9 + 1e-6 * std::abs(b);
}

} // namespace

using NameSetPtr = std::shared_ptr<NameSet>;
Q_DECLARE_METATYPE(NameSetPtr)
Q_DECLARE_METATYPE(std::vector<double>)

class tst_Layers : public QObject {
    Q_OBJECT

private slots:
    void detect_data();
    void detect();
    void nestedTable();
    void labelsAndNames();
    void robustZ_data();
    void robustZ();
    void profilesMatchStatistics();
    void plantedBrokenLayer();
    void wholeLayerOfExpertsStandsOut();
    void cachedStatisticsAreUsed();
    void stoppedProfile();
    void unreadableBlocks_data();
    void unreadableBlocks();
    void diffByLayerSeries();
    void json();
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

void tst_Layers::robustZ_data()
{
    QTest::addColumn<std::vector<double>>("series");
    QTest::addColumn<QList<int>>("flagged");
    const std::vector<double> flat = { 1.0, 1.1, 0.9, 1.05, 0.95, 1.02, 0.98, 1.01 };
    QTest::newRow("flat") << flat << QList<int> {};
    auto spike = flat;
    spike[5] = 3.0;
    QTest::newRow("one spike") << spike << QList<int> { 5 };
    auto dip = flat;
    dip[0] = -2.0;
    QTest::newRow("one dip") << dip << QList<int> { 0 };
    // A count that is zero everywhere but once: MAD is 0, the mean deviation stands in.
    QTest::newRow("nan count") << std::vector<double> { 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 12, 0 }
                               << QList<int> { 10 };
    QTest::newRow("all equal") << std::vector<double> { 2, 2, 2, 2 } << QList<int> {};
    QTest::newRow("missing blocks skipped")
        << std::vector<double> { 1, NAN, 1.1, 0.9, NAN, 1.0, 1.05, 9.0 } << QList<int> { 7 };
    QTest::newRow("too short") << std::vector<double> { 1, 100 } << QList<int> {};
    // A steady trend over depth is not an outlier.
    std::vector<double> trend;
    for (int i = 0; i < 32; ++i)
        trend.push_back(0.5 + 0.01 * i);
    QTest::newRow("trend") << trend << QList<int> {};
}

void tst_Layers::robustZ()
{
    QFETCH(std::vector<double>, series);
    QFETCH(QList<int>, flagged);
    QList<int> got;
    for (const auto &[position, z] : robustOutliers(series)) {
        QVERIFY(std::abs(z) > kDepthOutlierZ);
        got << static_cast<int>(position);
    }
    QCOMPARE(got, flagged);
}

void tst_Layers::profilesMatchStatistics()
{
    QTemporaryDir dir;
    WrittenModel model = writtenModel(6);
    model["model.layers.2.mlp.up_proj.weight"][7] = 0;
    model["model.layers.4.self_attn.q_proj.weight"][3] = INFINITY;
    const auto checkpoint = model.write(dir.filePath(u"m.safetensors"_s));
    const auto repeats = detectRepeats(*checkpoint);
    QCOMPARE(repeats.size(), 1u);
    const auto profiles = profileRepeats(*checkpoint, repeats, {});
    QVERIFY(profiles);
    const Repeat &repeat = repeats[0];
    const RepeatProfile &profile = (*profiles)[0];
    QCOMPARE(profile.roles.size(), repeat.roles.size());
    for (std::size_t role = 0; role < repeat.roles.size(); ++role) {
        for (std::size_t column = 0; column < repeat.indices.size(); ++column) {
            const std::string name = repeat.blockName(0, column) + "." + repeat.roles[role].name;
            for (std::size_t s = 0; s < kDepthStatCount; ++s) {
                const auto stat = static_cast<DepthStat>(s);
                const double got = profile.roles[role][s][column];
                const double want = expectedStat(stat, model[name]);
                QVERIFY2(near(got, want),
                    qPrintable(u"%1 %2: %3, expected %4"_s.arg(QString::fromStdString(name))
                                   .arg(QString::fromUtf8(depthStatName(stat)))
                                   .arg(got)
                                   .arg(want)));
            }
        }
    }
}

// Layer 5's down projection scaled up a hundredfold, layer 3's up projection with NaNs: each is
// flagged at its role and statistics, and no other block or role is.
void tst_Layers::plantedBrokenLayer()
{
    QTemporaryDir dir;
    WrittenModel model = writtenModel(12);
    for (float &x : model["model.layers.5.mlp.down_proj.weight"])
        x *= 100;
    model["model.layers.3.mlp.up_proj.weight"][0] = NAN;
    model["model.layers.3.mlp.up_proj.weight"][9] = NAN;
    const auto checkpoint = model.write(dir.filePath(u"m.safetensors"_s));
    const auto repeats = detectRepeats(*checkpoint);
    const auto profiles = profileRepeats(*checkpoint, repeats, {});
    QVERIFY(profiles);
    QSet<QString> flagged, places;
    for (const auto &o : (*profiles)[0].outliers) {
        const QString place = u"%1:%2"_s.arg(repeats[0].indices[o.column])
                                  .arg(QString::fromStdString(repeats[0].roles[o.role].name));
        places << place;
        flagged << place + u':' + QString::fromUtf8(depthStatName(o.stat));
    }
    QCOMPARE(places, (QSet<QString> { u"5:mlp.down_proj.weight"_s, u"3:mlp.up_proj.weight"_s }));
    for (const QString &expected : { u"5:mlp.down_proj.weight:std"_s, u"5:mlp.down_proj.weight:rms"_s,
             u"5:mlp.down_proj.weight:abs_max"_s, u"3:mlp.up_proj.weight:nonfinite"_s })
        QVERIFY2(flagged.contains(expected), qPrintable(expected));
}

// A layer all of whose experts moved together is no outlier inside its row (the experts agree),
// but its row's median stands out along depth: flagged as a whole row, and only that.
void tst_Layers::wholeLayerOfExpertsStandsOut()
{
    const NameSet names = moe(9, 6);
    const auto pointers = names.pointers();
    const auto repeats = detectRepeats(pointers);
    QCOMPARE(repeats.size(), std::size_t(1));
    QCOMPARE(repeats[0].repeats.size(), std::size_t(1));
    const Repeat &experts = repeats[0].repeats[0];
    std::vector<TensorStats> stats(pointers.size());
    for (std::size_t i = 0; i < pointers.size(); ++i) {
        stats[i].count = 100;
        // Spread a little by name, so the MAD along depth is not zero; layer 5's experts ×10.
        stats[i].mean = 0.5 + 0.01 * static_cast<double>(i % 7);
        if (pointers[i]->name.starts_with("model.layers.5.mlp.experts."))
            stats[i].mean *= 10;
    }
    const RepeatProfile profile = profileRepeat(experts, [&](std::size_t i) { return &stats[i]; });
    QSet<QString> found;
    for (const DepthOutlier &o : profile.outliers) {
        if (o.stat != DepthStat::Mean)
            continue;
        QCOMPARE(o.column, kWholeRow);
        QCOMPARE(experts.outerIndices[o.row], std::uint64_t(5));
        QVERIFY(o.z > kDepthOutlierZ);
        found << QString::fromStdString(experts.roles[o.role].name);
    }
    QCOMPARE(found, (QSet<QString> { u"gate_proj.weight"_s, u"up_proj.weight"_s, u"down_proj.weight"_s }));
    // JSON: no single index, the layer as outer_index.
    const std::vector<RepeatProfile> profiles { profileRepeat(repeats[0], [&](std::size_t i) { return &stats[i]; }) };
    const Json json = layersJson(repeats, &profiles);
    const Json &outliers = json["repeats"][0]["repeats"][0]["outliers"];
    QVERIFY(!outliers.empty());
    for (const Json &o : outliers) {
        QVERIFY(o["index"].is_null());
        JSON_COMPARE(o["outer_index"], 5);
    }
}

void tst_Layers::cachedStatisticsAreUsed()
{
    QTemporaryDir dir;
    const auto checkpoint = writtenModel(4).write(dir.filePath(u"m.safetensors"_s));
    const auto repeats = detectRepeats(*checkpoint);
    const std::size_t known = repeats[0].tensorAt(0, 1, 0);
    TensorStats planted;
    planted.count = 10;
    planted.mean = 123.0;
    planted.std = 0;
    std::size_t asked = 0;
    std::uint64_t scannedBytes = 0;
    const auto profiles = profileRepeats(
        *checkpoint, repeats, {}, {}, [&](std::uint64_t, std::uint64_t total) { scannedBytes = total; },
        [&](std::size_t tensor) -> const TensorStats * {
            ++asked;
            return tensor == known ? &planted : nullptr;
        });
    QVERIFY(profiles);
    QCOMPARE(asked, 12u);
    QCOMPARE((*profiles)[0].roles[0][0][1], 123.0);
    QCOMPARE(scannedBytes, 11u * 16 * 32 * 4); // every role tensor but the cached one
}

void tst_Layers::stoppedProfile()
{
    QTemporaryDir dir;
    const auto checkpoint = writtenModel(4).write(dir.filePath(u"m.safetensors"_s));
    const auto repeats = detectRepeats(*checkpoint);
    std::stop_source stop;
    stop.request_stop();
    QVERIFY(!profileRepeats(*checkpoint, repeats, {}, stop.get_token()));
}

// A file cut short: the blocks whose bytes are gone have no profile values, and the profile says
// which (positions named by Repeat::tensorName), in JSON too. Tensors lie in name order, layer
// 3's q_proj last (2,048 bytes each).
void tst_Layers::unreadableBlocks_data()
{
    QTest::addColumn<int>("cut");
    QTest::addColumn<QStringList>("unreadable");
    QTest::newRow("whole") << 0 << QStringList {};
    QTest::newRow("last block cut short") << 4 << QStringList { u"model.layers.3.self_attn.q_proj.weight"_s };
    QTest::newRow("two gone") << 2048 + 4
                              << QStringList { u"model.layers.3.mlp.up_proj.weight"_s,
                                     u"model.layers.3.self_attn.q_proj.weight"_s };
}
void tst_Layers::unreadableBlocks()
{
    QFETCH(int, cut);
    QFETCH(QStringList, unreadable);
    QTemporaryDir dir;
    const QString path = dir.filePath(u"m.safetensors"_s);
    writtenModel(4).write(path);
    QVERIFY(QFile::resize(path, QFileInfo(path).size() - cut));
    std::string error;
    const auto checkpoint = Checkpoint::open(path.toStdString(), error);
    QVERIFY2(checkpoint, error.c_str());
    const auto repeats = detectRepeats(*checkpoint);
    QCOMPARE(repeats.size(), 1u);
    const auto profiles = profileRepeats(*checkpoint, repeats, {});
    QVERIFY(profiles);
    const Repeat &repeat = repeats[0];
    const RepeatProfile &profile = (*profiles)[0];
    QStringList named;
    for (std::size_t position : profile.unreadable) {
        const std::string name = repeat.tensorName(position);
        QCOMPARE(checkpoint->tensors()[repeat.table[position]].info->name, name);
        named << QString::fromStdString(name);
        // No values for it: NaN, as for a block without the role.
        const std::size_t role = position % repeat.roles.size(), column = position / repeat.roles.size();
        QVERIFY(std::isnan(profile.roles[role][std::size_t(DepthStat::Mean)][column]));
    }
    QCOMPARE(named, unreadable);
    QVERIFY(!std::isnan(profile.roles[0][std::size_t(DepthStat::Mean)][0]));
    QStringList inJson;
    const Json json = layersJson(repeats, &*profiles);
    for (const auto &name : json["repeats"][0]["unreadable"])
        inJson << QString::fromStdString(name.get<std::string>());
    QCOMPARE(inJson, unreadable);
}

// B is A with layer 2's q_proj changed and layer 4's up_proj gone: rel-L2 is 0 and cosine 1
// everywhere else, NaN where B has no tensor.
void tst_Layers::diffByLayerSeries()
{
    QTemporaryDir dir;
    WrittenModel a = writtenModel(6);
    WrittenModel b = a;
    for (float &x : b["model.layers.2.self_attn.q_proj.weight"])
        x = -x;
    const std::size_t gone = b.find("model.layers.4.mlp.up_proj.weight");
    b.specs.erase(b.specs.begin() + static_cast<std::ptrdiff_t>(gone));
    b.values.erase(b.values.begin() + static_cast<std::ptrdiff_t>(gone));
    const auto ca = a.write(dir.filePath(u"a.safetensors"_s));
    const auto cb = b.write(dir.filePath(u"b.safetensors"_s));
    const auto comparison = compareCheckpoints(*ca, *cb, {});
    QVERIFY(comparison);
    const LayerDiff diff = diffByLayer(*comparison);
    QCOMPARE(diff.repeats.size(), 1u);
    const Repeat &repeat = diff.repeats[0];
    QCOMPARE(repeat.roles.size(), 3u);
    for (std::size_t role = 0; role < 3; ++role) {
        for (std::size_t column = 0; column < 6; ++column) {
            const double relL2 = diff.diffs[0].roles[role][std::size_t(DiffMetric::RelL2)][column];
            const double cosine = diff.diffs[0].roles[role][std::size_t(DiffMetric::Cosine)][column];
            const std::string &name = repeat.roles[role].name;
            if (column == 4 && name == "mlp.up_proj.weight") {
                QVERIFY(std::isnan(relL2) && std::isnan(cosine));
            } else if (column == 2 && name == "self_attn.q_proj.weight") {
                QVERIFY(near(relL2, 2.0));
                QVERIFY(near(cosine, -1.0));
            } else {
                QCOMPARE(relL2, 0.0);
                QCOMPARE(cosine, 1.0);
            }
        }
    }
}

// The JSON shapes of the issue: nested prefixes with {N}, outer_index, null where absent.
void tst_Layers::json()
{
    NameSet names = moe(2, 3);
    names.remove("model.layers.1.mlp.experts.2.up_proj.weight");
    const auto pointers = names.pointers();
    const auto repeats = detectRepeats(pointers);
    TensorStats stats;
    stats.count = 4;
    stats.mean = 0.5;
    stats.std = 0;
    const StatsLookup lookup = [&](std::size_t) { return &stats; };
    std::vector<RepeatProfile> profiles;
    for (const auto &repeat : repeats)
        profiles.push_back(profileRepeat(repeat, lookup));
    const Json j = layersJson(repeats, &profiles);
    const Json &layers = j["repeats"][0];
    JSON_COMPARE(layers["prefix"], "model.layers");
    JSON_COMPARE(layers["indices"], Json({ 0, 1 }));
    JSON_COMPARE(layers["missing"], Json::array());
    JSON_COMPARE(layers["roles"][0]["name"], "input_layernorm.weight");
    JSON_COMPARE(layers["roles"][0]["dtype"], "BF16");
    JSON_COMPARE(layers["roles"][0]["shape"], Json({ 64, 64 }));
    JSON_COMPARE(layers["profiles"]["input_layernorm.weight"]["mean"], Json({ 0.5, 0.5 }));
    JSON_COMPARE(layers["outliers"], Json::array());
    const Json &experts = layers["repeats"][0];
    JSON_COMPARE(experts["prefix"], "model.layers.{N}.mlp.experts");
    JSON_COMPARE(experts["outer_indices"], Json({ 0, 1 }));
    JSON_COMPARE(experts["indices"], Json({ 0, 1, 2 }));
    QCOMPARE(experts["deviations"].size(), 1u);
    JSON_COMPARE(experts["deviations"][0]["index"], 2);
    JSON_COMPARE(experts["deviations"][0]["outer_index"], 1);
    JSON_COMPARE(experts["deviations"][0]["kind"], "missing_role");
    JSON_COMPARE(
        experts["profiles"]["up_proj.weight"]["mean"], Json::parse("[[0.5,0.5,0.5],[0.5,0.5,null]]"));
    QVERIFY(!experts.contains("repeats"));
}

QTEST_GUILESS_MAIN(tst_Layers)
#include "tst_layers.moc"
