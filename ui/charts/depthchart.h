#pragma once

#include <QColor>
#include <QWidget>

#include <cstdint>
#include <vector>

class QLabel;
class QStackedLayout;

namespace stb {

// Values over the blocks of a repeat, one line per role (a depth profile, or rel-L2 over depth
// between two checkpoints), with marked points (outliers). Hovering a point shows its value,
// clicking one reports it. Like its siblings in ui/charts/, the only kind of file that knows Qt
// Charts: callers hand over plain numbers.
class DepthChart : public QWidget {
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
    // Shows `text` instead of a chart ("computing…", "select a repeat").
    void showMessage(const QString &text);
    QString message() const;
    int lineCount() const { return static_cast<int>(m_lines.size()); }
    int markerCount() const { return static_cast<int>(m_markers.size()); }
    // The text shown for the point nearest to block number x on a line (what hovering shows).
    QString pointText(int line, int position) const;
    // The colour of line `line`, fixed by its index so it survives hiding others: callers show it
    // beside the line's name (the chart has no legend: role names are too long for one).
    static QColor lineColor(int line);

signals:
    // A point was clicked: the line and the x position nearest to it.
    void pointClicked(int line, int position);

private:
    void rebuild();
    int positionOf(double x) const;

    QStackedLayout *m_stack;
    QLabel *m_message;
    QWidget *m_view;
    QString m_yTitle;
    std::vector<std::uint64_t> m_x;
    std::vector<Line> m_lines;
    std::vector<Marker> m_markers;
};

} // namespace stb
