#pragma once

#include "core/layers/depthprofile.h"
#include "core/layers/repeat.h"

#include <QStringList>
#include <QWidget>

#include <vector>

class QComboBox;
class QListWidget;

namespace stb {

class DepthChart;

// Series over a repeat's blocks drawn as a line chart: one line per role (toggled in a list),
// one metric at a time (a statistic, or rel-L2 / cosine), one enclosing block at a time for a
// nested repeat, outliers marked. Shared by the Depth tab and the compare window; it computes
// nothing.
class DepthView : public QWidget {
    Q_OBJECT
public:
    // Per role, per metric: a series of Repeat::rows() × indices values.
    using Series = std::vector<std::vector<DepthSeries>>;

    DepthView(const QStringList &metrics, QWidget *parent = nullptr);

    // The repeat whose roles and rows are offered; `role` >= 0 is drawn alone at first. Shows
    // `message` until setSeries.
    void setRepeat(const Repeat *repeat, int role, const QString &message);
    // Draws the repeat's series; outliers with `stat` equal to the metric index are marked.
    void setSeries(Series series, std::vector<DepthOutlier> outliers = {});
    void showMessage(const QString &text);
    void setMetric(int metric);
    void setOuterRow(int row);
    const Repeat *repeat() const { return m_repeat; }
    DepthChart *chart() const { return m_chart; }
    QString statusText() const { return m_status; }

signals:
    // A point was clicked: its row (0 unless nested), column (into Repeat::indices) and role.
    void blockClicked(std::size_t row, std::size_t column, std::size_t role);
    void statusChanged(const QString &text);

private:
    void draw();
    std::size_t row() const;

    const Repeat *m_repeat = nullptr;
    Series m_series;
    std::vector<DepthOutlier> m_outliers;
    QString m_status;
    DepthChart *m_chart;
    QComboBox *m_metric;
    QComboBox *m_outer;
    QListWidget *m_roles;
};

} // namespace stb
