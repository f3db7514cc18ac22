// The PNG writer (core/values/pngwriter.h) read back by Qt's decoder: every pixel of pictures of
// several shapes, including one whose deflated rows fill zlib's output buffer several times.
#include "core/values/pngwriter.h"

#include <QImage>
#include <QTest>

#include <random>

using namespace stb;

class tst_PngWriter : public QObject {
    Q_OBJECT
private slots:
    void readBack_data();
    void readBack();
    void refusesWrongSizes();
};

void tst_PngWriter::readBack_data()
{
    QTest::addColumn<int>("width");
    QTest::addColumn<int>("height");
    QTest::newRow("one pixel") << 1 << 1;
    QTest::newRow("one row") << 300 << 1;
    QTest::newRow("one column") << 1 << 300;
    QTest::newRow("noise, many zlib buffers") << 517 << 389;
}

void tst_PngWriter::readBack()
{
    QFETCH(int, width);
    QFETCH(int, height);
    std::mt19937 random(7);
    std::vector<Rgb> pixels(std::size_t(width) * std::size_t(height));
    for (Rgb &pixel : pixels)
        pixel = { std::uint8_t(random()), std::uint8_t(random()), std::uint8_t(random()) };
    const std::string png = encodePng(pixels, std::uint32_t(width), std::uint32_t(height));
    QVERIFY(!png.empty());
    QImage image;
    QVERIFY(image.loadFromData(QByteArray(png.data(), qsizetype(png.size())), "PNG"));
    QCOMPARE(image.size(), QSize(width, height));
    for (int y = 0; y < height; ++y) {
        for (int x = 0; x < width; ++x) {
            const Rgb expected = pixels[std::size_t(y) * std::size_t(width) + std::size_t(x)];
            if (image.pixel(x, y) != qRgb(expected.r, expected.g, expected.b))
                QFAIL(qPrintable(QStringLiteral("pixel (%1, %2) differs").arg(x).arg(y)));
        }
    }
}

void tst_PngWriter::refusesWrongSizes()
{
    const std::vector<Rgb> six(6);
    QVERIFY(encodePng(six, 0, 6).empty());
    QVERIFY(encodePng(six, 6, 0).empty());
    QVERIFY(encodePng(six, 4, 2).empty()); // 8 pixels asked for, 6 given
    QVERIFY(!encodePng(six, 3, 2).empty());
}

QTEST_GUILESS_MAIN(tst_PngWriter)
#include "tst_pngwriter.moc"
