// safetensors-inspect on quantized checkpoints: `info` reports schemes and effective parameters,
// `audit` and `diff` measure dequantized values (or the raw codes with --raw); `export` and
// `heatmap` read dequantized values by default, the stored codes with --raw.
#include "tests/support/inspectprocess.h"
#include "tests/support/quantfixtures.h"
#include "tests/support/valuedata.h"

#include <QDir>
#include <QFile>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QSet>
#include <QTemporaryDir>
#include <QTest>

#include <algorithm>
#include <cmath>
#include <cstring>

using namespace Qt::StringLiterals;
using namespace stb;
using namespace stb::test;

namespace {

QJsonObject jsonOf(const InspectRun &run)
{
    return QJsonDocument::fromJson(run.out.toUtf8()).object();
}

// The row of `diff --json` named `name`, or an empty object.
QJsonObject diffRow(const InspectRun &run, const QString &name)
{
    for (const auto &r : QJsonDocument::fromJson(run.out.toUtf8()).object()[u"tensors"_s].toArray()) {
        if (r.toObject()[u"name"_s].toString() == name)
            return r.toObject();
    }
    return {};
}

QSet<QString> keysOf(const QJsonObject &o)
{
    const QStringList keys = o.keys();
    return QSet<QString>(keys.begin(), keys.end());
}

} // namespace

class tst_InspectQuant : public QObject {
    Q_OBJECT

private slots:
    void initTestCase()
    {
        QVERIFY(m_dir.isValid());
        m_gptq = gptq("model.layers.0.mlp.down_proj", 32, 128, 4, 32);
        m_fp8 = fp8Block("model.layers.0.mlp.up_proj", 128, 32);
        m_norm = plainBf16("model.norm.weight", { 32 });
        std::string error;
        QVERIFY(writeFixtures(path(u"mixed.safetensors"_s), { m_gptq, m_fp8, m_norm }, error));
        QVERIFY(writeFixtures(path(u"plain.safetensors"_s), { m_norm }, error));
        QuantFixture broken = fp8Block("model.layers.1.mlp.up_proj", 64, 64);
        broken.specs.pop_back(); // no weight_scale_inv
        broken.data.pop_back();
        QVERIFY(writeFixtures(path(u"broken.safetensors"_s), { broken }, error));

        // For diff: the GPTQ weight alone, its original floats as F32 under the logical name, and
        // the GPTQ weight with one scale doubled.
        QVERIFY(writeFixtures(path(u"gptq.safetensors"_s), { m_gptq }, error));
        QuantFixture original;
        original.specs = { { m_gptq.weight, DType::F32, m_gptq.shape } };
        original.data = { floatBytes(m_gptq.original) };
        QVERIFY(writeFixtures(path(u"original.safetensors"_s), { original }, error));
        QuantFixture rescaled = m_gptq;
        const auto scales = std::find_if(rescaled.specs.begin(), rescaled.specs.end(),
            [](const TensorSpec &s) { return s.name.ends_with(".scales"); });
        QVERIFY(scales != rescaled.specs.end());
        auto &scaleBytes = rescaled.data[std::size_t(scales - rescaled.specs.begin())];
        std::uint16_t first = 0;
        std::memcpy(&first, scaleBytes.data(), 2);
        first = halfBits(2 * halfValue(first));
        std::memcpy(scaleBytes.data(), &first, 2);
        QVERIFY(writeFixtures(path(u"rescaled.safetensors"_s), { rescaled }, error));
    }

    void infoJson()
    {
        const InspectRun run = runInspect({ u"info"_s, u"--json"_s, qpath(u"mixed.safetensors"_s) });
        QCOMPARE(run.exitCode, 0);
        const QJsonObject q = jsonOf(run)[u"quantization"_s].toObject();
        QCOMPARE(keysOf(q),
            (QSet<QString> { u"schemes"_s, u"effective_parameters"_s, u"bits_per_weight"_s, u"weights"_s }));
        QCOMPARE(q[u"effective_parameters"_s].toInteger(), qint64(32 * 128 + 128 * 32 + 32));
        const double bytes = double(m_gptq.bytes + m_fp8.bytes + 64);
        QCOMPARE(q[u"bits_per_weight"_s].toDouble(), 8 * bytes / double(32 * 128 + 128 * 32 + 32));
        const QJsonArray schemes = q[u"schemes"_s].toArray();
        QCOMPARE(schemes.size(), 2);
        const QJsonObject fp8 = schemes[0].toObject(), gptq = schemes[1].toObject();
        QCOMPARE(keysOf(gptq),
            (QSet<QString> {
                u"scheme"_s, u"bits"_s, u"group_size"_s, u"weights"_s, u"parameters"_s, u"bytes"_s }));
        QCOMPARE(fp8[u"scheme"_s].toString(), u"fp8-block"_s);
        QCOMPARE(gptq[u"scheme"_s].toString(), u"gptq"_s);
        QCOMPARE(gptq[u"bits"_s].toInt(), 4);
        QCOMPARE(gptq[u"group_size"_s].toInt(), 32);
        QCOMPARE(gptq[u"weights"_s].toInt(), 1);
        QCOMPARE(gptq[u"parameters"_s].toInteger(), qint64(32 * 128));
        QCOMPARE(gptq[u"bytes"_s].toInteger(), qint64(m_gptq.bytes));
        const QJsonArray weights = q[u"weights"_s].toArray();
        QCOMPARE(weights.size(), 2);
        const auto it = std::find_if(weights.begin(), weights.end(),
            [](const QJsonValue &w) { return w.toObject()[u"scheme"_s].toString() == u"gptq"_s; });
        QVERIFY(it != weights.end());
        const QJsonObject w = it->toObject();
        QCOMPARE(keysOf(w),
            (QSet<QString> { u"name"_s, u"scheme"_s, u"bits"_s, u"group_size"_s, u"logical_shape"_s,
                u"parameters"_s, u"companions"_s }));
        QCOMPARE(w[u"name"_s].toString(), u"model.layers.0.mlp.down_proj.weight"_s);
        QCOMPARE(w[u"logical_shape"_s].toArray(), (QJsonArray { 32, 128 }));
        QCOMPARE(w[u"companions"_s].toArray().size(), 3);
    }

    void infoJsonWithoutQuantization()
    {
        const QJsonObject q
            = jsonOf(runInspect({ u"info"_s, u"--json"_s, qpath(u"plain.safetensors"_s) }))[u"quantization"_s]
                  .toObject();
        QCOMPARE(q[u"schemes"_s].toArray().size(), 0);
        QCOMPARE(q[u"weights"_s].toArray().size(), 0);
        QVERIFY(q[u"bits_per_weight"_s].isNull());
        QCOMPARE(q[u"effective_parameters"_s].toInteger(), qint64(32));
    }

    void infoNotRecognised()
    {
        // config.json names a method whose tensors match no layout: said, never guessed.
        QVERIFY(QDir(m_dir.path()).mkpath(u"hqq"_s));
        QFile config(m_dir.filePath(u"hqq/config.json"_s));
        QVERIFY(config.open(QIODevice::WriteOnly));
        config.write(R"({"quantization_config": {"quant_method": "hqq", "nbits": 4}})");
        config.close();
        std::string error;
        QVERIFY(writeFixtures(path(u"hqq/model.safetensors"_s), { m_norm }, error));
        const InspectRun run = runInspect({ u"info"_s, qpath(u"hqq/model.safetensors"_s) });
        QCOMPARE(run.exitCode, 0);
        QVERIFY2(run.out.contains(u"not recognised (config.json says quant_method \"hqq\"); values are raw"_s),
            qPrintable(run.out));
        const QJsonObject q
            = jsonOf(runInspect({ u"info"_s, u"--json"_s, qpath(u"hqq/model.safetensors"_s) }))[u"quantization"_s]
                  .toObject();
        QCOMPARE(q[u"schemes"_s].toArray().size(), 0);
        QCOMPARE(q[u"effective_parameters"_s].toInteger(), qint64(32));
    }

    void infoWarnings()
    {
        const QJsonObject info
            = jsonOf(runInspect({ u"info"_s, u"--json"_s, qpath(u"broken.safetensors"_s) }));
        QStringList rules;
        for (const auto &w : info[u"warnings"_s].toArray())
            rules << w.toObject()[u"rule"_s].toString();
        QVERIFY2(rules.contains(u"quant-missing-scale"_s), qPrintable(rules.join(u", "_s)));
    }

    void infoText()
    {
        const InspectRun run = runInspect({ u"info"_s, qpath(u"mixed.safetensors"_s) });
        QCOMPARE(run.exitCode, 0);
        QVERIFY2(
            run.out.contains(u"gptq 4-bit, group 32: 1 weight, 4,096 parameters"_s), qPrintable(run.out));
        QVERIFY(run.out.contains(u"fp8-block 8-bit, group 128: 1 weight"_s));
        QVERIFY(run.out.contains(u"Effective:    8,224 parameters"_s));
    }

    void auditDequantized()
    {
        const InspectRun run = runInspect({ u"audit"_s, u"--json"_s, qpath(u"mixed.safetensors"_s) });
        QCOMPARE(run.exitCode, 0);
        const QJsonArray rows = jsonOf(run)[u"tensors"_s].toArray();
        QJsonObject weight;
        int schemeRows = 0, companionRows = 0;
        for (const auto &r : rows) {
            const QJsonObject row = r.toObject();
            schemeRows += row.contains(u"scheme"_s);
            companionRows += row.contains(u"companion_of"_s);
            if (row[u"name"_s].toString() == u"model.layers.0.mlp.down_proj.weight"_s)
                weight = row;
            QVERIFY(row[u"name"_s].toString() != u"model.layers.0.mlp.down_proj.qweight"_s);
        }
        QCOMPARE(rows.size(), 2 + 4 + 1); // two weights, four companions, the norm
        QCOMPARE(schemeRows, 2);
        QCOMPARE(companionRows, 4);
        QCOMPARE(weight[u"scheme"_s].toString(), u"gptq"_s);
        QCOMPARE(weight[u"shape"_s].toArray(), (QJsonArray { 32, 128 }));
        QCOMPARE(weight[u"count"_s].toInteger(), qint64(32 * 128));
        QCOMPARE(weight[u"min"_s].toDouble(),
            double(*std::min_element(m_gptq.expected.begin(), m_gptq.expected.end())));
        QCOMPARE(weight[u"max"_s].toDouble(),
            double(*std::max_element(m_gptq.expected.begin(), m_gptq.expected.end())));
    }

    void auditRaw()
    {
        const InspectRun run
            = runInspect({ u"audit"_s, u"--json"_s, u"--raw"_s, qpath(u"mixed.safetensors"_s) });
        QCOMPARE(run.exitCode, 0);
        QStringList names;
        for (const auto &r : jsonOf(run)[u"tensors"_s].toArray()) {
            QVERIFY(!r.toObject().contains(u"scheme"_s));
            names << r.toObject()[u"name"_s].toString();
        }
        QVERIFY(names.contains(u"model.layers.0.mlp.down_proj.qweight"_s));
    }

    // A quantized model against its original: one pair under the logical name, the scheme for a
    // dtype, and the quantization error as its metrics.
    void diffAgainstOriginal()
    {
        const InspectRun run = runInspect(
            { u"diff"_s, u"--json"_s, qpath(u"gptq.safetensors"_s), qpath(u"original.safetensors"_s) });
        QCOMPARE(run.exitCode, 1);
        const QJsonObject row = diffRow(run, QString::fromStdString(m_gptq.weight));
        QCOMPARE(row[u"status"_s].toString(), u"dtype_changed"_s);
        QCOMPARE(row[u"a"_s].toObject()[u"scheme"_s].toString(), u"gptq"_s);
        QCOMPARE(row[u"a"_s].toObject()[u"shape"_s].toArray(), (QJsonArray { 32, 128 }));
        QVERIFY(!row[u"b"_s].toObject().contains(u"scheme"_s));
        double maxError = 0;
        for (std::size_t i = 0; i < m_gptq.original.size(); ++i)
            maxError = std::max(maxError, std::fabs(double(m_gptq.expected[i]) - double(m_gptq.original[i])));
        QVERIFY(maxError > 0);
        QCOMPARE(row[u"max_abs_diff"_s].toDouble(), maxError);
        QVERIFY(row[u"cosine"_s].toDouble() > 0.99);
        // The companions have no counterpart; the codes are not a pair of their own.
        QCOMPARE(diffRow(run, QString::fromStdString(m_gptq.specs[1].name))[u"status"_s].toString(),
            u"only_in_a"_s);
        QVERIFY(diffRow(run, u"model.layers.0.mlp.down_proj.qweight"_s).isEmpty());
    }

    // Two quantized models: identical when every dequantized value is, changed (under the
    // logical name) when a scale differs.
    void diffQuantizedPairs()
    {
        const InspectRun same = runInspect(
            { u"diff"_s, u"--json"_s, qpath(u"gptq.safetensors"_s), qpath(u"gptq.safetensors"_s) });
        QCOMPARE(same.exitCode, 0);
        QCOMPARE(
            diffRow(same, QString::fromStdString(m_gptq.weight))[u"status"_s].toString(), u"identical"_s);

        const InspectRun run = runInspect(
            { u"diff"_s, u"--json"_s, qpath(u"gptq.safetensors"_s), qpath(u"rescaled.safetensors"_s) });
        QCOMPARE(run.exitCode, 1);
        const QJsonObject row = diffRow(run, QString::fromStdString(m_gptq.weight));
        QCOMPARE(row[u"status"_s].toString(), u"changed"_s);
        QCOMPARE(row[u"a"_s].toObject()[u"scheme"_s].toString(), u"gptq"_s);
        QVERIFY(row[u"n_different"_s].toInteger() > 0);
        QVERIFY(row[u"n_different"_s].toInteger() <= 32); // one scale covers one group of one column
    }

    void diffRaw()
    {
        const InspectRun run = runInspect({ u"diff"_s, u"--json"_s, u"--raw"_s, qpath(u"gptq.safetensors"_s),
            qpath(u"original.safetensors"_s) });
        QCOMPARE(run.exitCode, 1);
        QCOMPARE(
            diffRow(run, u"model.layers.0.mlp.down_proj.qweight"_s)[u"status"_s].toString(), u"only_in_a"_s);
        QCOMPARE(diffRow(run, QString::fromStdString(m_gptq.weight))[u"status"_s].toString(), u"only_in_b"_s);
    }

    void diffText()
    {
        const InspectRun run
            = runInspect({ u"diff"_s, qpath(u"gptq.safetensors"_s), qpath(u"original.safetensors"_s) });
        QVERIFY2(run.out.contains(u"gptq [32, 128]"_s), qPrintable(run.out));
    }

    // export writes a quantized weight dequantized to float32 in its logical shape, by its logical
    // name or its codes' name; --raw writes the stored codes tensor.
    void exportDequantized_data()
    {
        QTest::addColumn<QString>("name");
        QTest::addColumn<bool>("gptqWeight");
        QTest::newRow("gptq by logical name") << u"model.layers.0.mlp.down_proj.weight"_s << true;
        QTest::newRow("gptq by codes") << u"model.layers.0.mlp.down_proj.qweight"_s << true;
        QTest::newRow("fp8-block") << u"model.layers.0.mlp.up_proj.weight"_s << false;
    }
    void exportDequantized()
    {
        QFETCH(QString, name);
        QFETCH(bool, gptqWeight);
        const QuantFixture &f = gptqWeight ? m_gptq : m_fp8;
        const QString out = qpath(u"dq.npy"_s);
        const InspectRun run = runInspect({ u"export"_s, qpath(u"mixed.safetensors"_s), name, u"-o"_s, out });
        QCOMPARE(run.exitCode, 0);
        QVERIFY2(run.out.contains(u"dequantized to float32"_s), qPrintable(run.out));
        const NpyFile npy = readNpy(out);
        QCOMPARE(npy.descr, u"<f4"_s);
        QCOMPARE(npy.shape, QList<quint64>(f.shape.begin(), f.shape.end()));
        QCOMPARE(npy.data.size(), qsizetype(f.expected.size() * 4));
        std::vector<float> back(f.expected.size());
        std::memcpy(back.data(), npy.data.constData(), npy.data.size());
        for (std::size_t e = 0; e < back.size(); ++e)
            QVERIFY(std::fabs(back[e] - f.expected[e]) <= 1e-6f * std::fabs(f.expected[e]));

        // A slice of the logical shape: one row.
        const InspectRun row = runInspect(
            { u"export"_s, qpath(u"mixed.safetensors"_s), name, u"-o"_s, out, u"--slice"_s, u"3,:"_s });
        QCOMPARE(row.exitCode, 0);
        const NpyFile sliced = readNpy(out);
        QCOMPARE(sliced.shape, QList<quint64>({ f.shape.back() }));
        std::vector<float> third(f.shape.back());
        std::memcpy(third.data(), sliced.data.constData(), sliced.data.size());
        QCOMPARE(third.back(), f.expected[4 * f.shape.back() - 1]);
    }
    void exportRaw()
    {
        const QString out = qpath(u"raw.npy"_s);
        const InspectRun run = runInspect({ u"export"_s, qpath(u"mixed.safetensors"_s),
            u"model.layers.0.mlp.down_proj.weight"_s, u"-o"_s, out, u"--raw"_s });
        QCOMPARE(run.exitCode, 0);
        QVERIFY(!run.out.contains(u"dequantized"_s));
        const NpyFile npy = readNpy(out);
        QCOMPARE(npy.descr, u"<i4"_s); // the packed qweight as stored
        QCOMPARE(npy.shape, QList<quint64>({ 128 * 4 / 32, 32 }));
        QCOMPARE(npy.data,
            QByteArray(reinterpret_cast<const char *>(m_gptq.data.front().data()),
                qsizetype(m_gptq.data.front().size())));
    }
    // heatmap --json on dequantized values by default, the codes with --raw.
    void heatmapDequantized()
    {
        const InspectRun run = runInspect({ u"heatmap"_s, qpath(u"mixed.safetensors"_s),
            u"model.layers.0.mlp.down_proj.weight"_s, u"--size"_s, u"1x1"_s, u"--json"_s });
        QCOMPARE(run.exitCode, 0);
        const QJsonObject grid = jsonOf(run);
        QCOMPARE(grid[u"rows"_s].toInteger(), 32);
        QCOMPARE(grid[u"cols"_s].toInteger(), 128);
        const auto [lo, hi] = std::minmax_element(m_gptq.expected.begin(), m_gptq.expected.end());
        QCOMPARE(grid[u"min"_s].toArray()[0].toArray()[0].toDouble(), double(*lo));
        QCOMPARE(grid[u"max"_s].toArray()[0].toArray()[0].toDouble(), double(*hi));
        const InspectRun raw = runInspect({ u"heatmap"_s, qpath(u"mixed.safetensors"_s),
            u"model.layers.0.mlp.down_proj.weight"_s, u"--size"_s, u"1x1"_s, u"--json"_s, u"--raw"_s });
        QCOMPARE(raw.exitCode, 0);
        QCOMPARE(jsonOf(raw)[u"rows"_s].toInteger(), 128 * 4 / 32); // qweight [in·bits/32, out]
    }

    // locate scans dequantized values in the logical shape by default, the codes with --raw.
    void locateDequantized()
    {
        const InspectRun run = runInspect({ u"locate"_s, u"--json"_s, qpath(u"mixed.safetensors"_s),
            u"model.layers.0.mlp.down_proj.qweight"_s });
        QCOMPARE(run.exitCode, 0);
        const QJsonObject json = jsonOf(run);
        QCOMPARE(json[u"tensor"_s].toString(), u"model.layers.0.mlp.down_proj.weight"_s);
        QCOMPARE(json[u"count"_s].toInteger(), 32 * 128);
        const auto maxAt = std::max_element(m_gptq.expected.begin(), m_gptq.expected.end());
        const QJsonObject max = json[u"max"_s].toObject();
        QCOMPARE(max[u"index"_s].toInteger(), qint64(maxAt - m_gptq.expected.begin()));
        QCOMPARE(max[u"value"_s].toDouble(), double(*maxAt));
        QCOMPARE(max[u"nd_index"_s].toArray().size(), 2);
        const InspectRun raw = runInspect({ u"locate"_s, u"--json"_s, u"--raw"_s,
            qpath(u"mixed.safetensors"_s), u"model.layers.0.mlp.down_proj.weight"_s });
        QCOMPARE(raw.exitCode, 0);
        QCOMPARE(jsonOf(raw)[u"count"_s].toInteger(), 128 * 4 / 32 * 32); // the packed words
    }

private:
    struct NpyFile {
        QString descr;
        QList<quint64> shape;
        QByteArray data;
    };
    static NpyFile readNpy(const QString &path)
    {
        QFile file(path);
        if (!file.open(QIODevice::ReadOnly))
            return {};
        const QByteArray bytes = file.readAll();
        const int length = quint8(bytes[8]) | (quint8(bytes[9]) << 8);
        const QString dict = QString::fromLatin1(bytes.mid(10, length));
        NpyFile npy;
        const int d = dict.indexOf(u"'descr': '"_s) + 10;
        npy.descr = dict.mid(d, dict.indexOf(u'\'', d) - d);
        const int s = dict.indexOf(u"'shape': ("_s) + 10;
        for (const QString &part : dict.mid(s, dict.indexOf(u')', s) - s).split(u',', Qt::SkipEmptyParts))
            npy.shape.append(part.trimmed().toULongLong());
        npy.data = bytes.mid(10 + length);
        return npy;
    }

    std::string path(const QString &name) const { return m_dir.filePath(name).toStdString(); }
    QString qpath(const QString &name) const { return m_dir.filePath(name); }

    QTemporaryDir m_dir;
    QuantFixture m_gptq, m_fp8, m_norm;
};

QTEST_GUILESS_MAIN(tst_InspectQuant)
#include "tst_inspectquant.moc"
