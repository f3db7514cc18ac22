// STB_KERNELS: how its values are read, and that a process started with it runs the family it
// names (the test starts itself again with the variable set, since the choice is read once).
#include "core/stats/kernels/avx512.h"
#include "core/stats/kernels/kernelchoice.h"

#include <QCoreApplication>
#include <QProcess>
#include <QProcessEnvironment>
#include <QTest>

#include <cstdlib>

using namespace Qt::StringLiterals;
using namespace stb;
using kernels::KernelRequest;

Q_DECLARE_METATYPE(stb::kernels::KernelRequest)

class tst_KernelChoice : public QObject {
    Q_OBJECT

private slots:
    void parse_data();
    void parse();
    void activeKernels();
    void environmentChoosesKernels_data();
    void environmentChoosesKernels();
};

void tst_KernelChoice::parse_data()
{
    QTest::addColumn<QByteArray>("value");
    QTest::addColumn<bool>("unset");
    QTest::addColumn<KernelRequest>("request");
    QTest::addColumn<bool>("warns");
    QTest::newRow("unset") << QByteArray() << true << KernelRequest::Auto << false;
    QTest::newRow("empty") << QByteArray("") << false << KernelRequest::Auto << false;
    QTest::newRow("auto") << QByteArray("auto") << false << KernelRequest::Auto << false;
    QTest::newRow("portable") << QByteArray("portable") << false << KernelRequest::Portable << false;
    QTest::newRow("avx512") << QByteArray("avx512") << false << KernelRequest::Avx512 << false;
    QTest::newRow("upper case") << QByteArray("PORTABLE") << false << KernelRequest::Auto << true;
    QTest::newRow("avx2") << QByteArray("avx2") << false << KernelRequest::Auto << true;
    QTest::newRow("trailing space") << QByteArray("portable ") << false << KernelRequest::Auto << true;
    QTest::newRow("escape sequence") << QByteArray("\x1b[2Jx") << false << KernelRequest::Auto << true;
    QTest::newRow("long") << QByteArray(5000, 'a') << false << KernelRequest::Auto << true;
}

void tst_KernelChoice::parse()
{
    QFETCH(QByteArray, value);
    QFETCH(bool, unset);
    QFETCH(KernelRequest, request);
    QFETCH(bool, warns);
    const auto parsed = kernels::parseKernelRequest(unset ? nullptr : value.constData());
    QCOMPARE(parsed.request, request);
    QCOMPARE(!parsed.warning.empty(), warns);
    if (warns) {
        QVERIFY(parsed.warning.find("using auto") != std::string::npos);
        QVERIFY(parsed.warning.size() < 200); // bounded, whatever the value's length
        for (char c : parsed.warning)
            QVERIFY2(static_cast<unsigned char>(c) >= 0x20, "a control character reaches the terminal");
    }
}

// What this process runs, as STB_KERNELS asked (environmentChoosesKernels runs this alone in a
// child process with the variable set).
void tst_KernelChoice::activeKernels()
{
    const char *name = kernels::activeKernelName();
    qInfo("active kernels: %s", name);
    const auto request = kernels::parseKernelRequest(std::getenv("STB_KERNELS")).request;
    const bool wide = kernels::avx512::supported() && request != KernelRequest::Portable;
    QCOMPARE(QByteArray(name), QByteArray(wide ? "avx512" : "portable"));
}

void tst_KernelChoice::environmentChoosesKernels_data()
{
    const QByteArray best = kernels::avx512::supported() ? "avx512" : "portable";
    QTest::addColumn<QString>("value");
    QTest::addColumn<QByteArray>("expected");
    QTest::addColumn<QByteArray>("message"); // on stderr; empty: none
    QTest::newRow("auto") << u"auto"_s << best << QByteArray();
    QTest::newRow("portable") << u"portable"_s << QByteArray("portable") << QByteArray();
    QTest::newRow("avx512") << u"avx512"_s << best
                            << (kernels::avx512::supported() ? QByteArray() : QByteArray("lacks AVX-512"));
    QTest::newRow("unknown") << u"fastest"_s << best << QByteArray("STB_KERNELS=fastest is not one of");
}

void tst_KernelChoice::environmentChoosesKernels()
{
    QFETCH(QString, value);
    QFETCH(QByteArray, expected);
    QFETCH(QByteArray, message);
    QProcess child;
    QProcessEnvironment environment = QProcessEnvironment::systemEnvironment();
    environment.insert(u"STB_KERNELS"_s, value);
    child.setProcessEnvironment(environment);
    child.start(QCoreApplication::applicationFilePath(), { u"activeKernels"_s });
    QVERIFY(child.waitForFinished(60000));
    const QByteArray out = child.readAllStandardOutput(), err = child.readAllStandardError();
    QVERIFY2(child.exitCode() == 0, out + err);
    QVERIFY2(out.contains("active kernels: " + expected), out);
    if (message.isEmpty())
        QVERIFY2(!err.contains("STB_KERNELS"), err);
    else
        QVERIFY2(err.contains(message), err);
}

QTEST_GUILESS_MAIN(tst_KernelChoice)
#include "tst_kernelchoice.moc"
