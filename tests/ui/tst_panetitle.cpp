#include "ui/common/panetitle.h"

#include <QHBoxLayout>
#include <QTest>
#include <QWidget>

using namespace stb;
using namespace Qt::StringLiterals;

// A pane's title in a row with a control beside it, as the Histogram, Values and Heatmap panes
// lay it out.
class tst_PaneTitle : public QObject {
    Q_OBJECT
private slots:
    void fitsItsWidth_data();
    void fitsItsWidth();
    void followsResize();
    void neverWidensThePane();
};

namespace {
const QString kLong = u"model.layers.17.self_attn.q_proj.weight.with.a.long.tail  BF16 [4096, 4096]"_s;
}

void tst_PaneTitle::fitsItsWidth_data()
{
    QTest::addColumn<QString>("title");
    QTest::addColumn<int>("width");
    QTest::addColumn<bool>("elided");
    QTest::newRow("short, wide") << u"embed.weight  F32 [10, 4]"_s << 600 << false;
    QTest::newRow("long, wide") << kLong << 1600 << false;
    QTest::newRow("long, narrow") << kLong << 260 << true;
    QTest::newRow("long, very narrow") << kLong << 120 << true;
    QTest::newRow("empty") << QString() << 300 << false;
}

void tst_PaneTitle::fitsItsWidth()
{
    QFETCH(QString, title);
    QFETCH(int, width);
    QFETCH(bool, elided);
    PaneTitle label;
    label.resize(width, label.sizeHint().height());
    label.setTitle(title);
    QCOMPARE(label.title(), title);
    QCOMPARE(label.toolTip(), title);
    const QString shown = label.shownText();
    QVERIFY2(label.fontMetrics().horizontalAdvance(shown) <= width, qPrintable(shown));
    QCOMPARE(shown.contains(u'…'), elided);
    if (!elided) {
        QCOMPARE(shown, title);
        return;
    }
    // Elided in the middle: both ends of the name stay, so similar names remain distinguishable.
    QVERIFY2(shown.startsWith(u"model."_s), qPrintable(shown));
    QVERIFY2(shown.endsWith(u"]"_s), qPrintable(shown));
}

void tst_PaneTitle::followsResize()
{
    QWidget pane;
    auto *row = new QHBoxLayout(&pane);
    auto *label = new PaneTitle(&pane);
    row->addWidget(label, 1);
    label->setTitle(kLong);
    pane.resize(220, 40);
    pane.show();
    QVERIFY(QTest::qWaitForWindowExposed(&pane));
    QTRY_VERIFY(label->shownText().contains(u'…'));
    pane.resize(1600, 40);
    QTRY_COMPARE(label->shownText(), kLong);
    pane.resize(220, 40);
    QTRY_VERIFY(label->shownText().contains(u'…'));
}

void tst_PaneTitle::neverWidensThePane()
{
    // A layout asks its children for their size: the title's length must not enter into it.
    QWidget pane;
    auto *row = new QHBoxLayout(&pane);
    auto *label = new PaneTitle(&pane);
    row->addWidget(label, 1);
    const QSize hint = pane.sizeHint(), minimum = pane.minimumSizeHint();
    label->setTitle(QString(5000, u'x'));
    QCOMPARE(pane.sizeHint().width(), hint.width());
    QCOMPARE(pane.minimumSizeHint().width(), minimum.width());
    // One line high whatever the text: a title that wrapped would push the chart down.
    label->setTitle(QString(50, u'x') + u' ' + QString(50, u'y'));
    label->resize(60, label->height());
    QCOMPARE(pane.sizeHint().height(), hint.height());
}

QTEST_MAIN(tst_PaneTitle)
#include "tst_panetitle.moc"
