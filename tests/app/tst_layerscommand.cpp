// `safetensors-inspect layers` and `diff --by-layer` as processes: text and the JSON shapes of
// issue 12, exit codes, and hostile names escaped and cut in text.
#include "core/format/writer.h"
#include "tests/support/inspectprocess.h"
#include "tests/support/testfiles.h"

#include <QFile>
#include <QFileInfo>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QSet>
#include <QTemporaryDir>
#include <QTest>

using namespace Qt::StringLiterals;
using namespace stb;
using stb::test::runInspect;

class tst_LayersCommand : public QObject {
    Q_OBJECT

private slots:
    void text();
    void json();
    void stats();
    void unreadableBlocks_data();
    void unreadableBlocks();
    void byLayer();
    void hostileNames();

private:
    // `layers` blocks of two F32 roles, values from `value(tensor name, element)`.
    QString write(const QString &file, int layers,
        const std::function<float(const std::string &, std::size_t)> &value,
        const std::function<void(std::vector<TensorSpec> &)> &edit = {});
    QTemporaryDir m_dir;
};

QString tst_LayersCommand::write(const QString &file, int layers,
    const std::function<float(const std::string &, std::size_t)> &value,
    const std::function<void(std::vector<TensorSpec> &)> &edit)
{
    std::vector<TensorSpec> specs { { "model.embed_tokens.weight", DType::F32, { 4, 4 } } };
    for (int l = 0; l < layers; ++l) {
        specs.push_back(
            { "model.layers." + std::to_string(l) + ".mlp.up_proj.weight", DType::F32, { 4, 8 } });
        specs.push_back(
            { "model.layers." + std::to_string(l) + ".self_attn.q_proj.weight", DType::F32, { 4, 4 } });
    }
    if (edit)
        edit(specs);
    const QString path = m_dir.filePath(file);
    test::writeCheckpoint(path.toStdString(), specs,
        [&](std::size_t spec, std::size_t element) { return value(specs[spec].name, element); });
    return path;
}

namespace {

float plain(const std::string &, std::size_t e)
{
    return 1.0f + 0.01f * static_cast<float>(e % 7);
}

QJsonObject parse(const QString &out)
{
    QJsonParseError error;
    const auto doc = QJsonDocument::fromJson(out.toUtf8(), &error);
    if (error.error != QJsonParseError::NoError)
        qWarning() << error.errorString() << out.left(400);
    return doc.object();
}

} // namespace

void tst_LayersCommand::text()
{
    const QString clean = write(u"clean.safetensors"_s, 6, plain);
    auto run = runInspect({ u"layers"_s, clean });
    QCOMPARE(run.exitCode, 0);
    QVERIFY2(run.out.contains(u"model.layers.{0\u20135} \u00d7 6: 2 roles"_s), qPrintable(run.out));
    QVERIFY(run.out.contains(u"self_attn.q_proj.weight  F32 [4, 4]"_s));

    const QString bent = write(u"bent.safetensors"_s, 6, plain, [](std::vector<TensorSpec> &specs) {
        specs[6].shape = { 4, 2 }; // layer 2's q_proj
        specs.erase(specs.begin() + 9, specs.begin() + 11); // layer 4
    });
    run = runInspect({ u"layers"_s, bent });
    QCOMPARE(run.exitCode, 1);
    QVERIFY2(run.out.contains(u"missing: 4"_s), qPrintable(run.out));
    QVERIFY(run.out.contains(u"2  self_attn.q_proj.weight  shape: [4, 2] where 4 of 5 blocks have [4, 4]"_s));

    run = runInspect({ u"layers"_s, u"--help"_s });
    QCOMPARE(run.exitCode, 0);
    QVERIFY(run.out.contains(u"--stats"_s));
}

void tst_LayersCommand::json()
{
    const QString path = write(u"json.safetensors"_s, 4, plain);
    const auto run = runInspect({ u"layers"_s, u"--json"_s, path });
    QCOMPARE(run.exitCode, 0);
    const QJsonObject root = parse(run.out);
    const QJsonArray repeats = root[u"repeats"_s].toArray();
    QCOMPARE(repeats.size(), 1);
    const QJsonObject layers = repeats[0].toObject();
    QCOMPARE(layers.keys(),
        (QStringList { u"deviations"_s, u"indices"_s, u"missing"_s, u"prefix"_s, u"roles"_s }));
    QCOMPARE(layers[u"prefix"_s].toString(), u"model.layers"_s);
    QCOMPARE(layers[u"indices"_s].toArray(), (QJsonArray { 0, 1, 2, 3 }));
    QCOMPARE(layers[u"missing"_s].toArray(), QJsonArray());
    const QJsonObject role = layers[u"roles"_s].toArray()[0].toObject();
    QCOMPARE(role[u"name"_s].toString(), u"mlp.up_proj.weight"_s);
    QCOMPARE(role[u"dtype"_s].toString(), u"F32"_s);
    QCOMPARE(role[u"shape"_s].toArray(), (QJsonArray { 4, 8 }));
}

// Layer 3's q_proj a hundred times larger: flagged as an outlier; profiles hold one value per index.
void tst_LayersCommand::stats()
{
    const QString path = write(u"stats.safetensors"_s, 10, [](const std::string &name, std::size_t e) {
        return plain(name, e) * (name == "model.layers.3.self_attn.q_proj.weight" ? 100.0f : 1.0f);
    });
    auto run = runInspect({ u"layers"_s, u"--stats"_s, u"--json"_s, path });
    QCOMPARE(run.exitCode, 1);
    const QJsonObject layers = parse(run.out)[u"repeats"_s].toArray()[0].toObject();
    const QJsonObject profiles = layers[u"profiles"_s].toObject();
    QCOMPARE(profiles.keys(), (QStringList { u"mlp.up_proj.weight"_s, u"self_attn.q_proj.weight"_s }));
    const QJsonObject q = profiles[u"self_attn.q_proj.weight"_s].toObject();
    QCOMPARE(q.keys(),
        (QStringList { u"abs_max"_s, u"mean"_s, u"nonfinite"_s, u"rms"_s, u"std"_s, u"zero_fraction"_s }));
    QCOMPARE(q[u"mean"_s].toArray().size(), 10);
    QCOMPARE(q[u"nonfinite"_s].toArray()[0].toDouble(), 0.0);
    QSet<int> flaggedIndices;
    for (const auto &o : layers[u"outliers"_s].toArray()) {
        const QJsonObject outlier = o.toObject();
        QCOMPARE(outlier.keys(), (QStringList { u"index"_s, u"role"_s, u"stat"_s, u"value"_s, u"z"_s }));
        QCOMPARE(outlier[u"role"_s].toString(), u"self_attn.q_proj.weight"_s);
        flaggedIndices << outlier[u"index"_s].toInt();
    }
    QCOMPARE(flaggedIndices, QSet<int> { 3 });

    run = runInspect({ u"layers"_s, u"--stats"_s, path });
    QCOMPARE(run.exitCode, 1);
    QVERIFY2(run.out.contains(u"outliers along depth (|z| > 6):"_s), qPrintable(run.out));
    QVERIFY(run.out.contains(u"  3  self_attn.q_proj.weight  mean = "_s));
}

// Blocks `model.layers.{i}.w` (F32 [4], 16 bytes, in that order in the file) with the file cut
// short: the profiles miss the blocks whose bytes are gone, one bounded warning names them, and
// layers --stats exits 1 as audit does; JSON lists them per repeat.
void tst_LayersCommand::unreadableBlocks_data()
{
    QTest::addColumn<int>("blocks");
    QTest::addColumn<int>("cut"); // bytes cut off the end
    QTest::addColumn<QString>("warning"); // all of stderr
    QTest::addColumn<int>("unreadable"); // names in JSON
    QTest::newRow("whole") << 8 << 0 << QString() << 0;
    QTest::newRow("four blocks gone")
        << 8 << 64
        << u"warning: 4 tensors cannot be read, left out of the profiles: \"model.layers.4.w\", "
           "\"model.layers.5.w\", \"model.layers.6.w\", \"model.layers.7.w\" (the first: bytes "_s
        << 4;
    QTest::newRow("one block cut short")
        << 8 << 4
        << u"warning: 1 tensor cannot be read, left out of the profiles: \"model.layers.7.w\" (bytes "_s << 1;
    // Bounded: the first five, then how many more.
    QTest::newRow("eight of ten gone")
        << 10 << 128
        << u"\"model.layers.2.w\", \"model.layers.3.w\", \"model.layers.4.w\", \"model.layers.5.w\", "
           "\"model.layers.6.w\" and 3 more (the first: "_s
        << 8;
}
void tst_LayersCommand::unreadableBlocks()
{
    QFETCH(int, blocks);
    QFETCH(int, cut);
    QFETCH(QString, warning);
    QFETCH(int, unreadable);
    // Single digits: name order is file order.
    const QString path = write(u"cut.safetensors"_s, 0, plain, [&](std::vector<TensorSpec> &specs) {
        specs.clear();
        for (int i = 0; i < blocks; ++i)
            specs.push_back({ "model.layers." + std::to_string(i) + ".w", DType::F32, { 4 } });
    });
    QVERIFY(QFile::resize(path, QFileInfo(path).size() - cut));

    auto run = runInspect({ u"layers"_s, u"--stats"_s, path });
    QCOMPARE(run.exitCode, unreadable ? 1 : 0);
    if (warning.isEmpty()) {
        QVERIFY2(run.err.isEmpty(), qPrintable(run.err));
    } else {
        QVERIFY2(run.err.startsWith(path + u": "_s), qPrintable(run.err));
        QVERIFY2(run.err.contains(warning), qPrintable(run.err));
        QCOMPARE(run.err.count(u'\n'), 1); // one line however many
        QVERIFY2(run.err.contains(u"lie past the end of the file"_s), qPrintable(run.err));
    }

    run = runInspect({ u"layers"_s, u"--stats"_s, u"--json"_s, path });
    QCOMPARE(run.exitCode, unreadable ? 1 : 0);
    const QJsonArray names = parse(run.out)[u"repeats"_s].toArray()[0].toObject()[u"unreadable"_s].toArray();
    QCOMPARE(names.size(), unreadable);
    if (unreadable)
        QCOMPARE(names.last().toString(), u"model.layers.%1.w"_s.arg(blocks - 1));
    // Without --stats nothing is read: no warning.
    run = runInspect({ u"layers"_s, path });
    QCOMPARE(run.exitCode, 0);
    QVERIFY(run.err.isEmpty());
}

// B: layer 1's q_proj negated, layer 2's up_proj gone.
void tst_LayersCommand::byLayer()
{
    const QString a = write(u"a.safetensors"_s, 3, plain);
    const QString b = write(
        u"b.safetensors"_s, 3,
        [](const std::string &name, std::size_t e) {
            return plain(name, e) * (name == "model.layers.1.self_attn.q_proj.weight" ? -1.0f : 1.0f);
        },
        [](std::vector<TensorSpec> &specs) { specs.erase(specs.begin() + 5); });
    auto run = runInspect({ u"diff"_s, u"--by-layer"_s, u"--json"_s, a, b });
    QCOMPARE(run.exitCode, 1);
    const QJsonObject layers = parse(run.out)[u"repeats"_s].toArray()[0].toObject();
    QCOMPARE(layers.keys(), (QStringList { u"indices"_s, u"prefix"_s, u"roles"_s }));
    const QJsonObject roles = layers[u"roles"_s].toObject();
    auto values = [&](const QString &role, const QString &metric) {
        QStringList out;
        for (const auto &v : roles[role].toObject()[metric].toArray())
            out << (v.isNull() ? u"null"_s : QString::number(v.toDouble(), 'f', 6));
        return out.join(u' ');
    };
    QCOMPARE(values(u"self_attn.q_proj.weight"_s, u"rel_l2"_s), u"0.000000 2.000000 0.000000"_s);
    QCOMPARE(values(u"self_attn.q_proj.weight"_s, u"cosine"_s), u"1.000000 -1.000000 1.000000"_s);
    QCOMPARE(values(u"mlp.up_proj.weight"_s, u"rel_l2"_s), u"0.000000 0.000000 null"_s);

    run = runInspect({ u"diff"_s, u"--by-layer"_s, a, b });
    QCOMPARE(run.exitCode, 1);
    QVERIFY2(run.out.contains(u"model.layers.{0\u20132} \u00d7 3"_s), qPrintable(run.out));
    QVERIFY(run.out.contains(u"self_attn.q_proj.weight"_s));
}

// Control characters never reach the terminal raw; a 5,000-byte role name is cut.
void tst_LayersCommand::hostileNames()
{
    const std::string evil = "\x1b[31mred" + std::string(5000, 'x');
    const QString path = write(u"hostile.safetensors"_s, 3, plain, [&](std::vector<TensorSpec> &specs) {
        for (int l = 0; l < 3; ++l)
            specs.push_back({ "model.layers." + std::to_string(l) + "." + evil, DType::F32, { 1 } });
    });
    const auto run = runInspect({ u"layers"_s, path });
    QCOMPARE(run.exitCode, 0);
    QVERIFY(!run.out.contains(QChar(0x1b)));
    QVERIFY(run.out.contains(u"\\x1b[31mred"_s)); // escape.h: \xNN in text
    for (const QString &line : run.out.split(u'\n'))
        QVERIFY2(line.size() < 400, qPrintable(line.left(100)));
}

QTEST_GUILESS_MAIN(tst_LayersCommand)
#include "tst_layerscommand.moc"
