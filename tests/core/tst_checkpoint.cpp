// Sharded checkpoints: an index and its shards seen as one model, and the audit of the index
// against the shards.
#include "core/format/writer.h"
#include "core/io/checkpoint.h"
#include "core/io/readability.h"
#include "tests/support/ruletostring.h"
#include "tests/support/testfiles.h"

#include <QTemporaryDir>
#include <QTest>

#include <algorithm>
#include <fstream>

using namespace stb;

Q_DECLARE_METATYPE(std::vector<stb::Rule>)

namespace {

// Two shards of a small model: a.* and b.* tensors in shard 1, c.* in shard 2.
const char *const kShard1 = "model-00001-of-00002.safetensors";
const char *const kShard2 = "model-00002-of-00002.safetensors";

void writeShard(const std::string &path, const std::vector<std::string> &names)
{
    std::vector<TensorSpec> specs;
    std::vector<std::vector<std::byte>> data;
    for (const auto &name : names) {
        specs.push_back({name, DType::F32, {2, 2}});
        data.emplace_back(16, std::byte{1});
    }
    std::string error;
    QVERIFY2(writeFile(path, specs, data, {{"format", "pt"}}, error), error.c_str());
}

using Rules = std::vector<Rule>;

Rules rules(const Checkpoint &checkpoint)
{
    Rules out;
    for (const auto &d : checkpoint.diagnostics())
        out.push_back(d.rule);
    std::sort(out.begin(), out.end());
    return out;
}

} // namespace

class tst_Checkpoint : public QObject {
    Q_OBJECT

private slots:
    void init()
    {
        m_dir = std::make_unique<QTemporaryDir>();
        QVERIFY(m_dir->isValid());
        writeShard(path(kShard1), {"a.weight", "b.weight"});
        writeShard(path(kShard2), {"c.weight"});
    }

    void singleFile()
    {
        std::string error;
        const auto checkpoint = Checkpoint::open(path(kShard1), error);
        QVERIFY(checkpoint);
        QVERIFY(!checkpoint->isSharded());
        QVERIFY(checkpoint->valid());
        QCOMPARE(checkpoint->tensors().size(), std::size_t(2));
        QVERIFY(checkpoint->index() == nullptr);
    }

    void audit_data()
    {
        QTest::addColumn<QString>("weightMap");
        QTest::addColumn<QString>("totalSize");
        QTest::addColumn<Rules>("expectedRules");
        const QString good = QStringLiteral(R"("a.weight": "%1", "b.weight": "%1", "c.weight": "%2")")
                                 .arg(QLatin1String(kShard1), QLatin1String(kShard2));
        QTest::newRow("consistent") << good << QStringLiteral("48") << Rules{};
        QTest::newRow("no total_size") << good << QString() << Rules{};
        QTest::newRow("total_size wrong") << good << QStringLiteral("49") << Rules{Rule::IndexTotalSize};
        QTest::newRow("listed but missing")
            << good + QStringLiteral(R"(, "d.weight": "%1")").arg(QLatin1String(kShard2)) << QString()
            << Rules{Rule::IndexMissingTensor};
        QTest::newRow("present but unlisted")
            << QStringLiteral(R"("a.weight": "%1", "c.weight": "%2")").arg(QLatin1String(kShard1), QLatin1String(kShard2))
            << QString() << Rules{Rule::IndexUnlistedTensor};
        QTest::newRow("listed in the wrong shard")
            << QStringLiteral(R"("a.weight": "%2", "b.weight": "%1", "c.weight": "%2")").arg(QLatin1String(kShard1), QLatin1String(kShard2))
            << QString() << Rules{Rule::IndexWrongShard};
        QTest::newRow("missing shard file")
            << good + QStringLiteral(R"(, "d.weight": "model-00003-of-00003.safetensors")") << QString()
            << Rules{Rule::IndexMissingShard};
        QTest::newRow("shard name with a slash")
            << good + QStringLiteral(R"(, "d.weight": "sub/x.safetensors")") << QString()
            << Rules{Rule::IndexShardName};
        QTest::newRow("shard name with ..")
            << good + QStringLiteral(R"(, "d.weight": "..")") << QString() << Rules{Rule::IndexShardName};
        QTest::newRow("shard name is a URL")
            << good + QStringLiteral(R"(, "d.weight": "https:x.safetensors")") << QString()
            << Rules{Rule::IndexShardName};
        QTest::newRow("absolute shard name")
            << good + QStringLiteral(R"(, "d.weight": "/etc/passwd")") << QString() << Rules{Rule::IndexShardName};
        // A name listed twice: the last entry counts (here the wrong shard), and the repeat is said.
        QTest::newRow("listed twice, last in the wrong shard")
            << good + QStringLiteral(R"(, "a.weight": "%1")").arg(QLatin1String(kShard2)) << QString()
            << Rules{Rule::IndexDuplicateTensor, Rule::IndexWrongShard};
        QTest::newRow("listed twice in its shard") << good + QStringLiteral(R"(, "a.weight": "%1")").arg(QLatin1String(kShard1))
                                                   << QString() << Rules{};
    }
    void audit()
    {
        QFETCH(QString, weightMap);
        QFETCH(QString, totalSize);
        QFETCH(Rules, expectedRules);
        const std::string index = writeIndex(weightMap, totalSize);
        std::string error;
        const auto checkpoint = Checkpoint::open(index, error);
        QVERIFY2(checkpoint, error.c_str());
        QVERIFY(checkpoint->isSharded());
        QCOMPARE(rules(*checkpoint), expectedRules);
        QCOMPARE(checkpoint->valid(), expectedRules.empty());
        QCOMPARE(checkpoint->tensors().size(), std::size_t(3));
        for (const auto &s : checkpoint->shards())
            QVERIFY(!s || s->path().find(m_dir->path().toStdString()) == 0); // never outside the folder
    }

    // Tensors the index lists that no shard holds are kept, with why, so that reports can name
    // them as unreadable instead of leaving them out.
    void absentTensors_data()
    {
        QTest::addColumn<QString>("weightMap");
        QTest::addColumn<QStringList>("absent"); // "name: reason"
        const QString good = QStringLiteral(R"("a.weight": "%1", "b.weight": "%1", "c.weight": "%2")")
                                 .arg(QLatin1String(kShard1), QLatin1String(kShard2));
        QTest::newRow("consistent") << good << QStringList {};
        QTest::newRow("listed in the wrong shard")
            << QStringLiteral(R"("a.weight": "%2", "b.weight": "%1", "c.weight": "%2")")
                   .arg(QLatin1String(kShard1), QLatin1String(kShard2))
            << QStringList {};
        QTest::newRow("not in its shard")
            << good + QStringLiteral(R"(, "d.weight": "%1")").arg(QLatin1String(kShard2))
            << QStringList {
                   QStringLiteral("d.weight: shard \"%1\" does not hold it").arg(QLatin1String(kShard2))
               };
        QTest::newRow("missing shard file")
            << good + QStringLiteral(R"(, "e.weight": "gone.safetensors", "d.weight": "gone.safetensors")")
            << QStringList {
                   QStringLiteral(
                       "e.weight: shard \"gone.safetensors\" cannot be read: No such file or directory"),
                   QStringLiteral(
                       "d.weight: shard \"gone.safetensors\" cannot be read: No such file or directory")
               };
        QTest::newRow("refused shard name")
            << good + QStringLiteral(R"(, "d.weight": "sub/x.safetensors")")
            << QStringList { QStringLiteral("d.weight: shard name \"sub/x.safetensors\" is refused (not a "
                                            "plain file name next to the index)") };
        // Listed twice: the entry that counts (the last) decides.
        QTest::newRow("listed twice, last in a missing shard")
            << good + QStringLiteral(R"(, "a.weight": "gone.safetensors")") << QStringList {};
    }
    void absentTensors()
    {
        QFETCH(QString, weightMap);
        QFETCH(QStringList, absent);
        std::string error;
        const auto checkpoint = Checkpoint::open(writeIndex(weightMap, QString()), error);
        QVERIFY2(checkpoint, error.c_str());
        QStringList found;
        for (const auto &t : checkpoint->absentTensors())
            found << QString::fromStdString(std::string(t.name) + ": " + checkpoint->absentReason(t));
        QCOMPARE(found, absent);
    }

    // Why a tensor present in a shard cannot be read: the byte range past the end, or a byte
    // range that does not fit its dtype and shape.
    void unreadableReasons_data()
    {
        QTest::addColumn<QByteArray>("header");
        QTest::addColumn<int>("dataBytes");
        QTest::addColumn<QString>("reason");
        const QByteArray f32x4 = R"({"w":{"dtype":"F32","shape":[4],"data_offsets":[0,16]}})";
        QTest::newRow("whole") << f32x4 << 16 << QString();
        // The header is 55 bytes: data starts at byte 63.
        QTest::newRow("truncated") << f32x4 << 8
                                   << QStringLiteral(
                                          "bytes 71\u201379 lie past the end of the file (file is 71 bytes)");
        QTest::newRow("nothing of it")
            << QByteArray(R"({"w":{"dtype":"F32","shape":[4],"data_offsets":[8,24]}})") << 4
            << QStringLiteral("bytes 71\u201387 lie past the end of the file (file is 67 bytes)");
        QTest::newRow("size does not fit")
            << QByteArray(R"({"w":{"dtype":"F32","shape":[4],"data_offsets":[0,12]}})") << 12
            << QStringLiteral("its shape and dtype call for 16 bytes but data_offsets span 12");
    }
    void unreadableReasons()
    {
        QFETCH(QByteArray, header);
        QFETCH(int, dataBytes);
        QFETCH(QString, reason);
        const std::string file = path("one.safetensors");
        QVERIFY(test::writeBytes(file, test::rawFile(header.toStdString(), std::size_t(dataBytes))));
        std::string error;
        const auto checkpoint = Checkpoint::open(file, error);
        QVERIFY2(checkpoint, error.c_str());
        QCOMPARE(checkpoint->tensors().size(), std::size_t(1));
        QCOMPARE(QString::fromStdString(unreadableReason(*checkpoint, checkpoint->tensors()[0])), reason);
    }

    // Opening an index reports shards opened: one step per shard, in order, ending at the total.
    void progressCountsShards()
    {
        const std::string index = writeIndex(QStringLiteral(R"("a.weight": "%1", "b.weight": "%1", "c.weight": "%2")")
                                                 .arg(QLatin1String(kShard1), QLatin1String(kShard2)),
                                             QString());
        std::vector<std::pair<std::uint64_t, std::uint64_t>> steps;
        std::string error;
        const auto checkpoint = Checkpoint::open(
            index, error, [&](std::uint64_t done, std::uint64_t total) { steps.emplace_back(done, total); });
        QVERIFY2(checkpoint, error.c_str());
        QCOMPARE(steps.size(), std::size_t(2));
        QCOMPARE(steps[0], std::make_pair(std::uint64_t(1), std::uint64_t(2)));
        QCOMPARE(steps[1], std::make_pair(std::uint64_t(2), std::uint64_t(2)));
    }

    // Index problems come in file order (the first 10,000 are kept), whatever the names' order.
    void listedProblemsInFileOrder()
    {
        const std::string index = writeIndex(QStringLiteral(R"("a.weight": "%1", "b.weight": "%1", "c.weight": "%2", )"
                                                            R"("z.gone": "%1", "m.gone": "%1", "b.gone": "%2")")
                                                 .arg(QLatin1String(kShard1), QLatin1String(kShard2)),
                                             QString());
        std::string error;
        const auto checkpoint = Checkpoint::open(index, error);
        QVERIFY(checkpoint);
        QStringList tensors;
        for (const auto &d : checkpoint->diagnostics())
            tensors << QString::fromStdString(d.tensor);
        QCOMPARE(tensors, (QStringList{QStringLiteral("z.gone"), QStringLiteral("m.gone"), QStringLiteral("b.gone")}));
        QCOMPARE(checkpoint->index()->weightMap.size(), std::size_t(6));
        QCOMPARE(checkpoint->index()->shards.size(), std::size_t(2)); // each shard name stored once
        QCOMPARE(checkpoint->index()->tensor(checkpoint->index()->weightMap[3]), std::string_view("z.gone"));
    }

    void tensorInTwoShards()
    {
        writeShard(path(kShard2), {"c.weight", "a.weight"});
        const std::string index = writeIndex(QStringLiteral(R"("a.weight": "%1", "b.weight": "%1", "c.weight": "%2")")
                                                 .arg(QLatin1String(kShard1), QLatin1String(kShard2)),
                                             QString());
        std::string error;
        const auto checkpoint = Checkpoint::open(index, error);
        QVERIFY(checkpoint);
        QCOMPARE(rules(*checkpoint), Rules{Rule::IndexDuplicateTensor});
        QVERIFY(!checkpoint->valid());
    }

    void brokenShardMakesModelInvalid()
    {
        std::ofstream(path(kShard2), std::ios::binary | std::ios::trunc) << "garbage!";
        const std::string index = writeIndex(QStringLiteral(R"("a.weight": "%1", "b.weight": "%1")").arg(QLatin1String(kShard1))
                                                 + QStringLiteral(R"(, "x": "%1")").arg(QLatin1String(kShard2)),
                                             QString());
        std::string error;
        const auto checkpoint = Checkpoint::open(index, error);
        QVERIFY(checkpoint);
        QVERIFY(!checkpoint->valid());
        QVERIFY(checkpoint->firstError());
        QCOMPARE(checkpoint->firstError()->rule, Rule::IndexMissingTensor);
        QCOMPARE(checkpoint->problemCount(), std::size_t(2)); // the tensor and the broken shard
    }

    void malformedIndex_data()
    {
        QTest::addColumn<QByteArray>("json");
        QTest::newRow("not JSON") << QByteArray("weight_map");
        QTest::newRow("array") << QByteArray("[]");
        QTest::newRow("no weight_map") << QByteArray(R"({"metadata": {}})");
        QTest::newRow("weight_map not an object") << QByteArray(R"({"weight_map": []})");
        QTest::newRow("shard not a string") << QByteArray(R"({"weight_map": {"a": 1}})");
        QTest::newRow("total_size negative") << QByteArray(R"({"metadata": {"total_size": -1}, "weight_map": {}})");
        QTest::newRow("invalid UTF-8") << QByteArray("{\"weight_map\": {\"\xff\": \"x\"}}");
    }
    void malformedIndex()
    {
        QFETCH(QByteArray, json);
        const std::string index = path("model.safetensors.index.json");
        std::ofstream(index, std::ios::binary | std::ios::trunc) << json.toStdString();
        std::string error;
        const auto checkpoint = Checkpoint::open(index, error);
        QVERIFY(checkpoint);
        QVERIFY(!checkpoint->valid());
        QCOMPARE(checkpoint->firstError()->rule, Rule::IndexJson);
    }

private:
    std::string path(const char *name) const { return (m_dir->path() + u'/' + QLatin1String(name)).toStdString(); }

    std::string writeIndex(const QString &weightMap, const QString &totalSize)
    {
        const QString metadata = totalSize.isEmpty() ? QString() : QStringLiteral(R"("metadata": {"total_size": %1}, )").arg(totalSize);
        const std::string index = path("model.safetensors.index.json");
        std::ofstream(index, std::ios::trunc) << QStringLiteral("{%1\"weight_map\": {%2}}").arg(metadata, weightMap).toStdString();
        return index;
    }

    std::unique_ptr<QTemporaryDir> m_dir;
};

QTEST_GUILESS_MAIN(tst_Checkpoint)
#include "tst_checkpoint.moc"
