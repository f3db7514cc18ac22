#include "core/io/safetensorsfile.h"
#include "tests/support/testfiles.h"
#include "ui/hex/bytedescription.h"
#include "ui/hex/hexgeometry.h"
#include "ui/hex/hexpane.h"
#include "ui/hex/hexview.h"

#include <QApplication>
#include <QLabel>
#include <QLineEdit>
#include <QScrollBar>
#include <QSignalSpy>
#include <QTemporaryDir>
#include <QTest>
#include <QWheelEvent>
#include <QtMath>

#include <algorithm>
#include <cstring>
#include <fcntl.h>
#include <unistd.h>

using namespace stb;
using namespace Qt::StringLiterals;
namespace hg = stb::hexgeometry;

namespace {

constexpr quint64 GiB = quint64(1) << 30;

std::vector<std::byte> floatBytes(std::initializer_list<float> values)
{
    std::vector<std::byte> out(values.size() * 4);
    std::memcpy(out.data(), std::data(values), out.size());
    return out;
}

// A file far beyond 4 GiB that costs no disk: a header for a huge U8 tensor followed by a small
// F32 one, the length set with ftruncate (a sparse hole reads as zeros), then the F32 values
// written at their offset.
bool writeSparseFile(const std::string &path, quint64 bigBytes, std::string &error)
{
    std::string json = R"({"big":{"dtype":"U8","shape":[)" + std::to_string(bigBytes)
        + R"(],"data_offsets":[0,)" + std::to_string(bigBytes)
        + R"(]},"w":{"dtype":"F32","shape":[4],"data_offsets":[)" + std::to_string(bigBytes) + ","
        + std::to_string(bigBytes + 16) + "]}}";
    json.append((8 - json.size() % 8) % 8, ' ');
    const auto prefix = test::rawFile(json);
    const int fd = ::open(path.c_str(), O_CREAT | O_TRUNC | O_RDWR, 0644);
    if (fd < 0)
        return error = "cannot create", false;
    const quint64 dataStart = prefix.size();
    const auto values = floatBytes({ 1.0f, -2.0f, 2.5f, 3e-3f });
    const bool ok = ::write(fd, prefix.data(), prefix.size()) == ssize_t(prefix.size())
        && ::ftruncate(fd, off_t(dataStart + bigBytes + 16)) == 0
        && ::pwrite(fd, values.data(), values.size(), off_t(dataStart + bigBytes)) == ssize_t(values.size());
    ::close(fd);
    if (!ok)
        error = "cannot write the sparse file";
    return ok;
}

} // namespace

class tst_HexView : public QObject {
    Q_OBJECT

private slots:
    void initTestCase();
    void rowMapping_data();
    void rowMapping();
    void columns();
    void scrollScaling_data();
    void scrollScaling();
    void elementAtByte_data();
    void elementAtByte();
    void beyondFourGiB();
    void decodedValue_data();
    void decodedValue();
    void paneShowsWholeValue_data();
    void paneShowsWholeValue();
    void rowFitsWidth_data();
    void rowFitsWidth();
    void truncatedWhileOpen();
    void staleFile();
    void parseOffset_data();
    void parseOffset();
    void paneGoesToTypedOffset();
    void screenshot();

private:
    QTemporaryDir m_dir;
    std::shared_ptr<const SafetensorsFile> m_small;
};

void tst_HexView::initTestCase()
{
    QVERIFY(m_dir.isValid());
    // F32 [2, 3] = 0 .. 5, BF16 [4] = 1, -2, 0.5, inf and BF16 [1] = 0.0223388671875 (0x3cb7,
    // whose exact value has 12 significant digits), written by the core writer.
    const std::vector<TensorSpec> specs { { "f", DType::F32, { 2, 3 } }, { "h", DType::BF16, { 4 } },
        { "p", DType::BF16, { 1 } } };
    const std::vector<std::vector<std::byte>> data { floatBytes({ 0.0f, 1.0f, 2.0f, 3.0f, 4.5f, -5.0f }),
        { std::byte(0x80), std::byte(0x3F), std::byte(0x00), std::byte(0xC0), std::byte(0x00),
            std::byte(0x3F), std::byte(0x80), std::byte(0x7F) },
        { std::byte(0xB7), std::byte(0x3C) } };
    const std::string path = m_dir.filePath(u"small.safetensors"_s).toStdString();
    std::string error;
    QVERIFY2(writeFile(path, specs, data, {}, error), error.c_str());
    m_small = SafetensorsFile::open(path, error);
    QVERIFY2(m_small && m_small->header().valid(), error.c_str());
}

void tst_HexView::rowMapping_data()
{
    QTest::addColumn<quint64>("offset");
    QTest::addColumn<quint64>("row");
    QTest::newRow("0") << quint64(0) << quint64(0);
    QTest::newRow("15") << quint64(15) << quint64(0);
    QTest::newRow("16") << quint64(16) << quint64(1);
    QTest::newRow("4 GiB - 1") << 4 * GiB - 1 << (4 * GiB - 1) / 16;
    QTest::newRow("4 GiB") << 4 * GiB << (quint64(1) << 28);
    QTest::newRow("2^64 - 1") << ~quint64(0) << (~quint64(0) >> 4);
}

void tst_HexView::rowMapping()
{
    QFETCH(quint64, offset);
    QFETCH(quint64, row);
    QCOMPARE(hg::rowOfOffset(offset), row);
    QCOMPARE(hg::offsetOfRow(row), offset & ~quint64(15));
    QCOMPARE(hg::rowCount(offset), offset / 16 + (offset % 16 != 0));
}

void tst_HexView::columns()
{
    QCOMPARE(hg::offsetDigits(0), 8);
    QCOMPARE(hg::offsetDigits(4 * GiB), 8); // last offset 0xFFFFFFFF
    QCOMPARE(hg::offsetDigits(4 * GiB + 1), 9);
    QCOMPARE(hg::offsetDigits(~quint64(0)), 16);
    const hg::Columns columns { 9 };
    for (int b = 0; b < 16; ++b) {
        QCOMPARE(columns.byteAtColumn(columns.hexColumn(b)), b);
        QCOMPARE(columns.byteAtColumn(columns.hexColumn(b) + 1), b);
        QCOMPARE(columns.byteAtColumn(columns.asciiColumn(b)), b);
    }
    QCOMPARE(columns.byteAtColumn(0), -1);
    QCOMPARE(columns.hexColumn(8) - columns.hexColumn(7), 4); // the gap between the two groups
}

void tst_HexView::scrollScaling_data()
{
    QTest::addColumn<quint64>("maxTop");
    QTest::newRow("empty") << quint64(0);
    QTest::newRow("small") << quint64(1000);
    QTest::newRow("at the limit") << quint64(hg::kScrollSteps);
    QTest::newRow("just past") << quint64(hg::kScrollSteps) + 1;
    QTest::newRow("INT_MAX rows") << quint64(INT_MAX);
    QTest::newRow("1 TiB") << (quint64(1) << 40) / 16;
    QTest::newRow("2^64 bytes") << (~quint64(0) >> 4);
}

void tst_HexView::scrollScaling()
{
    QFETCH(quint64, maxTop);
    const int maximum = hg::scrollBarMaximum(maxTop);
    QVERIFY(maximum >= 0 && maximum <= hg::kScrollSteps);
    QCOMPARE(hg::topRowForScrollValue(0, maxTop), quint64(0));
    QCOMPARE(hg::topRowForScrollValue(maximum, maxTop), maxTop);
    QCOMPARE(hg::scrollValueForTopRow(0, maxTop), 0);
    QCOMPARE(hg::scrollValueForTopRow(maxTop, maxTop), maximum);
    // In between: value -> row -> value is exact, and row -> value -> row is within one step.
    const quint64 step = maxTop / quint64(std::max(maximum, 1)) + 1;
    for (const int value : { 1, maximum / 3, maximum / 2, maximum - 1 }) {
        if (value < 0 || value > maximum)
            continue;
        const quint64 row = hg::topRowForScrollValue(value, maxTop);
        QCOMPARE(hg::scrollValueForTopRow(row, maxTop), value);
        const int back = hg::scrollValueForTopRow(row + step / 2, maxTop);
        const quint64 again = hg::topRowForScrollValue(back, maxTop);
        QVERIFY(again + step >= row + step / 2 && again <= row + step / 2 + step);
    }
}

void tst_HexView::elementAtByte_data()
{
    QTest::addColumn<int>("dtype");
    QTest::addColumn<QList<quint64>>("shape");
    QTest::addColumn<quint64>("byte");
    QTest::addColumn<QString>("expected");
    const auto f32 = int(DType::F32);
    QTest::newRow("F32 first") << f32 << QList<quint64> { 2, 3 } << quint64(0) << u"0 [0, 0]"_s;
    QTest::newRow("F32 inside") << f32 << QList<quint64> { 2, 3 } << quint64(18) << u"4 [1, 1]"_s;
    QTest::newRow("F32 past") << f32 << QList<quint64> { 2, 3 } << quint64(24) << u"none"_s;
    QTest::newRow("scalar") << f32 << QList<quint64> {} << quint64(3) << u"0 []"_s;
    QTest::newRow("F4 byte 1") << int(DType::F4) << QList<quint64> { 4 } << quint64(1) << u"2 [2]"_s;
    QTest::newRow("F6 byte 1") << int(DType::F6_E2M3) << QList<quint64> { 8 } << quint64(1) << u"1 [1]"_s;
    QTest::newRow("F6 byte 2") << int(DType::F6_E2M3) << QList<quint64> { 8 } << quint64(2) << u"2 [2]"_s;
    QTest::newRow("F6 byte 5") << int(DType::F6_E2M3) << QList<quint64> { 2, 4 } << quint64(5)
                               << u"6 [1, 2]"_s;
    QTest::newRow("3-d") << int(DType::U8) << QList<quint64> { 2, 3, 4 } << quint64(23) << u"23 [1, 2, 3]"_s;
}

void tst_HexView::elementAtByte()
{
    QFETCH(int, dtype);
    QFETCH(QList<quint64>, shape);
    QFETCH(quint64, byte);
    QFETCH(QString, expected);
    TensorInfo tensor;
    tensor.dtype = DType(dtype);
    tensor.shape.assign(shape.begin(), shape.end());
    const auto position = stb::elementAtByte(tensor, byte);
    QCOMPARE(position ? QString::number(position->index) + u' ' + coordinatesText(position->coordinates)
                      : u"none"_s,
        expected);
}

void tst_HexView::beyondFourGiB()
{
    // Past 16 GiB the rows exceed the scrollbar's unscaled range too.
    const quint64 big = 17 * GiB;
    const std::string path = m_dir.filePath(u"sparse.safetensors"_s).toStdString();
    std::string error;
    QVERIFY2(writeSparseFile(path, big, error), error.c_str());
    const auto file = SafetensorsFile::open(path, error);
    QVERIFY2(file, error.c_str());
    QVERIFY(file->header().valid());
    const quint64 size = file->mapping().size();

    HexView view;
    view.resize(720, 480);
    view.setFile(file);
    view.show();
    QVERIFY(QTest::qWaitForWindowExposed(&view));
    QSignalSpy moved(&view, &HexView::cursorMoved);

    const quint64 target = 5 * GiB + 7;
    view.goToOffset(target);
    QCOMPARE(view.cursorOffset(), target);
    QCOMPARE(moved.last().at(0).toULongLong(), target);
    QVERIFY(view.topRow() <= hg::rowOfOffset(target));
    QVERIFY(hg::rowOfOffset(target) < view.topRow() + view.visibleRowCount());
    QVERIFY2(view.cursorDescription().contains(u"tensor big (U8)"_s)
            && view.cursorElement().startsWith(u"element ["_s),
        qPrintable(view.cursorDescription()));
    QVERIFY(view.cursorDescription().contains(u"0x140000007"_s));

    // A click on the ASCII cell of byte 3 in the first row, far beyond 4 GiB.
    const QFontMetricsF metrics(view.font());
    const int lineHeight = qCeil(metrics.height()) + 2;
    const qreal charWidth = metrics.horizontalAdvance(u'0');
    const hg::Columns columns { hg::offsetDigits(size) };
    QCOMPARE(columns.digits, 9);
    const QPoint cell(int(6 + (columns.asciiColumn(3) + 0.5) * charWidth), lineHeight + lineHeight / 2);
    QTest::mouseClick(view.viewport(), Qt::LeftButton, {}, cell);
    QCOMPARE(view.cursorOffset(), hg::offsetOfRow(view.topRow()) + 3);

    // The wheel scrolls by pixels: a notch is three rows, half a notch half of that.
    const quint64 top = view.topRow();
    const auto wheel = [&](int angle) {
        QWheelEvent event(cell, view.viewport()->mapToGlobal(cell), {}, { 0, angle }, Qt::NoButton,
            Qt::NoModifier, Qt::NoScrollPhase, false);
        QApplication::sendEvent(view.viewport(), &event);
    };
    wheel(-120);
    QCOMPARE(view.topRow(), top + 3);
    wheel(-60);
    QCOMPARE(view.topRow(), top + 4); // and half a row scrolled out
    wheel(-60);
    QCOMPARE(view.topRow(), top + 6);
    wheel(120);
    QCOMPARE(view.topRow(), top + 3);

    // The scaled scrollbar: both ends are exact, and a jump lands on the last rows.
    QScrollBar *bar = view.verticalScrollBar();
    const quint64 maxTop = hg::maxTopRow(size, view.visibleRowCount());
    QVERIFY(hg::scrollBarScaled(maxTop));
    QCOMPARE(bar->maximum(), hg::kScrollSteps);
    bar->setValue(bar->maximum());
    QCOMPARE(view.topRow(), maxTop);
    bar->setValue(0);
    QCOMPARE(view.topRow(), quint64(0));
    QTest::keyClick(view.viewport(), Qt::Key_End, Qt::ControlModifier);
    QCOMPARE(view.cursorOffset(), size - 1);
    QCOMPARE(view.topRow(), maxTop);
    QCOMPARE(bar->value(), bar->maximum());
    // One row up from the end is one row, not one (many-row) scrollbar step.
    QTest::keyClick(view.viewport(), Qt::Key_Up);
    QTest::keyClick(view.viewport(), Qt::Key_Up);
    QTest::keyClick(view.viewport(), Qt::Key_PageUp);
    QCOMPARE(view.cursorOffset(), size - 1 - 32 - 16 * view.visibleRowCount());
    bar->triggerAction(QAbstractSlider::SliderSingleStepSub);
    QCOMPARE(view.topRow(), maxTop - view.visibleRowCount() - 1);
    QTest::keyClick(view.viewport(), Qt::Key_Home, Qt::ControlModifier);
    QCOMPARE(view.cursorOffset(), quint64(0));
    QCOMPARE(bar->value(), 0);

    // The last tensor's values, read and decoded past 17 GiB.
    view.setTensor(&file->header().tensors[1]);
    view.goToOffset(file->header().fileOffset(file->header().tensors[1]) + 8);
    QVERIFY2(view.cursorDescription().endsWith(u"tensor w (F32)"_s), qPrintable(view.cursorDescription()));
    QCOMPARE(view.cursorElement(), u"element [2] = 2.5 (f32 0x40200000)"_s);
    const QImage image = view.grab().toImage();
    QVERIFY(!image.isNull());
}

void tst_HexView::decodedValue_data()
{
    QTest::addColumn<int>("tensor");
    QTest::addColumn<quint64>("byte");
    QTest::addColumn<QString>("location");
    QTest::addColumn<QString>("element");
    // The writer sorts by descending dtype: the F32 tensor comes first in the data.
    QTest::newRow("F32 [0, 1]") << 0 << quint64(4) << u"tensor f (F32)"_s
                                << u"element [0, 1] = 1 (f32 0x3f800000)"_s;
    QTest::newRow("F32 [1, 1] inner byte")
        << 0 << quint64(19) << u"tensor f (F32)"_s << u"element [1, 1] = 4.5 (f32 0x40900000)"_s;
    QTest::newRow("F32 [1, 2]") << 0 << quint64(20) << u"tensor f (F32)"_s
                                << u"element [1, 2] = -5 (f32 0xc0a00000)"_s;
    QTest::newRow("BF16 [0]") << 1 << quint64(0) << u"tensor h (BF16)"_s
                              << u"element [0] = 1 (bf16 0x3f80)"_s;
    QTest::newRow("BF16 [1]") << 1 << quint64(3) << u"tensor h (BF16)"_s
                              << u"element [1] = -2 (bf16 0xc000)"_s;
    QTest::newRow("BF16 [2]") << 1 << quint64(4) << u"tensor h (BF16)"_s
                              << u"element [2] = 0.5 (bf16 0x3f00)"_s;
    QTest::newRow("BF16 [3]") << 1 << quint64(6) << u"tensor h (BF16)"_s
                              << u"element [3] = inf (bf16 0x7f80)"_s;
    QTest::newRow("BF16 full precision")
        << 2 << quint64(1) << u"tensor p (BF16)"_s << u"element [0] = 0.0223388671875 (bf16 0x3cb7)"_s;
}

void tst_HexView::decodedValue()
{
    QFETCH(int, tensor);
    QFETCH(quint64, byte);
    QFETCH(QString, location);
    QFETCH(QString, element);
    HexView view;
    view.resize(720, 300);
    view.setFile(m_small);
    const TensorInfo &info = m_small->header().tensors[std::size_t(tensor)];
    QCOMPARE(QString::fromStdString(info.name), location.section(u' ', 1, 1));
    view.setTensor(&info);
    view.goToOffset(m_small->header().fileOffset(info) + byte);
    QVERIFY2(view.cursorDescription().endsWith(location), qPrintable(view.cursorDescription()));
    QCOMPARE(view.cursorElement(), element);
    // The same words without the selection: the extent under the cursor names the tensor.
    view.setTensor(nullptr);
    QVERIFY2(view.cursorDescription().endsWith(location), qPrintable(view.cursorDescription()));
    QCOMPARE(view.cursorElement(), element);
    view.goToOffset(3);
    QVERIFY(view.cursorDescription().endsWith(
        u"region: header length prefix (%1 bytes of header)"_s.arg(m_small->header().headerLength)));
    QVERIFY(view.cursorElement().isEmpty());
    view.goToOffset(9);
    QVERIFY(view.cursorDescription().endsWith(u"region: header"_s));
}

// The value has a line of its own in the pane: a tensor name of 300 characters in the location
// line does not cut it, even in a narrow pane.
void tst_HexView::paneShowsWholeValue_data()
{
    QTest::addColumn<int>("width");
    QTest::newRow("420 px") << 420;
    QTest::newRow("760 px") << 760;
}

void tst_HexView::paneShowsWholeValue()
{
    QFETCH(int, width);
    const std::string name = std::string(300, 'n') + ".weight";
    const std::vector<TensorSpec> specs { { name, DType::BF16, { 2, 1 } } };
    const std::vector<std::vector<std::byte>> data { { std::byte(0xB7), std::byte(0x3C), std::byte(0xB7),
        std::byte(0xBC) } };
    const std::string path = m_dir.filePath(u"longname.safetensors"_s).toStdString();
    std::string error;
    QVERIFY2(writeFile(path, specs, data, {}, error), error.c_str());
    const auto file = SafetensorsFile::open(path, error);
    QVERIFY2(file, error.c_str());
    HexPane pane;
    pane.resize(width, 400);
    pane.setFile(file);
    pane.setTensor(&file->header().tensors[0]);
    pane.view()->goToOffset(file->header().fileOffset(file->header().tensors[0]) + 2);
    pane.show();
    QVERIFY(QTest::qWaitForWindowExposed(&pane));
    QCOMPARE(pane.elementText(), u"element [1, 0] = -0.0223388671875 (bf16 0xbcb7)"_s);
    QVERIFY(pane.locationText().contains(QString::fromStdString(name)));
    const auto *label = pane.findChild<QLabel *>(u"hexElement"_s);
    QVERIFY(label && label->isVisible());
    QCOMPARE(pane.width(), width);
    QVERIFY2(label->width() >= label->fontMetrics().horizontalAdvance(pane.elementText()),
        qPrintable(u"%1 px for the value line"_s.arg(label->width())));
    pane.view()->goToOffset(0);
    QVERIFY(pane.elementText().isEmpty());
    QVERIFY(!label->isVisible());
}

void tst_HexView::rowFitsWidth_data()
{
    QTest::addColumn<int>("width");
    QTest::addColumn<int>("perRow");
    QTest::newRow("wide: 16 a row") << 900 << 16;
    QTest::newRow("1024 px window's pane: 8 a row") << 420 << 8;
}

// A row never needs a sideways scroll to reach its ASCII: 8 bytes a row when 16 do not fit, the
// first byte shown staying at the top, keys and clicks moving by the shown row.
void tst_HexView::rowFitsWidth()
{
    QFETCH(int, width);
    QFETCH(int, perRow);
    HexView view;
    view.resize(width, 300);
    view.setFile(m_small);
    view.show();
    QVERIFY(QTest::qWaitForWindowExposed(&view));
    QCOMPARE(view.bytesPerRow(), perRow);
    QCOMPARE(view.horizontalScrollBar()->maximum(), 0);
    view.setFocus();
    view.goToOffset(40);
    QTest::keyClick(view.viewport(), Qt::Key_Down);
    QCOMPARE(view.cursorOffset(), quint64(40 + perRow));
    QTest::keyClick(view.viewport(), Qt::Key_End);
    QCOMPARE(view.cursorOffset() % quint64(perRow), quint64(perRow - 1));

    // The ASCII cell of byte 3 of the first shown row, at this row width.
    const QFontMetricsF metrics(view.font());
    const int lineHeight = qCeil(metrics.height()) + 2;
    const qreal charWidth = metrics.horizontalAdvance(u'0');
    const hg::Columns columns { hg::offsetDigits(m_small->mapping().size()), perRow };
    const QPoint cell(int(6 + (columns.asciiColumn(3) + 0.5) * charWidth), lineHeight + lineHeight / 2);
    QVERIFY(cell.x() < view.viewport()->width());
    QTest::mouseClick(view.viewport(), Qt::LeftButton, {}, cell);
    QCOMPARE(view.cursorOffset(), view.topRow() * quint64(perRow) + 3);

    // Narrowing a wide view keeps its first byte at the top.
    if (perRow == 16) {
        view.resize(width, 120);
        view.goToOffset(m_small->mapping().size() - 1);
        const quint64 firstByte = view.topRow() * 16;
        view.resize(420, 120);
        QCOMPARE(view.bytesPerRow(), 8);
        QCOMPARE(view.topRow() * 8, firstByte);
        QCOMPARE(view.horizontalScrollBar()->maximum(), 0);
    }
}

void tst_HexView::truncatedWhileOpen()
{
    const QString path = m_dir.filePath(u"truncated.safetensors"_s);
    QVERIFY(QFile::copy(QString::fromStdString(m_small->path()), path));
    std::string error;
    const auto file = SafetensorsFile::open(path.toStdString(), error);
    QVERIFY2(file, error.c_str());
    HexView view;
    view.resize(720, 300);
    view.setFile(file);
    view.show();
    QVERIFY(QTest::qWaitForWindowExposed(&view));
    QVERIFY(!view.grab().isNull());
    QVERIFY(!view.readFailed());
    QSignalSpy unreadable(&view, &HexView::bytesUnreadable);

    QVERIFY(::truncate(path.toLocal8Bit().constData(), 0) == 0);
    view.viewport()->update();
    QVERIFY(!view.grab().isNull()); // reads the vanished pages: must fail softly, not SIGBUS
    QVERIFY(view.readFailed());
    QTRY_COMPARE(unreadable.count(), 1);
    QVERIFY2(
        view.cursorDescription().contains(u"can no longer be read"_s), qPrintable(view.cursorDescription()));
    // Moving on after the failure reads nothing more and still does not crash.
    view.setTensor(&file->header().tensors[0]);
    view.goToOffset(file->header().dataStart + 4);
    const QPixmap shot = view.grab();
    QVERIFY(!shot.isNull());
    QCOMPARE(unreadable.count(), 1);
    if (const QString dir = qEnvironmentVariable("STB_SCREENSHOT_DIR"); !dir.isEmpty())
        shot.save(dir + u"/hex-truncated.png"_s);
}

void tst_HexView::staleFile()
{
    HexView view;
    view.resize(720, 300);
    view.setFile(m_small);
    view.setStale(true);
    QVERIFY(view.isStale());
    view.goToOffset(m_small->header().dataStart);
    QVERIFY(view.cursorDescription().endsWith(u"tensor f (F32) (the file changed on disk)"_s));
    QCOMPARE(view.cursorElement(), u"element [0, 0]"_s); // no value: nothing is read
    QVERIFY(!view.grab().isNull());
    view.setFile(m_small);
    QVERIFY(!view.isStale());
}

void tst_HexView::parseOffset_data()
{
    QTest::addColumn<QString>("text");
    QTest::addColumn<qint64>("expected"); // -1: rejected
    QTest::newRow("decimal") << u"1234"_s << qint64(1234);
    QTest::newRow("hex") << u"0x4D2"_s << qint64(1234);
    QTest::newRow("hex, upper X, spaces") << u"  0X4d2 "_s << qint64(1234);
    QTest::newRow("separators") << u"5_368_709_127"_s << qint64(5368709127);
    QTest::newRow("grouped") << u"1,000"_s << qint64(1000);
    QTest::newRow("beyond 4 GiB hex") << u"0x140000007"_s << qint64(0x140000007);
    QTest::newRow("empty") << u""_s << qint64(-1);
    QTest::newRow("bare 0x") << u"0x"_s << qint64(-1);
    QTest::newRow("negative") << u"-5"_s << qint64(-1);
    QTest::newRow("letters") << u"abc"_s << qint64(-1);
    QTest::newRow("past 64 bits") << u"18446744073709551616"_s << qint64(-1);
}

void tst_HexView::parseOffset()
{
    QFETCH(QString, text);
    QFETCH(qint64, expected);
    const auto offset = HexPane::parseOffset(text);
    QCOMPARE(offset ? qint64(*offset) : qint64(-1), expected);
}

void tst_HexView::paneGoesToTypedOffset()
{
    HexPane pane;
    pane.resize(760, 400);
    pane.setFile(m_small);
    pane.show();
    QVERIFY(QTest::qWaitForWindowExposed(&pane));
    pane.activateWindow();
    QVERIFY(QTest::qWaitForWindowActive(&pane));
    pane.view()->setFocus();
    QTest::keyClick(pane.view(), Qt::Key_G, Qt::ControlModifier);
    auto *field = pane.findChild<QLineEdit *>();
    QTRY_VERIFY(field->hasFocus());
    QTest::keyClicks(field, u"0x%1"_s.arg(m_small->header().dataStart + 4, 0, 16));
    QTest::keyClick(field, Qt::Key_Return);
    QCOMPARE(pane.view()->cursorOffset(), m_small->header().dataStart + 4);
    QVERIFY(pane.view()->hasFocus());

    pane.setTensor(&m_small->header().tensors[1]);
    QCOMPARE(pane.view()->cursorOffset(), m_small->header().fileOffset(m_small->header().tensors[1]));
}

// STB_SCREENSHOT_DIR=dir saves dir/hex.png: the pane on a small transformer-shaped model.
void tst_HexView::screenshot()
{
    const QString dir = qEnvironmentVariable("STB_SCREENSHOT_DIR");
    if (dir.isEmpty())
        QSKIP("set STB_SCREENSHOT_DIR to save a screenshot");
    const auto model = test::makeSampleModel(2, 16);
    const std::string path = m_dir.filePath(u"model.safetensors"_s).toStdString();
    std::string error;
    QVERIFY2(writeFile(path, model.specs, model.data, model.metadata, error), error.c_str());
    const auto file = SafetensorsFile::open(path, error);
    QVERIFY2(file, error.c_str());
    HexPane pane;
    pane.resize(820, 560);
    pane.setFile(file);
    const auto &tensors = file->header().tensors;
    const auto it = std::find_if(tensors.begin(), tensors.end(),
        [](const TensorInfo &t) { return t.name == "model.layers.0.input_layernorm.weight"; });
    QVERIFY(it != tensors.end());
    pane.setTensor(&*it);
    pane.show();
    QVERIFY(QTest::qWaitForWindowExposed(&pane));
    pane.activateWindow();
    pane.view()->setFocus();
    pane.view()->goToOffset(file->header().fileOffset(*it) - 64);
    pane.view()->goToOffset(file->header().fileOffset(*it) + 20);
    QVERIFY(pane.grab().save(dir + u"/hex.png"_s));
}

QTEST_MAIN(tst_HexView)
#include "tst_hexview.moc"
