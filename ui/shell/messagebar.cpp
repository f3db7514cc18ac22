#include "ui/shell/messagebar.h"

#include "ui/common/statuscolors.h"
#include <QAction>
#include <QHBoxLayout>
#include <QLabel>
#include <QStyle>
#include <QToolButton>

using namespace Qt::StringLiterals;

namespace stb {

MessageBar::MessageBar(QWidget *parent)
    : QFrame(parent)
    , m_icon(new QLabel(this))
    , m_text(new QLabel(this))
    , m_layout(new QHBoxLayout(this))
{
    setFrameShape(QFrame::StyledPanel);
    setAutoFillBackground(true);
    m_text->setWordWrap(true);
    m_text->setTextInteractionFlags(Qt::TextSelectableByMouse);
    m_layout->setContentsMargins(8, 4, 4, 4);
    m_layout->addWidget(m_icon);
    m_layout->addWidget(m_text, 1);

    auto *close = new QToolButton(this);
    close->setAutoRaise(true);
    close->setIcon(style()->standardIcon(QStyle::SP_TitleBarCloseButton));
    close->setToolTip(tr("Dismiss"));
    connect(close, &QToolButton::clicked, this, &QWidget::hide);
    m_layout->addWidget(close);
    hide();
}

void MessageBar::showMessage(Kind kind, const QString &text)
{
    // Tints of the usual information/warning/error colours, under the palette's own text.
    Tone tone = Tone::Information;
    QStyle::StandardPixmap icon = QStyle::SP_MessageBoxInformation;
    switch (kind) {
    case Kind::Information:
        tone = Tone::Information;
        icon = QStyle::SP_MessageBoxInformation;
        break;
    case Kind::Warning:
        tone = Tone::Warning;
        icon = QStyle::SP_MessageBoxWarning;
        break;
    case Kind::Error:
        tone = Tone::Bad;
        icon = QStyle::SP_MessageBoxCritical;
        break;
    }
    // From the parent's palette: ours was tinted by the previous message.
    QPalette pal = parentWidget() ? parentWidget()->palette() : QPalette();
    pal.setColor(QPalette::Window, toneTint(tone, pal));
    setPalette(pal);
    const int size = style()->pixelMetric(QStyle::PM_SmallIconSize, nullptr, this);
    m_icon->setPixmap(style()->standardIcon(icon).pixmap(size, size));
    m_text->setText(text);
    show();
}

QString MessageBar::text() const
{
    return m_text->text();
}

QAction *MessageBar::addAction(const QString &text)
{
    auto *action = new QAction(text, this);
    auto *button = new QToolButton(this);
    button->setDefaultAction(action);
    button->setToolButtonStyle(Qt::ToolButtonTextOnly);
    m_layout->insertWidget(m_layout->count() - 1, button);
    return action;
}

} // namespace stb
