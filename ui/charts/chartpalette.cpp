#include "ui/charts/chartpalette.h"

#include <QAbstractAxis>
#include <QChart>
#include <QLegend>
#include <QPalette>

#include <iterator>

namespace stb {

namespace {

bool isDark(const QPalette &palette)
{
    return palette.color(QPalette::Base).lightnessF() < 0.5;
}

// The hues of series, in order: a steady blue, then an orange that stays apart from it for
// readers with a red-green deficiency.
constexpr QRgb kSeries[] = { 0x2c5d8f, 0xc8641a, 0x2c8f5d };

} // namespace

void applyPalette(QChart *chart, const QPalette &palette)
{
    const QColor text = palette.color(QPalette::Text);
    chart->setBackgroundVisible(false);
    chart->setPlotAreaBackgroundBrush(palette.color(QPalette::Base));
    chart->setPlotAreaBackgroundVisible(true);
    chart->setTitleBrush(text);
    chart->legend()->setLabelColor(text);
    for (QAbstractAxis *axis : chart->axes()) {
        axis->setLabelsColor(text);
        axis->setTitleBrush(text);
        axis->setLinePenColor(palette.color(QPalette::Mid));
        axis->setGridLineColor(palette.color(isDark(palette) ? QPalette::Dark : QPalette::Midlight));
    }
}

QColor seriesColor(int series, const QPalette &palette)
{
    const QColor base = QColor::fromRgb(kSeries[static_cast<std::size_t>(series) % std::size(kSeries)]);
    if (!isDark(palette))
        return base;
    return QColor::fromHslF(base.hslHueF(), base.hslSaturationF(), 0.66f);
}

QColor seriesFill(int series, const QPalette &palette, bool overlapping)
{
    QColor fill = seriesColor(series, palette);
    // On a light plot a lighter shade of the line; on a dark one the line's colour, dimmed by
    // transparency against the dark base.
    if (!isDark(palette))
        fill = QColor::fromHslF(fill.hslHueF(), fill.hslSaturationF(), 0.55f);
    fill.setAlphaF(overlapping ? 0.45f : (isDark(palette) ? 0.6f : 0.85f));
    return fill;
}

QColor markColor(const QPalette &palette)
{
    return isDark(palette) ? QColor::fromRgb(0xff7a6b) : QColor::fromRgb(0xc0392b);
}

} // namespace stb
