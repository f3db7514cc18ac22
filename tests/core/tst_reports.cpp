// The Markdown reports the browser exports (audit, comparison) against checked-in golden files:
// any change to their wording, columns or number format fails here and shows as a diff. The
// fixtures hold small integers, so every statistic and metric is exact on every kernel.
#include "core/audit/audit.h"
#include "core/audit/auditreport.h"
#include "core/compare/comparereport.h"
#include "core/compare/comparison.h"
#include "core/format/writer.h"
#include "tests/support/golden.h"

#include <QTemporaryDir>
#include <QTest>

#include <cmath>
#include <cstring>
#include <limits>

using namespace Qt::StringLiterals;
using namespace stb;

namespace {

struct Model {
    std::vector<TensorSpec> specs;
    std::vector<std::vector<std::byte>> data;
    Metadata metadata;

    void addF32(std::string name, std::vector<std::uint64_t> shape, const std::vector<float> &values)
    {
        std::vector<std::byte> bytes(values.size() * sizeof(float));
        std::memcpy(bytes.data(), values.data(), bytes.size());
        specs.push_back({ std::move(name), DType::F32, std::move(shape) });
        data.push_back(std::move(bytes));
    }
};

constexpr float kNaN = std::numeric_limits<float>::quiet_NaN();
constexpr float kInf = std::numeric_limits<float>::infinity();

} // namespace

class tst_Reports : public QObject {
    Q_OBJECT

private slots:
    void auditMarkdown()
    {
        Model m;
        m.addF32("layers.0.weight", { 2, 2 }, { 1, 2, 3, 4 });
        m.addF32("layers.1.weight", { 2, 2 }, { 1, kNaN, 3, 0 });
        m.addF32("layers.2.weight", { 4 }, { kInf, 1, -1, 0 });
        m.addF32("layers.10.weight", { 2, 2 }, { -2, 2, -2, 2 });
        m.addF32("copy.weight", { 2, 2 }, { 1, 2, 3, 4 });
        m.addF32("norm.zeros", { 3 }, { 0, 0, 0 });
        m.addF32("norm.scale", { 3 }, { 2, 2, 2 });
        m.addF32("odd|name", {}, { 5 });
        const auto checkpoint = open(m, "audit.safetensors");
        QVERIFY(checkpoint);
        const auto audit = auditCheckpoint(*checkpoint, AnalysisOptions { 10, 1 });
        QVERIFY(audit);
        verifyGolden(u"audit.md"_s, stb::auditMarkdown(*checkpoint, *audit));
    }

    void comparisonMarkdown()
    {
        Model a, b;
        a.addF32("same", { 2 }, { 1, 2 });
        b.addF32("same", { 2 }, { 1, 2 });
        a.addF32("layers.2.changed", { 2, 2 }, { 1, 2, 3, 4 });
        b.addF32("layers.2.changed", { 2, 2 }, { 1, 2, 3, 6 });
        a.addF32("layers.10.shape", { 2, 3 }, { 0, 0, 0, 0, 0, 0 });
        b.addF32("layers.10.shape", { 3, 2 }, { 0, 0, 0, 0, 0, 0 });
        a.addF32("nan", { 2 }, { kNaN, 1 });
        b.addF32("nan", { 2 }, { 1, 1 });
        a.addF32("only.a", { 1 }, { 1 });
        b.addF32("only.b", { 1 }, { 1 });
        a.metadata = { { "format", "pt" }, { "step", "100" }, { "removed", "x" } };
        b.metadata = { { "format", "pt" }, { "step", "200" }, { "added", "y" } };
        const auto ca = open(a, "a.safetensors"), cb = open(b, "b.safetensors");
        QVERIFY(ca && cb);
        CompareOptions options;
        options.threads = 1;
        const auto comparison = compareCheckpoints(*ca, *cb, options);
        QVERIFY(comparison);
        verifyGolden(u"comparison.md"_s, stb::comparisonMarkdown(*ca, *cb, *comparison));
    }

private:
    std::shared_ptr<const Checkpoint> open(const Model &m, const char *name)
    {
        const std::string path = m_dir.filePath(QLatin1String(name)).toStdString();
        std::string error;
        if (!writeFile(path, m.specs, m.data, m.metadata, error))
            return nullptr;
        return Checkpoint::open(path, error);
    }

    // The report names the files it read: the scratch folder becomes <dir> before comparing.
    void verifyGolden(const QString &name, const std::string &report)
    {
        QString text = QString::fromStdString(report);
        text.replace(m_dir.path(), u"<dir>"_s);
        QString why;
        QVERIFY2(test::matchesGolden(name, text, why), qPrintable(why));
    }

    QTemporaryDir m_dir;
};

QTEST_GUILESS_MAIN(tst_Reports)
#include "tst_reports.moc"
