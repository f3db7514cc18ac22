// Paths as bytes through UTF-16 and back (issue 15, item 5): no byte is lost, whatever it is.
#include "core/text/pathbytes.h"

#include <QString>
#include <QTest>

#include <random>

using namespace stb;

class tst_PathBytes : public QObject {
    Q_OBJECT

private slots:
    void roundTrip_data()
    {
        QTest::addColumn<QByteArray>("bytes");
        QTest::addColumn<QString>("text"); // what a QString holds in between
        QTest::newRow("ascii") << QByteArray("model.safetensors") << QStringLiteral("model.safetensors");
        QTest::newRow("utf-8") << QByteArray("mod\xc3\xa8le") << QString::fromUtf8("mod\xc3\xa8le");
        QTest::newRow("astral") << QByteArray("\xf0\x9f\x98\x80") << QString::fromUtf8("\xf0\x9f\x98\x80");
        QTest::newRow("not utf-8") << QByteArray("bad\xff\xfe.st") << QString::fromUtf16(u"bad\xdcff\xdcfe.st");
        QTest::newRow("lone lead byte") << QByteArray("a\xc3") << QString::fromUtf16(u"a\xdcc3");
        QTest::newRow("encoded surrogate") << QByteArray("\xed\xa0\x80") << QString::fromUtf16(u"\xdced\xdca0\xdc80");
        QTest::newRow("overlong slash") << QByteArray("\xc0\xaf") << QString::fromUtf16(u"\xdcc0\xdcaf");
        QTest::newRow("empty") << QByteArray() << QString();
    }
    void roundTrip()
    {
        QFETCH(QByteArray, bytes);
        QFETCH(QString, text);
        const std::string_view view(bytes.constData(), static_cast<std::size_t>(bytes.size()));
        const QString decoded = QString::fromStdU16String(pathToUtf16(view));
        QCOMPARE(decoded, text);
        QCOMPARE(QByteArray::fromStdString(pathFromUtf16(decoded.toStdU16String())), bytes);
    }

    // Every byte string comes back: all single bytes, all pairs, and random strings.
    void everyByteComesBack()
    {
        std::mt19937 random(15);
        for (int n = 0; n < 70000; ++n) {
            std::string bytes;
            if (n < 256)
                bytes = std::string(1, static_cast<char>(n));
            else if (n < 256 + 65536)
                bytes = {static_cast<char>((n - 256) >> 8), static_cast<char>(n - 256)};
            else
                for (int k = 0; k < 12; ++k)
                    bytes += static_cast<char>(random());
            QCOMPARE(pathFromUtf16(pathToUtf16(bytes)), bytes);
        }
    }

    // A QString from elsewhere: lone surrogates that stand for no byte become U+FFFD.
    void loneSurrogates()
    {
        QCOMPARE(pathFromUtf16(u"a\xd800z"), std::string("a\xef\xbf\xbdz"));
        QCOMPARE(pathFromUtf16(u"\xdc7f"), std::string("\xef\xbf\xbd"));
    }
};

QTEST_GUILESS_MAIN(tst_PathBytes)
#include "tst_pathbytes.moc"
