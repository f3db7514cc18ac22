#pragma once

#include "ui/charts/chartframe.h"

#include <QColor>
#include <QPalette>

#include <cstdint>
#include <vector>

namespace stb {

// Values over the blocks of a repeat, one line per role (a depth profile, or rel-L2 over depth
// between two checkpoints), with marked points (outliers). Hovering a point shows its value,
// clicking one reports it; ticks are round values (whole block numbers along x). Like its siblings in ui/charts/, the only kind of file that knows Qt
// Charts: callers hand over plain numbers.
class DepthChart : public ChartFrame {
    Q_OBJECT
public:
    struct Line {
        QString name;
        std::vector<double> values; // one per x position; NaN leaves a gap
        bool visible = true;
    };
    struct Marker {
        int line = 0;
        int position = 0; // into the x positions
        QString text; // its tooltip
    };

    explicit DepthChart(QWidget *parent = nullptr);
    ~DepthChart() override;

    // `x`: the block numbers, one per position. Replaces everything shown.
    void setData(const QString &yTitle, const std::vector<std::uint64_t> &x, const std::vector<Line> &lines,
        const std::vector<Marker> &markers);
    void setLineVisible(int line, bool visible);
    int lineCount() const { return static_cast<int>(m_lines.size()); }
    int markerCount() const { return static_cast<int>(m_markers.size()); }
    // The text shown for the point nearest to block number x on a line (what hovering shows).
    QString pointText(int line, int position) const;
    // The colour of line `line`, fixed by its index so it survives hiding others: callers show it
    // beside the line's name (the chart has no legend: role names are too long for one).
    // Lightened on a dark palette (the application's unless given), like every chart colour.
    static QColor lineColor(int line, const QPalette &palette = QPalette());

signals:
    // A point was clicked: the line and the x position nearest to it.
    void pointClicked(int line, int position);

private:
    void rebuild();
    int positionOf(double x) const;

    QString m_yTitle;
    std::vector<std::uint64_t> m_x;
    std::vector<Line> m_lines;
    std::vector<Marker> m_markers;
};

} // namespace stb
