#include "ui/common/panetitle.h"

#include <QResizeEvent>

#include <algorithm>

namespace stb {

namespace {
// Below this the label is being laid out, not shown; eliding to it would leave only "…".
constexpr int kNarrowestElide = 40;
}

PaneTitle::PaneTitle(QWidget *parent)
    : QLabel(parent)
{
    QFont bold = font();
    bold.setBold(true);
    setFont(bold);
    setTextFormat(Qt::PlainText);
    setTextInteractionFlags(Qt::TextSelectableByMouse);
    // Ignored: the layout gives the title what is left beside the pane's controls.
    setSizePolicy(QSizePolicy::Ignored, QSizePolicy::Fixed);
}

void PaneTitle::setTitle(const QString &title)
{
    m_title = title;
    setToolTip(title);
    elide();
}

void PaneTitle::resizeEvent(QResizeEvent *event)
{
    QLabel::resizeEvent(event);
    elide();
}

void PaneTitle::elide()
{
    const int width = std::max(kNarrowestElide, contentsRect().width());
    setText(fontMetrics().elidedText(m_title, Qt::ElideMiddle, width));
}

} // namespace stb
