// The whole-checkpoint audit: a checkpoint with planted anomalies where each flag must fire on
// exactly the right tensor and nowhere else, duplicates by name order, the summary, sharded
// checkpoints, the JSON report, and `safetensors-inspect audit` as a process.
#include "core/audit/audit.h"
#include "core/audit/auditexpected.h"
#include "core/audit/auditflags.h"
#include "core/audit/auditreport.h"
#include "core/format/writer.h"
#include "core/io/checkpoint.h"
#include "tests/support/inspectprocess.h"
#include "tests/support/testfiles.h"

#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QSet>
#include <QTemporaryDir>
#include <QTest>

#include <algorithm>
#include <bit>
#include <cmath>
#include <cstring>
#include <fstream>
#include <map>
#include <random>
#include <set>

using namespace Qt::StringLiterals;
using namespace stb;

Q_DECLARE_METATYPE(stb::AuditFlag)

namespace {

constexpr float kNaNf = std::numeric_limits<float>::quiet_NaN();
constexpr float kInff = std::numeric_limits<float>::infinity();

// One planted tensor: its bytes, and what the audit must say about it.
struct Planted {
    TensorSpec spec;
    std::vector<std::byte> bytes;
    QStringList flags;
    QString duplicateOf;
};

template<typename T> std::vector<std::byte> bytesOf(const std::vector<T> &values)
{
    std::vector<std::byte> out(values.size() * sizeof(T));
    std::memcpy(out.data(), values.data(), out.size());
    return out;
}

std::uint16_t bf16(float value)
{
    return static_cast<std::uint16_t>(std::bit_cast<std::uint32_t>(value) >> 16);
}

// IEEE half from a float that half holds exactly (the values used here: ±0.5 steps, NaN, Inf).
std::uint16_t f16(float value)
{
    if (std::isnan(value))
        return 0x7E00;
    if (std::isinf(value))
        return value > 0 ? 0x7C00 : 0xFC00;
    const std::uint32_t bits = std::bit_cast<std::uint32_t>(value);
    const std::uint32_t sign = (bits >> 16) & 0x8000;
    if (value == 0)
        return static_cast<std::uint16_t>(sign);
    const int exponent = static_cast<int>((bits >> 23) & 0xFF) - 127 + 15;
    return static_cast<std::uint16_t>(
        sign | static_cast<std::uint32_t>(exponent) << 10 | ((bits >> 13) & 0x3FF));
}

// Uniform values in [-1, 1]: never 6 standard deviations (0.58) from their mean.
std::vector<float> uniform(std::size_t n, unsigned seed)
{
    std::mt19937 rng(seed);
    std::uniform_real_distribution<float> dist(-1.0f, 1.0f);
    std::vector<float> values(n);
    for (auto &v : values)
        v = dist(rng);
    return values;
}

std::vector<std::uint16_t> toBf16(const std::vector<float> &values)
{
    std::vector<std::uint16_t> out;
    for (float v : values)
        out.push_back(bf16(v));
    return out;
}

// Halves in [-1, 1] on a grid of 1/8, so f16() holds them exactly.
std::vector<std::uint16_t> halfGrid(std::size_t n, unsigned seed)
{
    std::mt19937 rng(seed);
    std::vector<std::uint16_t> out;
    for (std::size_t i = 0; i < n; ++i)
        out.push_back(f16(static_cast<float>(static_cast<int>(rng() % 17) - 8) / 8.0f));
    return out;
}

std::vector<Planted> plantedTensors()
{
    std::vector<Planted> t;
    auto add = [&](std::string name, DType dtype, std::vector<std::uint64_t> shape,
                   std::vector<std::byte> bytes, QStringList flags = {}, QString duplicateOf = {}) {
        t.push_back({ { std::move(name), dtype, std::move(shape) }, std::move(bytes), std::move(flags),
            std::move(duplicateOf) });
    };
    add("clean.bf16", DType::BF16, { 32, 16 }, bytesOf(toBf16(uniform(512, 1))));
    add("clean.f32", DType::F32, { 1000 }, bytesOf(uniform(1000, 2)));
    std::vector<std::int64_t> positions(64);
    for (std::size_t i = 0; i < positions.size(); ++i)
        positions[i] = static_cast<std::int64_t>(i);
    add("clean.i64", DType::I64, { 1, 64 }, bytesOf(positions));

    auto withNan = toBf16(uniform(64, 3));
    withNan[5] = withNan[60] = 0x7FC0;
    add("has.nan", DType::BF16, { 8, 8 }, bytesOf(withNan), { u"nan"_s });
    auto withInf = uniform(100, 4);
    withInf[10] = kInff;
    add("has.inf", DType::F32, { 100 }, bytesOf(withInf), { u"inf"_s });
    auto both = halfGrid(50, 5);
    both[0] = f16(kNaNf);
    both[49] = f16(-kInff);
    add("has.nan_and_inf", DType::F16, { 50 }, bytesOf(both), { u"nan"_s, u"inf"_s });

    std::vector<float> zeros(32, 0.0f);
    zeros[3] = zeros[17] = -0.0f;
    add("zeros", DType::F32, { 4, 8 }, bytesOf(zeros), { u"all_zero"_s });
    add("constant", DType::F16, { 128 }, bytesOf(std::vector<std::uint16_t>(128, f16(0.5f))),
        { u"constant"_s });
    auto spiky = uniform(1003, 6);
    spiky[100] = spiky[500] = 1000.0f;
    spiky[900] = -1000.0f;
    add("outliers", DType::F32, { 1003 }, bytesOf(spiky), { u"outlier:3"_s });

    const auto original
        = bytesOf(std::vector<std::int32_t> { 3, 1, 4, 1, 5, 9, 2, 6, 5, 3, 5, 8, 9, 7, 9, 3 });
    add("dup.a", DType::I32, { 16 }, original);
    add("dup.b", DType::I32, { 4, 4 }, original, { u"duplicate"_s }, u"dup.a"_s);
    auto almost = original;
    almost[63] ^= std::byte { 1 };
    add("near.a", DType::I32, { 16 }, almost);
    std::vector<std::uint8_t> ramp(256);
    for (std::size_t i = 0; i < ramp.size(); ++i)
        ramp[i] = static_cast<std::uint8_t>(i);
    // Name order: tri.x < tri.y < tri.z; both later ones point at the first.
    add("tri.y", DType::U8, { 256 }, bytesOf(ramp), { u"duplicate"_s }, u"tri.x"_s);
    add("tri.x", DType::U8, { 256 }, bytesOf(ramp));
    add("tri.z", DType::U8, { 16, 16 }, bytesOf(ramp), { u"duplicate"_s }, u"tri.x"_s);

    // Without per-tensor digests the audit digests only tensors whose statistics match another's
    // (or that share a byte length across dtypes) and whose first, middle and last 4 KiB do too:
    // the same values in another order match in every statistic but are no duplicate, and a
    // sample tells; two values swapped between the samples only the whole digest tells. The same
    // bytes under another dtype are a duplicate.
    auto values = uniform(300, 7);
    add("perm.a", DType::F32, { 300 }, bytesOf(values));
    std::reverse(values.begin(), values.end());
    add("perm.b", DType::F32, { 300 }, bytesOf(values));
    auto wide = uniform(8192, 8); // 32 KiB: sampled at [0, 4K), [14K, 18K), [28K, 32K)
    add("swap.a", DType::F32, { 8192 }, bytesOf(wide));
    std::swap(wide[2048], wide[2049]); // bytes 8192-8199
    add("swap.b", DType::F32, { 8192 }, bytesOf(wide));
    const auto pattern = bytesOf(std::vector<std::int32_t> { 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12 });
    add("cross.f32", DType::F32, { 12 }, pattern);
    add("cross.i32", DType::I32, { 3, 4 }, pattern, { u"duplicate"_s }, u"cross.f32"_s);

    add("scalar", DType::F32, {}, bytesOf(std::vector<float> { 3.0f }));
    add("empty.a", DType::F32, { 0 }, {});
    add("empty.b", DType::F32, { 0, 4 }, {});
    return t;
}

using Run = stb::test::InspectRun;

Run inspect(const QStringList &arguments) { return stb::test::runInspect(arguments); }

// The flags as JSON and text spell them.
QStringList toStringList(const std::vector<AuditFlag> &flags)
{
    QStringList out;
    for (const auto &f : flags)
        out << QString::fromStdString(auditFlagId(f));
    return out;
}

} // namespace

class tst_Audit : public QObject {
    Q_OBJECT

private slots:
    void initTestCase();
    void flags_data();
    void flags();
    void flagIds_data();
    void flagIds();
    void everyTensorAudited();
    void sameWithAnyThreads();
    void duplicatesWithoutDigests_data();
    void duplicatesWithoutDigests();
    void summary();
    void summaryText_data();
    void summaryText();
    void cancelAndProgress();
    void unreadableAndInvalid_data();
    void unreadableAndInvalid();
    void sharded();
    void json();
    void cli_data();
    void cli();
    void cliBins();
    void expectedPatterns_data();
    void expectedPatterns();
    void ignoredRulesAndNames();
    void globMatch_data();
    void globMatch();
    void flagWords();

private:
    QString path(const QString &name) const { return m_dir.filePath(name); }
    bool write(const QString &file, const std::vector<Planted> &tensors);
    const AuditEntry *entry(const QString &name) const;

    QTemporaryDir m_dir;
    std::vector<Planted> m_planted;
    QString m_plantedPath;
    std::shared_ptr<const Checkpoint> m_checkpoint;
    std::optional<AuditResult> m_audit;
};

bool tst_Audit::write(const QString &file, const std::vector<Planted> &tensors)
{
    std::vector<TensorSpec> specs;
    std::vector<std::vector<std::byte>> data;
    for (const auto &t : tensors) {
        specs.push_back(t.spec);
        data.push_back(t.bytes);
    }
    std::string error;
    const bool ok = writeFile(file.toStdString(), specs, data, { { "format", "pt" } }, error);
    if (!ok)
        qWarning("%s", error.c_str());
    return ok;
}

const AuditEntry *tst_Audit::entry(const QString &name) const
{
    for (const auto &e : m_audit->entries) {
        if (QString::fromStdString(m_checkpoint->tensors()[e.tensor].info->name) == name)
            return &e;
    }
    return nullptr;
}

void tst_Audit::initTestCase()
{
    QVERIFY(m_dir.isValid());
    m_planted = plantedTensors();
    m_plantedPath = path(u"planted.safetensors"_s);
    QVERIFY(write(m_plantedPath, m_planted));
    std::string error;
    m_checkpoint = Checkpoint::open(m_plantedPath.toStdString(), error);
    QVERIFY2(m_checkpoint && m_checkpoint->valid(), error.c_str());
    AnalysisOptions options;
    options.threads = 2;
    m_audit = auditCheckpoint(*m_checkpoint, options);
    QVERIFY(m_audit);
}

// Flags are typed in core; their identifiers (the JSON contract) are made only at the edge.
void tst_Audit::flagIds_data()
{
    QTest::addColumn<AuditFlag>("flag");
    QTest::addColumn<QString>("id");
    QTest::addColumn<bool>("unusable");
    using Kind = AuditFlag::Kind;
    QTest::newRow("unreadable") << AuditFlag{Kind::Unreadable} << u"unreadable"_s << true;
    QTest::newRow("nan") << AuditFlag{Kind::Nan} << u"nan"_s << true;
    QTest::newRow("inf") << AuditFlag{Kind::Inf} << u"inf"_s << true;
    QTest::newRow("all_zero") << AuditFlag{Kind::AllZero} << u"all_zero"_s << false;
    QTest::newRow("constant") << AuditFlag{Kind::Constant} << u"constant"_s << false;
    QTest::newRow("outlier") << AuditFlag{Kind::Outlier, 3} << u"outlier:3"_s << false;
    QTest::newRow("outlier, many") << AuditFlag{Kind::Outlier, 1'000'000} << u"outlier:1000000"_s << false;
    QTest::newRow("duplicate") << AuditFlag{Kind::Duplicate} << u"duplicate"_s << false;
}

void tst_Audit::flagIds()
{
    QFETCH(AuditFlag, flag);
    QFETCH(QString, id);
    QFETCH(bool, unusable);
    QCOMPARE(QString::fromStdString(auditFlagId(flag)), id);
    QCOMPARE(flag.unusable(), unusable);
}

void tst_Audit::flags_data()
{
    QTest::addColumn<QString>("name");
    QTest::addColumn<QStringList>("flags");
    QTest::addColumn<QString>("duplicateOf");
    for (const auto &t : plantedTensors())
        QTest::newRow(t.spec.name.c_str()) << QString::fromStdString(t.spec.name) << t.flags << t.duplicateOf;
}

void tst_Audit::flags()
{
    QFETCH(QString, name);
    QFETCH(QStringList, flags);
    QFETCH(QString, duplicateOf);
    const AuditEntry *e = entry(name);
    QVERIFY(e);
    QVERIFY(e->readable);
    QCOMPARE(toStringList(e->flags), flags);
    if (duplicateOf.isEmpty()) {
        QCOMPARE(e->duplicateOf, std::ptrdiff_t(-1));
    } else {
        QVERIFY(e->duplicateOf >= 0);
        const auto &original = m_audit->entries[static_cast<std::size_t>(e->duplicateOf)];
        QCOMPARE(QString::fromStdString(m_checkpoint->tensors()[original.tensor].info->name), duplicateOf);
        QVERIFY(original.analysis.digest);
        QCOMPARE(original.analysis.digest, e->analysis.digest);
    }
    // The statistics behind the flags, counted here from the planted bytes' design.
    const TensorInfo &info = *m_checkpoint->tensors()[e->tensor].info;
    QCOMPARE(e->analysis.stats.count, *info.elementCount());
    if (name == u"has.nan"_s)
        QCOMPARE(e->analysis.stats.nan, std::uint64_t(2));
    if (name == u"has.nan_and_inf"_s) {
        QCOMPARE(e->analysis.stats.nan, std::uint64_t(1));
        QCOMPARE(e->analysis.stats.negInf, std::uint64_t(1));
    }
    if (name == u"zeros"_s)
        QCOMPARE(e->analysis.stats.zeros, std::uint64_t(32));
    if (name == u"outliers"_s)
        QCOMPARE(e->analysis.outliers, std::uint64_t(3));
}

// Nothing audited twice or left out, in name order.
void tst_Audit::everyTensorAudited()
{
    QStringList audited;
    for (const auto &e : m_audit->entries)
        audited << QString::fromStdString(m_checkpoint->tensors()[e.tensor].info->name);
    QStringList planted;
    for (const auto &t : m_planted)
        planted << QString::fromStdString(t.spec.name);
    planted.sort();
    QCOMPARE(audited, planted);
}

void tst_Audit::sameWithAnyThreads()
{
    for (unsigned threads : { 1u, 3u }) {
        AnalysisOptions options;
        options.threads = threads;
        const auto other = auditCheckpoint(*m_checkpoint, options);
        QVERIFY(other);
        QCOMPARE(other->entries.size(), m_audit->entries.size());
        for (std::size_t i = 0; i < other->entries.size(); ++i) {
            QCOMPARE(other->entries[i].tensor, m_audit->entries[i].tensor);
            QCOMPARE(other->entries[i].flags, m_audit->entries[i].flags);
            QCOMPARE(other->entries[i].duplicateOf, m_audit->entries[i].duplicateOf);
            QCOMPARE(other->entries[i].analysis.digest, m_audit->entries[i].analysis.digest);
            QCOMPARE(
                other->entries[i].analysis.histogram.counts, m_audit->entries[i].analysis.histogram.counts);
        }
    }
}

void tst_Audit::duplicatesWithoutDigests_data()
{
    QTest::addColumn<unsigned>("bins");
    QTest::newRow("audit --json: 10 bins") << 10u;
    QTest::newRow("audit's table: no histogram") << 0u;
}

// What safetensors-inspect runs: no digest per tensor, the same findings; only the tensors
// that could duplicate another (same byte length, same statistics or another dtype, and the
// same sampled bytes) were digested. Without a histogram the statistics tell fewer tensors
// apart; the findings stay the same.
void tst_Audit::duplicatesWithoutDigests()
{
    QFETCH(unsigned, bins);
    AnalysisOptions options;
    options.digest = false;
    options.bins = bins;
    const auto fast = auditCheckpoint(*m_checkpoint, options);
    QVERIFY(fast);
    QCOMPARE(fast->entries.size(), m_audit->entries.size());
    QSet<QString> digested;
    for (std::size_t i = 0; i < fast->entries.size(); ++i) {
        const AuditEntry &e = fast->entries[i];
        const QString name = QString::fromStdString(m_checkpoint->tensors()[e.tensor].info->name);
        QCOMPARE(e.flags, m_audit->entries[i].flags);
        QCOMPARE(e.duplicateOf, m_audit->entries[i].duplicateOf);
        if (e.analysis.digest) {
            digested << name;
            QCOMPARE(e.analysis.digest, m_audit->entries[i].analysis.digest);
        }
    }
    for (const char *name :
        { "dup.a", "dup.b", "tri.x", "tri.y", "tri.z", "swap.a", "swap.b", "cross.f32", "cross.i32" })
        QVERIFY2(digested.contains(QLatin1String(name)), name);
    for (const char *name :
        { "clean.bf16", "clean.f32", "clean.i64", "outliers", "has.inf", "empty.a", "perm.a", "perm.b" })
        QVERIFY2(!digested.contains(QLatin1String(name)), name);
}

void tst_Audit::summary()
{
    const AuditSummary &s = m_audit->summary;
    QCOMPARE(s.tensors, m_planted.size());
    std::uint64_t elements = 0, bytes = 0;
    for (const auto &t : m_planted) {
        std::uint64_t n = 1;
        for (auto d : t.spec.shape)
            n *= d;
        elements += n;
        bytes += t.bytes.size();
    }
    QCOMPARE(s.elements, elements);
    QCOMPARE(s.bytes, bytes);
    QCOMPARE(s.withNan, std::size_t(2));
    QCOMPARE(s.withInf, std::size_t(2));
    QCOMPARE(s.allZero, std::size_t(1));
    QCOMPARE(s.constant, std::size_t(1));
    QCOMPARE(s.withOutliers, std::size_t(1));
    QCOMPARE(s.duplicates, std::size_t(4));
    QCOMPARE(s.unreadable, std::size_t(0));
    QCOMPARE(QString::fromStdString(s.text()),
        u"2 tensors with NaN, 2 tensors with Inf, 1 all-zero, 1 constant, 1 with outliers, 4 duplicate pairs"_s);
}

void tst_Audit::summaryText_data()
{
    QTest::addColumn<QStringList>("tensors"); // names from plantedTensors()
    QTest::addColumn<QString>("text");
    QTest::newRow("the issue's example") << QStringList { u"has.nan"_s, u"more.nan"_s, u"zeros"_s, u"dup.a"_s,
        u"dup.b"_s, u"clean.f32"_s } << u"2 tensors with NaN, 1 all-zero, 1 duplicate pair"_s;
    QTest::newRow("NaN and Inf in one") << QStringList { u"has.nan"_s, u"has.nan_and_inf"_s, u"zeros"_s,
        u"dup.a"_s, u"dup.b"_s } << u"2 tensors with NaN, 1 tensor with Inf, 1 all-zero, 1 duplicate pair"_s;
    QTest::newRow("one of each") << QStringList { u"has.nan"_s, u"has.inf"_s, u"constant"_s, u"outliers"_s }
                                 << u"1 tensor with NaN, 1 tensor with Inf, 1 constant, 1 with outliers"_s;
    QTest::newRow("clean") << QStringList { u"clean.f32"_s, u"clean.bf16"_s, u"scalar"_s, u"empty.a"_s }
                           << u"No findings in 4 tensors"_s;
    QTest::newRow("one clean") << QStringList { u"clean.i64"_s } << u"No findings in 1 tensor"_s;
    QTest::newRow("nothing") << QStringList {} << u"No findings in 0 tensors"_s;
}

void tst_Audit::summaryText()
{
    QFETCH(QStringList, tensors);
    QFETCH(QString, text);
    std::vector<Planted> chosen;
    for (const auto &t : m_planted) {
        if (tensors.contains(QString::fromStdString(t.spec.name)))
            chosen.push_back(t);
    }
    if (tensors.contains(u"more.nan"_s)) {
        auto values = uniform(20, 12);
        values[0] = kNaNf;
        chosen.push_back({ { "more.nan", DType::F32, { 20 } }, bytesOf(values), {}, {} });
    }
    QCOMPARE(chosen.size(), static_cast<std::size_t>(tensors.size()));
    const QString file
        = path(QString::fromUtf8(QTest::currentDataTag()).replace(u' ', u'_') + u".safetensors"_s);
    QVERIFY(write(file, chosen));
    std::string error;
    const auto checkpoint = Checkpoint::open(file.toStdString(), error);
    QVERIFY(checkpoint);
    const auto audit = auditCheckpoint(*checkpoint, {});
    QVERIFY(audit);
    QCOMPARE(QString::fromStdString(audit->summary.text()), text);
}

void tst_Audit::cancelAndProgress()
{
    std::stop_source cancelled;
    cancelled.request_stop();
    QVERIFY(!auditCheckpoint(*m_checkpoint, {}, cancelled.get_token()));
    std::uint64_t last = 0, total = 0;
    bool monotonic = true;
    const auto audit
        = auditCheckpoint(*m_checkpoint, {}, {}, [&](std::uint64_t done, std::uint64_t all) {
              monotonic = monotonic && done >= last && done <= all;
              last = done;
              total = all;
          });
    QVERIFY(audit);
    QVERIFY(monotonic);
    QCOMPARE(total, m_checkpoint->totalTensorBytes());
    QCOMPARE(last, total);
}

// Two shards, one holding a 64 MiB tensor (scanned with all threads) that duplicates one in
// the other shard whose name comes first; a NaN in the second shard.
// Nothing of a checkpoint that check calls invalid can be trusted, and a tensor whose values
// cannot be read (bytes past the end, a shard the index names missing) is a finding: neither
// may end as "No findings".
void tst_Audit::unreadableAndInvalid_data()
{
    QTest::addColumn<QByteArray>("file"); // the file's bytes, or "index:" and a weight_map over a.safetensors
    QTest::addColumn<QString>("text"); // the summary, exactly
    QTest::addColumn<int>("unreadable");
    QTest::addColumn<int>("tensors");
    // Data bytes 0x40: every F32 value 3.0, so that the values raise no flag of their own.
    const std::string w = R"({"w":{"dtype":"F32","shape":[2],"data_offsets":[0,8]}})";
    auto bytes = [](const std::vector<std::byte> &b) {
        return QByteArray(reinterpret_cast<const char *>(b.data()), qsizetype(b.size()));
    };
    QTest::newRow("valid") << bytes(
        test::rawFile(R"({"w":{"dtype":"F32","shape":[1],"data_offsets":[0,4]}})", 4, 0x40))
                           << u"No findings in 1 tensor"_s << 0 << 1;
    QTest::newRow("truncated")
        << bytes(test::rawFile(w, 4, 0x40))
        << u"invalid: coverage (MetadataIncompleteBuffer) at byte 66: the tensors "
           u"need 8 bytes of data but the "
           "file holds 4 after the header: it is truncated, from tensor \"w\" on; 1 unreadable (\"w\": "
           "bytes 66\u201370 lie past the "
           "end of the file (file is 66 bytes))"_s
        << 1 << 1;
    QTest::newRow("header length past the end")
        << bytes(test::rawFile(w, 8, 0x40, 1000))
        << u"invalid: header-length (InvalidHeaderLength) at byte 0: the header length says the header ends "
           u"at "
           "byte 1,008 but the file has only 70 bytes; no other findings in 0 tensors"_s
        << 0 << 0;
    QTest::newRow("invalid, every byte readable")
        << bytes(test::rawFile(R"({"w":{"dtype":"F32","shape":[1],"data_offsets":[4,8]}})", 8, 0x40))
        << u"invalid: offsets (InvalidOffset) at byte 9: tensor \"w\" data_offsets [4, 8] begins at 4 but "
           u"the "
           "previous tensor ends at 0: a hole of 4 bytes; no other findings in 1 tensor"_s
        << 0 << 1;
    QTest::newRow("a shard missing") << QByteArray(R"(index:{"a": "a.safetensors", "b": "gone.safetensors"})")
                                     << u"invalid: index-missing-shard at byte 38: shard "
                                        u"\"gone.safetensors\" cannot be read: No such file "
                                        "or directory (2 problems in all); 1 unreadable (\"b\": shard "
                                        "\"gone.safetensors\" cannot be read: "
                                        "No such file or directory)"_s
                                     << 1 << 2;
    QTest::newRow("a tensor not in its shard")
        << QByteArray(R"(index:{"a": "a.safetensors", "c": "a.safetensors"})")
        << u"invalid: index-missing-tensor at byte 38: tensor \"c\" is listed in shard \"a.safetensors\" but "
           "no shard holds it; 1 unreadable (\"c\": shard \"a.safetensors\" does not hold it)"_s
        << 1 << 2;
}

void tst_Audit::unreadableAndInvalid()
{
    QFETCH(QByteArray, file);
    QFETCH(QString, text);
    QFETCH(int, unreadable);
    QFETCH(int, tensors);
    QString name = path(u"broken.safetensors"_s);
    if (file.startsWith("index:")) {
        QVERIFY(write(path(u"a.safetensors"_s),
            { { { "a", DType::F32, { 1 } }, bytesOf(std::vector<float> { 1 }), {}, {} } }));
        name = path(u"model.safetensors.index.json"_s);
        std::ofstream(name.toStdString()) << R"({"weight_map": )" << file.sliced(6).toStdString() << "}";
    } else {
        std::ofstream(name.toStdString(), std::ios::binary) << file.toStdString();
    }
    std::string error;
    const auto checkpoint = Checkpoint::open(name.toStdString(), error);
    QVERIFY2(checkpoint, error.c_str());
    const auto audit = auditCheckpoint(*checkpoint, {});
    QVERIFY(audit);
    QCOMPARE(QString::fromStdString(audit->summary.text()), text);
    QCOMPARE(audit->summary.unreadable, std::size_t(unreadable));
    QCOMPARE(audit->summary.tensors, std::size_t(tensors));
    QCOMPARE(audit->summary.valid, checkpoint->valid());
    QCOMPARE(audit->summary.failed(), !checkpoint->valid() || unreadable > 0);

    const Json j = auditJson(*checkpoint, *audit);
    QCOMPARE(j["valid"].get<bool>(), checkpoint->valid());
    QCOMPARE(j["error"].is_null(), checkpoint->valid());
    if (!checkpoint->valid())
        QCOMPARE(j["error"]["rule"].get<std::string>(), std::string(checkpoint->firstError()->id()));
    QCOMPARE(j["tensors"].size(), std::size_t(tensors));
    std::size_t flagged = 0;
    for (const auto &row : j["tensors"]) {
        const bool unreadableRow = row["flags"] == Json::array({ "unreadable" });
        flagged += unreadableRow;
        QCOMPARE(row.contains("unreadable"), unreadableRow); // why, beside the flag
    }
    QCOMPARE(flagged, std::size_t(unreadable));
    QVERIFY(auditMarkdown(*checkpoint, *audit).find(audit->summary.text()) != std::string::npos);
}

void tst_Audit::sharded()
{
    const std::uint64_t n = 16u << 20;
    std::vector<float> big(n);
    std::mt19937 rng(17);
    std::normal_distribution<float> normal(0.0f, 0.02f);
    for (auto &v : big)
        v = normal(rng);
    auto nan = uniform(10, 9);
    nan[4] = kNaNf;
    const std::vector<Planted> first
        = { { { "model.b.big", DType::F32, { 4096, 4096 } }, bytesOf(big), {}, {} },
              { { "model.c.norm", DType::F32, { 10 } }, bytesOf(uniform(10, 8)), {}, {} } };
    const std::vector<Planted> second
        = { { { "model.a.big", DType::F32, { 4096, 4096 } }, bytesOf(big), {}, {} },
              { { "model.d.nan", DType::F32, { 10 } }, bytesOf(nan), {}, {} } };
    QVERIFY(write(path(u"model-00001-of-00002.safetensors"_s), first));
    QVERIFY(write(path(u"model-00002-of-00002.safetensors"_s), second));
    const QString index = path(u"model.safetensors.index.json"_s);
    std::ofstream(index.toStdString())
        << R"({"metadata":{"total_size":134217808},"weight_map":{"model.b.big":"model-00001-of-00002.safetensors",)"
           R"("model.c.norm":"model-00001-of-00002.safetensors","model.a.big":"model-00002-of-00002.safetensors",)"
           R"("model.d.nan":"model-00002-of-00002.safetensors"}})";
    std::string error;
    const auto checkpoint = Checkpoint::open(index.toStdString(), error);
    QVERIFY2(checkpoint, error.c_str());
    QVERIFY(checkpoint->isSharded());
    QVERIFY(checkpoint->valid());
    const auto audit = auditCheckpoint(*checkpoint, {});
    QVERIFY(audit);
    QCOMPARE(audit->entries.size(), std::size_t(4));
    std::map<std::string, const AuditEntry *> byName;
    for (const auto &e : audit->entries)
        byName[checkpoint->tensors()[e.tensor].info->name] = &e;
    QCOMPARE(checkpoint->tensors()[byName["model.a.big"]->tensor].shard, std::size_t(1));
    QCOMPARE(toStringList(byName["model.b.big"]->flags), QStringList { u"duplicate"_s });
    QCOMPARE(
        checkpoint
            ->tensors()[audit->entries[static_cast<std::size_t>(byName["model.b.big"]->duplicateOf)].tensor]
            .info->name,
        std::string("model.a.big"));
    QCOMPARE(toStringList(byName["model.a.big"]->flags), QStringList {});
    QCOMPARE(toStringList(byName["model.d.nan"]->flags), QStringList { u"nan"_s });
    QCOMPARE(toStringList(byName["model.c.norm"]->flags), QStringList {});
    QCOMPARE(byName["model.a.big"]->analysis.stats.count, n);
    QCOMPARE(audit->summary.bytes, std::uint64_t(n * 8 + 80));
    QCOMPARE(QString::fromStdString(audit->summary.text()), u"1 tensor with NaN, 1 duplicate pair"_s);

    const Json json = auditJson(*checkpoint, *audit);
    QCOMPARE(json["tensors"].size(), std::size_t(4));
    QCOMPARE(json["tensors"][0]["shard"].get<std::string>(), std::string("model-00002-of-00002.safetensors"));
    QCOMPARE(json["tensors"][1]["duplicate_of"].get<std::string>(), std::string("model.a.big"));

    const Run run = inspect({ u"audit"_s, index });
    QCOMPARE(run.exitCode, 1);
    QVERIFY(run.out.contains(u"model.d.nan"_s));
}

// The keys the issue lists, nulls where there is no finite value, numbers equal to the stats.
void tst_Audit::json()
{
    const Json j = auditJson(*m_checkpoint, *m_audit);
    QVERIFY(j.is_object());
    std::set<std::string> top;
    for (const auto &[key, value] : j.items())
        top.insert(key);
    QCOMPARE(top, (std::set<std::string> { "file", "valid", "error", "tensors", "summary" }));
    QVERIFY(j["valid"].get<bool>());
    QVERIFY(j["error"].is_null());
    QCOMPARE(j["file"].get<std::string>(), m_plantedPath.toStdString());
    // Exactly the issue's keys.
    const std::set<std::string> expectedKeys = { "name", "dtype", "shape", "count", "nan", "pos_inf", "neg_inf",
        "zeros", "min", "max", "mean", "std", "abs_max", "histogram", "flags", "duplicate_of" };
    QCOMPARE(j["tensors"].size(), m_audit->entries.size());
    for (std::size_t i = 0; i < m_audit->entries.size(); ++i) {
        const Json &row = j["tensors"][i];
        const AuditEntry &e = m_audit->entries[i];
        const TensorStats &s = e.analysis.stats;
        std::set<std::string> keys;
        for (const auto &[key, value] : row.items())
            keys.insert(key);
        QCOMPARE(keys, expectedKeys);
        const TensorInfo &info = *m_checkpoint->tensors()[e.tensor].info;
        QCOMPARE(row["name"].get<std::string>(), info.name);
        QCOMPARE(row["dtype"].get<std::string>(), std::string(dtypeName(info.dtype)));
        QCOMPARE(row["shape"].get<std::vector<std::uint64_t>>(), info.shape);
        QCOMPARE(row["count"].get<std::uint64_t>(), s.count);
        QCOMPARE(row["nan"].get<std::uint64_t>(), s.nan);
        QCOMPARE(row["pos_inf"].get<std::uint64_t>(), s.posInf);
        QCOMPARE(row["neg_inf"].get<std::uint64_t>(), s.negInf);
        QCOMPARE(row["zeros"].get<std::uint64_t>(), s.zeros);
        const std::initializer_list<std::pair<const char *, double>> moments = { { "min", s.min },
            { "max", s.max }, { "mean", s.mean }, { "std", s.std }, { "abs_max", s.absMax } };
        for (const auto &[key, value] : moments) {
            if (s.finite) {
                QVERIFY2(row[key].is_number(), key);
                QCOMPARE(row[key].get<double>(), value);
            } else {
                QVERIFY2(row[key].is_null(), key);
            }
        }
        if (e.analysis.histogram.empty()) {
            QVERIFY(row["histogram"].is_null());
        } else {
            const Json &h = row["histogram"];
            std::set<std::string> histogramKeys;
            for (const auto &[key, value] : h.items())
                histogramKeys.insert(key);
            QCOMPARE(histogramKeys, (std::set<std::string> { "lo", "hi", "counts" }));
            // The JSON carries the histogram as analysed: the bins binlayout.h lays out.
            QCOMPARE(h["lo"].get<double>(), e.analysis.histogram.lo);
            QCOMPARE(h["hi"].get<double>(), e.analysis.histogram.hi);
            QVERIFY(h["lo"].get<double>() <= s.min && h["hi"].get<double>() >= s.max);
            QCOMPARE(h["counts"].size(), e.analysis.histogram.counts.size());
            QVERIFY(h["counts"].size() <= std::size_t(10));
            std::uint64_t sum = 0;
            for (const auto &c : h["counts"])
                sum += c.get<std::uint64_t>();
            QCOMPARE(sum, s.finite);
        }
        std::vector<std::string> ids;
        for (const auto &flag : e.flags)
            ids.push_back(auditFlagId(flag));
        QCOMPARE(row["flags"].get<std::vector<std::string>>(), ids);
        if (e.duplicateOf < 0)
            QVERIFY(row["duplicate_of"].is_null());
        else
            QVERIFY(row["duplicate_of"].is_string());
    }
    // Where there is no finite value, nulls; where all values are equal, no histogram.
    auto rowOf = [&](const std::string &name) {
        for (const auto &row : j["tensors"]) {
            if (row["name"] == name)
                return row;
        }
        return Json();
    };
    QVERIFY(rowOf("empty.a")["mean"].is_null());
    QVERIFY(rowOf("empty.a")["histogram"].is_null());
    QVERIFY(rowOf("constant")["histogram"].is_null());
    QCOMPARE(rowOf("constant")["std"].get<double>(), 0.0);
    QCOMPARE(rowOf("scalar")["mean"].get<double>(), 3.0);
    QCOMPARE(rowOf("tri.z")["duplicate_of"].get<std::string>(), std::string("tri.x"));
    QCOMPARE(rowOf("outliers")["flags"][0].get<std::string>(), std::string("outlier:3"));
    QCOMPARE(j["summary"]["text"].get<std::string>(), m_audit->summary.text());
    QCOMPARE(j["summary"]["nan"].get<std::size_t>(), std::size_t(2));
    // Strict JSON (no NaN or Infinity tokens): Qt's parser accepts it.
    QJsonParseError error;
    QJsonDocument::fromJson(QByteArray::fromStdString(j.dump()), &error);
    QCOMPARE(error.error, QJsonParseError::NoError);
}

void tst_Audit::cli_data()
{
    QTest::addColumn<QStringList>("tensors"); // names from plantedTensors(); empty: all
    QTest::addColumn<int>("exitCode");
    QTest::newRow("NaN and Inf") << QStringList {} << 1;
    QTest::newRow("NaN only") << QStringList { u"has.nan"_s, u"clean.f32"_s } << 1;
    QTest::newRow("Inf only") << QStringList { u"has.inf"_s } << 1;
    QTest::newRow("findings but finite")
        << QStringList { u"zeros"_s, u"constant"_s, u"outliers"_s, u"dup.a"_s, u"dup.b"_s } << 0;
    QTest::newRow("clean") << QStringList { u"clean.bf16"_s, u"clean.i64"_s, u"empty.b"_s } << 0;
}

// The exit code is the CI gate: 1 exactly when a tensor holds NaN or Inf; text and JSON agree.
void tst_Audit::cli()
{
    QFETCH(QStringList, tensors);
    QFETCH(int, exitCode);
    QString file = m_plantedPath;
    std::size_t count = m_planted.size();
    if (!tensors.isEmpty()) {
        std::vector<Planted> chosen;
        for (const auto &t : m_planted) {
            if (tensors.contains(QString::fromStdString(t.spec.name)))
                chosen.push_back(t);
        }
        count = chosen.size();
        file = path(
            u"cli-"_s + QString::fromUtf8(QTest::currentDataTag()).replace(u' ', u'_') + u".safetensors"_s);
        QVERIFY(write(file, chosen));
    }
    const Run text = inspect({ u"audit"_s, file });
    QCOMPARE(text.exitCode, exitCode);
    QVERIFY(text.out.contains(u"NAME"_s));
    QVERIFY(text.err.isEmpty()); // no progress line when stderr is not a terminal

    const Run json = inspect({ u"audit"_s, u"--json"_s, file });
    QCOMPARE(json.exitCode, exitCode);
    QJsonParseError error;
    const QJsonObject object = QJsonDocument::fromJson(json.out.toUtf8(), &error).object();
    QCOMPARE(error.error, QJsonParseError::NoError);
    QCOMPARE(object[u"tensors"_s].toArray().size(), static_cast<qsizetype>(count));
    const QString summary = object[u"summary"_s].toObject()[u"text"_s].toString();
    QVERIFY(!summary.isEmpty());
    QVERIFY2(text.out.contains(summary), qPrintable(text.out));
}

void tst_Audit::cliBins()
{
    for (int bins : { 1, 7, 10, 257 }) {
        QStringList arguments { u"audit"_s, u"--json"_s, m_plantedPath };
        if (bins != 10)
            arguments << u"--bins"_s << QString::number(bins);
        const Run run = inspect(arguments);
        QCOMPARE(run.exitCode, 1);
        const QJsonArray tensors = QJsonDocument::fromJson(run.out.toUtf8()).object()[u"tensors"_s].toArray();
        int withHistogram = 0;
        for (const auto &t : tensors) {
            const QJsonObject row = t.toObject();
            const QJsonValue h = row[u"histogram"_s];
            if (h.isNull())
                continue;
            ++withHistogram;
            // F32 keeps numpy's bins; integers bin on whole numbers and narrow floats on their
            // grid, so they may get fewer (binlayout.h), always over [min, max] and every finite
            // value counted once.
            const QJsonArray counts = h.toObject()[u"counts"_s].toArray();
            if (row[u"dtype"_s].toString() == u"F32"_s)
                QCOMPARE(counts.size(), bins);
            else
                QVERIFY(counts.size() >= 1 && counts.size() <= bins);
            QVERIFY(h.toObject()[u"lo"_s].toDouble() <= row[u"min"_s].toDouble());
            QVERIFY(h.toObject()[u"hi"_s].toDouble() >= row[u"max"_s].toDouble());
            double total = 0;
            for (const auto &c : counts)
                total += c.toDouble();
            QCOMPARE(total, row[u"count"_s].toDouble() - row[u"nan"_s].toDouble() - row[u"pos_inf"_s].toDouble()
                    - row[u"neg_inf"_s].toDouble());
        }
        QVERIFY(withHistogram >= 8);
    }
    QCOMPARE(inspect({ u"audit"_s, u"--bins"_s, u"0"_s, m_plantedPath }).exitCode, 2);
    QCOMPARE(inspect({ u"audit"_s, u"--bins"_s, u"many"_s, m_plantedPath }).exitCode, 2);
}

// Tensors as "name=value": 1 / 0 / 2 an F32 [4] of that constant, rN four random values of
// seed N (equal seeds make duplicates), i0 an I64 scalar 0 (a BatchNorm counter).
static std::vector<Planted> plantedFrom(const QStringList &tensors)
{
    std::vector<Planted> out;
    for (const QString &t : tensors) {
        const QString name = t.section(u'=', 0, 0), value = t.section(u'=', 1);
        if (value == u"i0"_s) {
            out.push_back({ { name.toStdString(), DType::I64, {} }, std::vector<std::byte>(8), {}, {} });
            continue;
        }
        std::vector<float> values = value.startsWith(u'r') ? uniform(4, value.mid(1).toUInt())
                                                           : std::vector<float>(4, value.toFloat());
        out.push_back({ { name.toStdString(), DType::F32, { 4 } }, bytesOf(values), {}, {} });
    }
    return out;
}

void tst_Audit::expectedPatterns_data()
{
    QTest::addColumn<QStringList>("tensors");
    QTest::addColumn<QStringList>("findings"); // tensors with a flag that counts
    QTest::addColumn<int>("expected"); // flags marked expected
    QTest::addColumn<QString>("reason"); // the summary's reasons

    const QString bn = u"layer1.0.bn1."_s;
    QTest::newRow("BatchNorm counters") << QStringList { bn + u"num_batches_tracked=i0"_s,
        u"layer1.0.bn2.num_batches_tracked=i0"_s, bn + u"weight=r1"_s }
                                        << QStringList {} << 3 << u"BatchNorm counters"_s; // 2 all zero, 1 duplicate
    QTest::newRow("BatchNorm initial statistics")
        << QStringList { bn + u"running_mean=0"_s, bn + u"running_var=1"_s, bn + u"weight=1"_s, bn + u"bias=0"_s }
        << QStringList {} << 6 << u"initial norm values"_s; // 4 constant/all zero, 2 duplicates
    QTest::newRow("a BatchNorm known by its statistics")
        << QStringList { u"layer1.0.downsample.1.weight=1"_s, u"layer1.0.downsample.1.running_var=1"_s,
               u"layer1.0.downsample.0.weight=r2"_s }
        << QStringList {} << 3 << u"initial norm values"_s;
    QTest::newRow("LayerNorm and RMSNorm weights at 1, bias at 0")
        << QStringList { u"model.norm.weight=1"_s, u"model.layers.0.input_layernorm.weight=1"_s,
               u"model.layers.0.post_attention_layernorm.bias=0"_s }
        << QStringList {} << 4 << u"initial norm values"_s;
    QTest::newRow("GPT-2: ln_f and tied wte")
        << QStringList { u"transformer.ln_f.weight=1"_s, u"transformer.wte.weight=r3"_s, u"lm_head.weight=r3"_s }
        << QStringList {} << 2 << u"initial norm values, tied embeddings"_s;
    QTest::newRow("Llama: tied embed_tokens") << QStringList { u"model.embed_tokens.weight=r4"_s, u"lm_head.weight=r4"_s }
                                              << QStringList {} << 1 << u"tied embeddings"_s;
    QTest::newRow("findings stay findings")
        << QStringList { u"model.layers.0.mlp.weight=1"_s, u"model.norm.weight=2"_s,
               u"model.layers.0.self_attn.q_proj.weight=r5"_s, u"model.layers.1.self_attn.q_proj.weight=r5"_s,
               u"model.norm.bias=r6"_s, u"bn.running_var=2"_s }
        << QStringList { u"model.layers.0.mlp.weight"_s, u"model.norm.weight"_s,
               u"model.layers.1.self_attn.q_proj.weight"_s, u"bn.running_var"_s }
        << 0 << QString();
    QTest::newRow("a weight equal to an embedding is not tied")
        << QStringList { u"model.embed_tokens.weight=r7"_s, u"model.layers.0.mlp.weight=r7"_s }
        << QStringList { u"model.layers.0.mlp.weight"_s } << 0 << QString();
}

void tst_Audit::expectedPatterns()
{
    QFETCH(QStringList, tensors);
    QFETCH(QStringList, findings);
    QFETCH(int, expected);
    QFETCH(QString, reason);
    const QString file = path(u"expected_%1.safetensors"_s.arg(QString::fromUtf8(QTest::currentDataTag())).replace(u' ', u'_'));
    QVERIFY(write(file, plantedFrom(tensors)));
    std::string error;
    const auto checkpoint = Checkpoint::open(file.toStdString(), error);
    QVERIFY(checkpoint);
    const auto audit = auditCheckpoint(*checkpoint, {});
    QVERIFY(audit);
    QStringList found;
    int marked = 0;
    for (const auto &entry : audit->entries) {
        if (entry.hasFindings())
            found << QString::fromStdString(checkpoint->tensors()[entry.tensor].info->name);
        for (const auto &flag : entry.flags)
            marked += flag.expected != AuditExpectation::None;
    }
    found.sort();
    findings.sort();
    QCOMPARE(found, findings);
    QCOMPARE(marked, expected);
    QCOMPARE(audit->summary.expected, std::size_t(expected));
    const QString text = QString::fromStdString(audit->summary.text());
    if (findings.isEmpty())
        QVERIFY2(text.startsWith(u"No findings in %1 tensors"_s.arg(tensors.size())), qPrintable(text));
    if (expected)
        QVERIFY2(text.endsWith(u"; %1 expected, not counted: %2"_s.arg(expected).arg(reason)), qPrintable(text));
    else
        QVERIFY2(!text.contains(u"expected"_s), qPrintable(text));
    // JSON keeps the identifiers: findings in "flags", the rest under "expected" with a reason.
    const Json json = auditJson(*checkpoint, *audit);
    int listed = 0;
    for (const auto &row : json["tensors"])
        listed += row.contains("expected") ? static_cast<int>(row["expected"].size()) : 0;
    QCOMPARE(listed, expected);
}

void tst_Audit::ignoredRulesAndNames()
{
    const QString file = path(u"ignored.safetensors"_s);
    QVERIFY(write(file,
        plantedFrom({ u"a.mlp.weight=1"_s, u"b.mlp.weight=0"_s, u"c.attn.weight=r1"_s, u"d.attn.weight=r1"_s })));
    std::string error;
    const auto checkpoint = Checkpoint::open(file.toStdString(), error);
    QVERIFY(checkpoint);
    auto audit = auditCheckpoint(*checkpoint, {});
    QVERIFY(audit);
    QCOMPARE(audit->summary.constant, std::size_t(1));
    QCOMPARE(audit->summary.allZero, std::size_t(1));
    QCOMPARE(audit->summary.duplicates, std::size_t(1));

    applyIgnores(*checkpoint, *audit, { { AuditFlag::Kind::Constant }, { "*.attn.*" } });
    QCOMPARE(audit->summary.constant, std::size_t(0));
    QCOMPARE(audit->summary.duplicates, std::size_t(0)); // d.attn.weight's, by name
    QCOMPARE(audit->summary.allZero, std::size_t(1));
    QCOMPARE(audit->summary.expected, std::size_t(2));
    QCOMPARE(QString::fromStdString(audit->summary.text()),
        u"1 all-zero; 2 expected, not counted: ignored rules, ignored names"_s);
    // Ignoring nothing gives every finding back.
    applyIgnores(*checkpoint, *audit, {});
    QCOMPARE(audit->summary.constant, std::size_t(1));
    QCOMPARE(audit->summary.duplicates, std::size_t(1));
    QCOMPARE(audit->summary.expected, std::size_t(0));
}

void tst_Audit::globMatch_data()
{
    QTest::addColumn<QString>("pattern");
    QTest::addColumn<QString>("name");
    QTest::addColumn<bool>("match");
    QTest::newRow("exact") << u"a.b"_s << u"a.b"_s << true;
    QTest::newRow("star spans dots") << u"model.*.weight"_s << u"model.layers.3.mlp.weight"_s << true;
    QTest::newRow("question mark") << u"layers.?.w"_s << u"layers.7.w"_s << true;
    QTest::newRow("question mark is one") << u"layers.?.w"_s << u"layers.17.w"_s << false;
    QTest::newRow("whole name") << u"*.bias"_s << u"a.bias.x"_s << false;
    QTest::newRow("stars only") << u"**"_s << u""_s << true;
    QTest::newRow("case matters") << u"A*"_s << u"a"_s << false;
}

void tst_Audit::globMatch()
{
    QFETCH(QString, pattern);
    QFETCH(QString, name);
    QFETCH(bool, match);
    QCOMPARE(stb::globMatch(pattern.toStdString(), name.toStdString()), match);
}

// The one table of words: identifiers for JSON, labels for people, severities.
void tst_Audit::flagWords()
{
    using Kind = AuditFlag::Kind;
    const struct {
        AuditFlag flag;
        const char *id, *label, *severity;
    } rows[] = {
        { { Kind::Nan }, "nan", "NaN values", "error" },
        { { Kind::Inf }, "inf", "infinite values", "error" },
        { { Kind::Unreadable }, "unreadable", "unreadable bytes", "error" },
        { { Kind::AllZero }, "all_zero", "all zero", "warning" },
        { { Kind::Outlier, 3 }, "outlier:3", "3 outliers", "warning" },
        { { Kind::Outlier, 1 }, "outlier:1", "1 outlier", "warning" },
        { { Kind::Constant }, "constant", "constant", "note" },
        { { Kind::Duplicate }, "duplicate", "duplicate", "note" },
    };
    for (const auto &row : rows) {
        QCOMPARE(auditFlagId(row.flag), std::string(row.id));
        QCOMPARE(auditFlagLabel(row.flag), std::string(row.label));
        QCOMPARE(std::string(auditSeverityName(auditSeverity(row.flag.kind))), std::string(row.severity));
        AuditFlag::Kind back;
        QVERIFY(auditKindFromId(auditKindId(row.flag.kind), back));
        QCOMPARE(back, row.flag.kind);
    }
}

QTEST_GUILESS_MAIN(tst_Audit)
#include "tst_audit.moc"
