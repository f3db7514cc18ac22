#pragma once

#include <QWidget>

class QChart;
class QChartView;
class QLabel;
class QStackedLayout;

namespace stb {

class ChartCanvas;

// What every chart in ui/charts/ is drawn in: a chart view, or a message in its place
// ("computing…", "no finite values"), and an optional note under the chart. The view reports
// the pointer in value units (hover), a drag across the plot (a new x-range) and a double-click
// (back to the whole range), for the charts that zoom. The chart is rebuilt by the subclass on
// each change and handed over whole, so series never accumulate; a palette change (a dark theme
// switched on) re-colours it.
class ChartFrame : public QWidget {
    Q_OBJECT
public:
    explicit ChartFrame(QWidget *parent = nullptr);
    ~ChartFrame() override;

    // Shows `text` instead of the chart.
    void showMessage(const QString &text);
    // The message shown, or empty while the chart is.
    QString message() const;
    // The line under the chart (empty: none).
    QString note() const;
    // Where the pointer goes (the view's viewport), and the point there that shows `value`
    // (x, y in the chart's units): what widget tests and scripted screenshots aim at.
    QWidget *canvas() const;
    QPoint canvasPoint(const QPointF &value) const;

signals:
    // The pointer is over the plot at value x (inside: true) or has left it.
    void hovered(double x, const QPoint &globalPos, bool inside);
    // A drag across the plot (zoomable frames only): from lo to hi in value units, lo < hi.
    void xRangeSelected(double lo, double hi);
    // A double-click on the plot (zoomable frames only).
    void zoomResetRequested();

protected:
    // Shows `chart`, taking it over; the previous one is deleted.
    void showChart(QChart *chart);
    QChart *chart() const;
    QChartView *view() const;
    void setZoomable(bool zoomable);
    void setNote(const QString &text);
    // The message label's text, which a subclass may decorate (a title above it).
    virtual QString decoratedMessage(const QString &text) const { return text; }
    void changeEvent(QEvent *event) override;

private:
    QStackedLayout *m_stack;
    QLabel *m_message;
    QWidget *m_chartPage;
    ChartCanvas *m_canvas;
    QLabel *m_note;
    QString m_messageText;
};

} // namespace stb
