#pragma once

#include "core/stats/tensorstats.h"

#include <QColor>
#include <QWidget>

#include <vector>

class QLabel;
class QStackedLayout;

namespace stb {

class ChartCanvas;

// Histograms drawn over each other on one value axis (the two sides of a comparison), or a
// single one (a − b). The only place besides its siblings in ui/charts/ that knows Qt Charts:
// callers hand over core Histograms and never see a chart type.
class OverlayChart : public QWidget {
    Q_OBJECT
public:
    struct Series {
        QString name;
        QColor color;
        Histogram histogram; // series drawn together should share their bins
    };

    explicit OverlayChart(QWidget *parent = nullptr);
    ~OverlayChart() override;

    void setTitle(const QString &title);
    void setSeries(const std::vector<Series> &series);
    // Shows `text` instead of a chart ("computing…", "no finite values").
    void showMessage(const QString &text);
    int seriesCount() const { return m_seriesCount; }
    QString message() const;

private:
    QStackedLayout *m_stack;
    QLabel *m_message;
    QWidget *m_view;
    QString m_title;
    int m_seriesCount = 0;
};

} // namespace stb
