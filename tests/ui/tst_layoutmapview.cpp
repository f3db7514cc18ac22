#include "core/io/safetensorsfile.h"
#include "tests/support/testfiles.h"
#include "ui/layoutmap/layoutmapview.h"

#include <QElapsedTimer>
#include <QSignalSpy>
#include <QTemporaryDir>
#include <QTest>

#include <algorithm>

using namespace stb;
using namespace Qt::StringLiterals;

namespace {

std::string entry(const std::string &name, quint64 begin, quint64 end)
{
    return "\"" + name + "\":{\"dtype\":\"U8\",\"shape\":[" + std::to_string(end - begin)
        + "],\"data_offsets\":[" + std::to_string(begin) + "," + std::to_string(end) + "]}";
}

std::optional<std::size_t> extentOf(const LayoutMapView &view, Extent::Kind kind, std::ptrdiff_t tensor = -1)
{
    const auto &extents = view.extents();
    for (std::size_t i = 0; i < extents.size(); ++i) {
        if (extents[i].kind == kind && (tensor < 0 || extents[i].tensor == tensor))
            return i;
    }
    return std::nullopt;
}

} // namespace

class tst_LayoutMapView : public QObject {
    Q_OBJECT

private slots:
    void initTestCase();
    void clickingATensorSelectsIt();
    void tinyTensorsStayVisible();
    void brokenFileShowsHolesAndOverlaps();
    void selectionIsPainted();
    void manyTensors();
    void labelsTellBlocksApart();
    void narrowBlocksGetLabels();
    void captionWraps();
    void screenshot();

private:
    std::shared_ptr<const SafetensorsFile> write(const QString &name, const std::vector<std::byte> &bytes);
    QTemporaryDir m_dir;
};

void tst_LayoutMapView::initTestCase()
{
    QVERIFY(m_dir.isValid());
}

std::shared_ptr<const SafetensorsFile> tst_LayoutMapView::write(
    const QString &name, const std::vector<std::byte> &bytes)
{
    const std::string path = m_dir.filePath(name).toStdString();
    std::string error;
    if (!test::writeBytes(path, bytes))
        return nullptr;
    return SafetensorsFile::open(path, error);
}

void tst_LayoutMapView::clickingATensorSelectsIt()
{
    const auto model = test::makeSampleModel(2, 16);
    const auto file = write(u"model.safetensors"_s, serialize(model.specs, model.data, model.metadata));
    QVERIFY(file && file->header().valid());
    LayoutMapView view;
    view.resize(640, 200);
    view.setFile(file);
    QSignalSpy clicked(&view, &LayoutMapView::tensorClicked);
    const auto &tensors = file->header().tensors;
    for (std::size_t t = 0; t < tensors.size(); ++t) {
        const auto index = extentOf(view, Extent::Kind::Tensor, std::ptrdiff_t(t));
        QVERIFY(index);
        const QRect rect = view.extentRect(*index);
        QVERIFY2(rect.width() >= 1 && view.rect().contains(rect), qPrintable(QString::number(t)));
        QCOMPARE(view.extentIndexAt(rect.center()), index);
        QTest::mouseClick(&view, Qt::LeftButton, {}, rect.center());
        QCOMPARE(clicked.count(), int(t) + 1);
        QCOMPARE(clicked.last().at(0).value<const TensorInfo *>(), &tensors[t]);
        QCOMPARE(view.selectedTensor(), &tensors[t]);
        QVERIFY(view.extentToolTip(*index).startsWith(QString::fromStdString(tensors[t].name) + u'\n'));
    }
    // The header and the margins are not tensors: no signal.
    QTest::mouseClick(
        &view, Qt::LeftButton, {}, view.extentRect(*extentOf(view, Extent::Kind::Header)).center());
    QTest::mouseClick(&view, Qt::LeftButton, {}, QPoint(2, 2));
    QCOMPARE(clicked.count(), int(tensors.size()));
    QCOMPARE(view.extentIndexAt(QPoint(2, 2)), std::nullopt);
}

void tst_LayoutMapView::tinyTensorsStayVisible()
{
    // One 4-byte tensor among 1 MiB ones: proportionally a hundredth of a pixel.
    const std::string json = "{" + entry("big1", 0, 1 << 20) + "," + entry("tiny", 1 << 20, (1 << 20) + 4)
        + "," + entry("big2", (1 << 20) + 4, (2 << 20) + 4) + "}";
    const auto file = write(u"tiny.safetensors"_s, test::rawFile(json, (2 << 20) + 4));
    QVERIFY(file && file->header().valid());
    LayoutMapView view;
    view.resize(500, 120);
    view.setFile(file);
    const auto tiny = extentOf(view, Extent::Kind::Tensor, 1);
    QVERIFY(tiny);
    QVERIFY(view.extentRect(*tiny).width() >= int(LayoutMapView::kMinWidth) - 1);
    QCOMPARE(view.extentIndexAt(view.extentRect(*tiny).center()), tiny);
}

void tst_LayoutMapView::brokenFileShowsHolesAndOverlaps()
{
    // a [0,64), a hole [64,80), b [80,160) overlapping c [128,192), trailing bytes, and d past the end.
    const std::string json = "{" + entry("a", 0, 64) + "," + entry("b", 80, 160) + "," + entry("c", 128, 192)
        + "," + entry("d", 192, 400) + "}";
    const auto file = write(u"broken.safetensors"_s, test::rawFile(json, 300));
    QVERIFY(file);
    QVERIFY(!file->header().valid());
    LayoutMapView view;
    view.resize(600, 160);
    view.setFile(file);
    const auto hole = extentOf(view, Extent::Kind::Hole);
    const auto overlap = extentOf(view, Extent::Kind::Overlap);
    const auto missing = extentOf(view, Extent::Kind::Missing, 3);
    QVERIFY(hole && overlap && missing);
    const auto &extents = view.extents();
    const quint64 dataStart = file->header().dataStart;
    QCOMPARE(extents[*hole].begin, dataStart + 64);
    QCOMPARE(extents[*hole].end, dataStart + 80);
    QCOMPARE(extents[*overlap].begin, dataStart + 128);
    QCOMPARE(extents[*overlap].end, dataStart + 160);
    QCOMPARE(extents[*missing].begin, file->header().fileSize);
    QVERIFY(extentOf(view, Extent::Kind::Tensor, 3)); // d's bytes inside the file

    QSignalSpy clicked(&view, &LayoutMapView::tensorClicked);
    QTest::mouseClick(&view, Qt::LeftButton, {}, view.extentRect(*hole).center());
    QCOMPARE(clicked.count(), 0);
    QTest::mouseClick(&view, Qt::LeftButton, {}, view.extentRect(*overlap).center());
    QCOMPARE(clicked.count(), 1);
    QCOMPARE(clicked.last().at(0).value<const TensorInfo *>(), &file->header().tensors[1]);
    const QString tip = view.extentToolTip(*overlap);
    QVERIFY2(tip.contains(u"b and c"_s), qPrintable(tip));
    QVERIFY(view.extentToolTip(*hole).startsWith(u"Hole"_s));
    QVERIFY(view.extentToolTip(*missing).contains(u"past the end"_s));
    QVERIFY(!view.grab().isNull());
}

void tst_LayoutMapView::selectionIsPainted()
{
    const std::string json
        = "{" + entry("big", 0, 1 << 20) + "," + entry("tiny", 1 << 20, (1 << 20) + 2) + "}";
    const auto file = write(u"selection.safetensors"_s, test::rawFile(json, (1 << 20) + 2));
    QVERIFY(file);
    LayoutMapView view;
    view.resize(400, 120);
    view.setFile(file);
    const auto tiny = extentOf(view, Extent::Kind::Tensor, 1);
    const QPoint centre = view.extentRect(*tiny).center();
    const QColor before = view.grab().toImage().pixelColor(centre);
    view.setSelectedTensor(&file->header().tensors[1]);
    const QColor after = view.grab().toImage().pixelColor(centre);
    QVERIFY(before != after);
    QVERIFY2(after.red() > 200 && after.blue() < 100, qPrintable(after.name())); // the orange selection
}

void tst_LayoutMapView::labelsTellBlocksApart()
{
    const std::string k0 = "model.layers.0.self_attn.k_proj.weight",
                      v0 = "model.layers.0.self_attn.v_proj.weight",
                      k1 = "model.layers.1.self_attn.k_proj.weight";
    const std::string json = "{" + entry(k0, 0, 1 << 20) + "," + entry(v0, 1 << 20, 2 << 20) + ","
        + entry(k1, 2 << 20, 3 << 20) + "," + entry("model.tiny.weight", 3 << 20, (3 << 20) + 2) + "}";
    const auto file = write(u"labels.safetensors"_s, test::rawFile(json, (3 << 20) + 2));
    QVERIFY(file && file->header().valid());
    LayoutMapView view;
    view.resize(900, 160);
    view.setFile(file);
    const QStringList expected { u"0.self_attn.k_proj.weight"_s, u"v_proj.weight"_s,
        u"1.self_attn.k_proj.weight"_s, QString() }; // the tiny block has no room for a label
    for (std::size_t t = 0; t < 4; ++t) {
        const auto index = extentOf(view, Extent::Kind::Tensor, std::ptrdiff_t(t));
        QVERIFY(index);
        QCOMPARE(view.extentLabel(*index), expected[qsizetype(t)]);
    }
    QVERIFY(view.extentLabel(*extentOf(view, Extent::Kind::Header)).isEmpty());
}

// A Llama-shaped file (sizes in proportion) in the map of a 1024 px window: the MLP blocks are
// about 44 px wide, and each still shows a label that tells up, gate and down apart.
void tst_LayoutMapView::narrowBlocksGetLabels()
{
    std::string json = "{";
    quint64 offset = 0;
    const auto add = [&](const std::string &name, quint64 bytes) {
        json += (offset ? "," : "") + entry(name, offset, offset + bytes);
        offset += bytes;
    };
    add("model.embed_tokens.weight", 8016);
    for (int layer = 0; layer < 32; ++layer) {
        const std::string p = "model.layers." + std::to_string(layer) + ".";
        add(p + "input_layernorm.weight", 1);
        for (const char *role : { "down_proj", "gate_proj", "up_proj" })
            add(p + "mlp." + role + ".weight", 896);
        add(p + "post_attention_layernorm.weight", 1);
        for (const auto &[role, bytes] : { std::pair { "k_proj", 64 }, { "o_proj", 256 }, { "q_proj", 256 },
                 { "v_proj", 64 } })
            add(p + "self_attn." + role + ".weight", quint64(bytes));
    }
    add("model.norm.weight", 1);
    add("lm_head.weight", 8016);
    const auto file = write(u"llama.safetensors"_s, test::rawFile(json + "}", offset));
    QVERIFY(file && file->header().valid());
    LayoutMapView view;
    view.resize(408, 640);
    view.setFile(file);
    int mlpBlocks = 0, narrow = 0, split = 0;
    const auto &tensors = file->header().tensors;
    for (std::size_t i = 0; i < view.extents().size(); ++i) {
        const Extent &e = view.extents()[i];
        if (e.kind != Extent::Kind::Tensor || tensors[std::size_t(e.tensor)].name.find(".mlp.") == std::string::npos)
            continue;
        ++mlpBlocks;
        const QString name = QString::fromStdString(tensors[std::size_t(e.tensor)].name);
        const QString role = name.section(u'.', -2, -2); // "up_proj"
        const QString painted = view.paintedLabel(i);
        const int width = view.extentRect(i).width(); // of its piece on its first row
        if (width < 36) { // a block cut by the end of a row: its bigger piece is on the next
            ++split;
            continue;
        }
        narrow += width < 48;
        // The role whole ("up_proj", "3.up_proj") or its start ("down_p…"), never nothing.
        const QString start = painted.endsWith(u'…') ? painted.chopped(1) : QString();
        QVERIFY2(painted.contains(role) || (start.size() >= 3 && role.startsWith(start)),
            qPrintable(u"%1 (%2 px): \"%3\""_s.arg(name).arg(width).arg(painted)));
    }
    QCOMPARE(mlpBlocks, 96);
    QVERIFY2(split <= 16, qPrintable(u"%1 blocks cut by a row's end"_s.arg(split)));
    QVERIFY2(narrow > 0, "the case of the issue: blocks under 48 px");
}

// A broken file's caption lists its problems; in a narrow view it wraps over more lines and the
// map starts below it, instead of the caption being cut.
void tst_LayoutMapView::captionWraps()
{
    const std::string json = "{" + entry("a", 0, 64) + "," + entry("b", 80, 160) + "," + entry("c", 128, 192)
        + "," + entry("d", 192, 400) + "}";
    const auto file = write(u"broken-caption.safetensors"_s, test::rawFile(json, 300));
    QVERIFY(file);
    LayoutMapView view;
    view.setFile(file);
    QVERIFY(view.caption().endsWith(u"bytes missing past the end"_s));
    const int line = view.fontMetrics().height();
    view.resize(1200, 200);
    const int wideTop = view.extentRect(0).top();
    QVERIFY2(wideTop < 8 + 2 * line, qPrintable(QString::number(wideTop)));
    view.resize(view.fontMetrics().horizontalAdvance(view.caption()) / 3, 300);
    const int narrowTop = view.extentRect(0).top();
    QVERIFY2(narrowTop >= wideTop + 2 * line, qPrintable(u"%1 vs %2"_s.arg(narrowTop).arg(wideTop)));
    QVERIFY(!view.grab().isNull());
}

void tst_LayoutMapView::manyTensors()
{
    constexpr int count = 100'000;
    std::string json = "{";
    for (int i = 0; i < count; ++i)
        json += (i ? "," : "") + entry("t" + std::to_string(i), quint64(i) * 8, quint64(i) * 8 + 8);
    json += "}";
    const auto file = write(u"many.safetensors"_s, test::rawFile(json, std::size_t(count) * 8));
    QVERIFY(file && file->header().valid());
    LayoutMapView view;
    view.resize(800, 300);
    view.setFile(file);
    view.setSelectedTensor(&file->header().tensors[count / 2]);
    QElapsedTimer timer;
    timer.start();
    QVERIFY(!view.grab().isNull()); // first paint: extents and layout computed
    const auto first = timer.restart();
    QVERIFY(!view.grab().isNull());
    const auto again = timer.elapsed();
    qInfo() << "100,000 tensors: first paint" << first << "ms, repaint" << again << "ms";
    QVERIFY(again < 250);
    // Hit testing is monotonic along the band's last row (the 7 MB header fills the first ones)
    // and lands on tensors.
    const int lastRow = view.extentRect(view.extents().size() - 1).center().y();
    std::size_t previous = 0;
    for (int x = 10; x < 790; x += 37) {
        const auto index = view.extentIndexAt(QPoint(x, lastRow));
        QVERIFY(index);
        QVERIFY(*index >= previous);
        previous = *index;
    }
    QCOMPARE(view.extents()[previous].kind, Extent::Kind::Tensor);
}

// STB_SCREENSHOT_DIR=dir saves dir/layout.png: a model with a selected tensor, and a broken file.
void tst_LayoutMapView::screenshot()
{
    const QString dir = qEnvironmentVariable("STB_SCREENSHOT_DIR");
    if (dir.isEmpty())
        QSKIP("set STB_SCREENSHOT_DIR to save a screenshot");
    const auto model = test::makeSampleModel(4, 32);
    const auto file = write(u"model.safetensors"_s, serialize(model.specs, model.data, model.metadata));
    LayoutMapView view;
    view.resize(820, 190);
    view.setFile(file);
    const auto &tensors = file->header().tensors;
    view.setSelectedTensor(&*std::find_if(tensors.begin(), tensors.end(),
        [](const TensorInfo &t) { return t.name == "model.layers.1.mlp.up_proj.weight"; }));
    QVERIFY(view.grab().save(dir + u"/layout.png"_s));

    const std::string json = "{" + entry("embed.weight", 0, 4096) + "," + entry("layer.0.weight", 4200, 8192)
        + "," + entry("layer.1.weight", 7000, 12288) + "," + entry("head.weight", 12288, 20000) + "}";
    LayoutMapView broken;
    broken.resize(820, 160);
    broken.setFile(write(u"broken.safetensors"_s, test::rawFile(json + "    ", 16000)));
    QVERIFY(broken.grab().save(dir + u"/layout-broken.png"_s));
}

QTEST_MAIN(tst_LayoutMapView)
#include "tst_layoutmapview.moc"
