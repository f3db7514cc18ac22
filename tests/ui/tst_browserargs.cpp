// safetensors-browser's command line, run as a process (offscreen): arguments it cannot honour
// are usage errors said before any window opens.
#include <QProcess>
#include <QTest>

using namespace Qt::StringLiterals;

class tst_BrowserArgs : public QObject {
    Q_OBJECT

private slots:
    // Issue 15, item 15: --pane bogus and --pane "" were ignored silently.
    void unknownPane_data()
    {
        QTest::addColumn<QString>("pane");
        QTest::newRow("bogus") << u"bogus"_s;
        QTest::newRow("empty") << QString();
        QTest::newRow("escape sequence") << u"\x1b[31mred"_s;
    }
    void unknownPane()
    {
        QFETCH(QString, pane);
        QProcess browser;
        QProcessEnvironment env = QProcessEnvironment::systemEnvironment();
        env.insert(u"QT_QPA_PLATFORM"_s, u"offscreen"_s);
        browser.setProcessEnvironment(env);
        browser.start(QStringLiteral(STB_BROWSER_PATH), { u"--pane"_s, pane, u"/nonexistent.safetensors"_s });
        if (!browser.waitForFinished(30000)) {
            browser.kill();
            QFAIL("the browser opened instead of refusing the pane");
        }
        QCOMPARE(browser.exitStatus(), QProcess::NormalExit);
        QCOMPARE(browser.exitCode(), 2);
        const QByteArray err = browser.readAllStandardError();
        for (const char *name : { "overview", "layout", "hex", "metadata", "diagnostics", "histogram", "values", "heatmap" })
            QVERIFY2(err.contains(name), err.constData());
        QVERIFY2(!err.contains('\x1b'), err.constData());
    }
};

QTEST_GUILESS_MAIN(tst_BrowserArgs)
#include "tst_browserargs.moc"
