#pragma once

#include <QLabel>

namespace stb {

// A pane's one-line bold title (the tensor, its dtype and shape, what is shown of it). It never
// widens the pane and never wraps (a wrapped title would change the height of the chart or map
// under it): when the text is wider than the label, it is elided in the middle, where tensor
// names differ least, and the whole text is in the tooltip. The text is expected bounded already
// (shownName); this only fits it to the width.
class PaneTitle : public QLabel {
    Q_OBJECT
public:
    explicit PaneTitle(QWidget *parent = nullptr);

    void setTitle(const QString &title);
    QString title() const { return m_title; }
    // What the label shows now: the title, or the title elided to the label's width.
    QString shownText() const { return text(); }

protected:
    void resizeEvent(QResizeEvent *event) override;

private:
    void elide();

    QString m_title;
};

} // namespace stb
