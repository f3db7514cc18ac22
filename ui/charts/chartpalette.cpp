#include "ui/charts/chartpalette.h"

#include <QAbstractAxis>
#include <QChart>
#include <QLegend>
#include <QPalette>

namespace stb {

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
        axis->setGridLineColor(palette.color(QPalette::Midlight));
    }
}

} // namespace stb
