// Every colour that carries meaning stays readable on the light (Fusion's standard) and the dark
// palette: tone text on the window and base, the palette's text on tone tints, chart series,
// marks and depth lines on the plot area. Contrast by WCAG's relative luminance.
#include "ui/charts/chartpalette.h"
#include "ui/charts/depthchart.h"
#include "ui/common/darkpalette.h"
#include "ui/common/statuscolors.h"
#include "ui/layoutmap/layoutmapstyle.h"

#include <QApplication>
#include <QStyle>
#include <QStyleFactory>
#include <QTest>

#include <algorithm>
#include <cmath>

using namespace Qt::StringLiterals;

namespace stb {

namespace {

double luminance(const QColor &c)
{
    auto channel = [](double v) { return v <= 0.03928 ? v / 12.92 : std::pow((v + 0.055) / 1.055, 2.4); };
    return 0.2126 * channel(c.redF()) + 0.7152 * channel(c.greenF()) + 0.0722 * channel(c.blueF());
}

double contrast(const QColor &a, const QColor &b)
{
    const double la = luminance(a), lb = luminance(b);
    return (std::max(la, lb) + 0.05) / (std::min(la, lb) + 0.05);
}

QPalette lightPalette()
{
    return QStyleFactory::create(u"Fusion"_s)->standardPalette();
}

constexpr Tone kTones[] = { Tone::Good, Tone::Bad, Tone::Warning, Tone::Information, Tone::Muted, Tone::Changed,
    Tone::WithinTolerance, Tone::DTypeChanged, Tone::ShapeChanged, Tone::Removed, Tone::Added };

} // namespace

class tst_DarkPalette : public QObject {
    Q_OBJECT
private slots:
    void palettes_data();
    void toneText();
    void toneText_data() { palettes_data(); }
    void toneTints();
    void toneTints_data() { palettes_data(); }
    void chartColours();
    void chartColours_data() { palettes_data(); }
    void compareTintsDiffer();
    void compareTintsDiffer_data() { palettes_data(); }
    void layoutMapMissingReads();
    void layoutMapMissingReads_data() { palettes_data(); }
    void darkIsDark();
};

void tst_DarkPalette::palettes_data()
{
    QTest::addColumn<QPalette>("palette");
    QTest::newRow("light") << lightPalette();
    QTest::newRow("dark") << darkPalette();
}

// Status text (3:1, the large-text level: it is bold or short; Muted is secondary on purpose).
void tst_DarkPalette::toneText()
{
    QFETCH(QPalette, palette);
    for (const Tone tone : kTones) {
        const double least = tone == Tone::Muted ? 2.0 : 3.0;
        for (const auto role : { QPalette::Window, QPalette::Base }) {
            const double c = contrast(stb::toneText(tone, palette), palette.color(role));
            QVERIFY2(c >= least, qPrintable(u"tone %1 on role %2: %3"_s.arg(int(tone)).arg(int(role)).arg(c)));
        }
    }
}

// Rows tinted by status keep the palette's own text readable (4.5:1).
void tst_DarkPalette::toneTints()
{
    QFETCH(QPalette, palette);
    for (const Tone tone : kTones) {
        const double c = contrast(palette.color(QPalette::Text), toneTint(tone, palette));
        QVERIFY2(c >= 4.5, qPrintable(u"text on tone %1: %2"_s.arg(int(tone)).arg(c)));
    }
}

// Histograms, the compare sides, outlier marks and depth lines against the plot area (3:1).
void tst_DarkPalette::chartColours()
{
    QFETCH(QPalette, palette);
    const QColor plot = palette.color(QPalette::Base);
    for (int s = 0; s < 2; ++s)
        QVERIFY2(contrast(seriesColor(s, palette), plot) >= 3, qPrintable(QString::number(s)));
    QVERIFY(contrast(markColor(palette), plot) >= 3);
    for (int line = 0; line < 14; ++line) {
        const double c = contrast(DepthChart::lineColor(line, palette), plot);
        // Tableau's olive sits lowest on white (2:1); a 2 px line with points still reads.
        QVERIFY2(c >= 2.0, qPrintable(u"line %1: %2"_s.arg(line).arg(c)));
    }
}

// The compare legend's statuses stay apart: on the dark palette "shape changed" and "only in A"
// were one red, "changed" and "within tolerance" one olive.
void tst_DarkPalette::compareTintsDiffer()
{
    QFETCH(QPalette, palette);
    const Tone statuses[] = { Tone::Changed, Tone::WithinTolerance, Tone::DTypeChanged, Tone::ShapeChanged,
        Tone::Removed, Tone::Added };
    for (const Tone a : statuses) {
        for (const Tone b : statuses) {
            if (a >= b)
                continue;
            const QColor ca = toneTint(a, palette), cb = toneTint(b, palette);
            const double distance = std::hypot(ca.red() - cb.red(), ca.green() - cb.green(), ca.blue() - cb.blue());
            QVERIFY2(distance >= 20, qPrintable(u"tones %1 and %2: %3 apart"_s.arg(int(a)).arg(int(b)).arg(distance)));
        }
    }
}

// The layout map's missing and hole blocks follow the palette: no white block glaring on a
// dark window, and the hatch still stands out from the fill.
void tst_DarkPalette::layoutMapMissingReads()
{
    QFETCH(QPalette, palette);
    for (const auto kind : { Extent::Kind::Missing, Extent::Kind::Hole }) {
        const LayoutMapStyle style = LayoutMapStyle::forKind(kind, false, palette);
        QCOMPARE(style.fill.lightnessF() < 0.5, isDarkPalette(palette));
        QVERIFY2(contrast(style.patternColor, style.fill) >= 1.8,
            qPrintable(u"kind %1: %2"_s.arg(int(kind)).arg(contrast(style.patternColor, style.fill))));
    }
}

void tst_DarkPalette::darkIsDark()
{
    QVERIFY(isDarkPalette(darkPalette()));
    QVERIFY(!isDarkPalette(lightPalette()));
}

} // namespace stb

QTEST_MAIN(stb::tst_DarkPalette)
#include "tst_darkpalette.moc"
