#include "ui/shell/messagebar.h"

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
    // Soft tints of the usual information/warning/error colours, readable in light themes.
    QColor tint;
    QStyle::StandardPixmap icon = QStyle::SP_MessageBoxInformation;
    switch (kind) {
    case Kind::Information:
        tint = QColor(0xd7, 0xe8, 0xfa);
        icon = QStyle::SP_MessageBoxInformation;
        break;
    case Kind::Warning:
        tint = QColor(0xfc, 0xef, 0xc7);
        icon = QStyle::SP_MessageBoxWarning;
        break;
    case Kind::Error:
        tint = QColor(0xf8, 0xd7, 0xda);
        icon = QStyle::SP_MessageBoxCritical;
        break;
    }
    QPalette pal = palette();
    pal.setColor(QPalette::Window, tint);
    pal.setColor(QPalette::WindowText, QColor(0x20, 0x20, 0x20));
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
