#include "ui/hex/hexpane.h"

#include "core/io/safetensorsfile.h"
#include "ui/common/qtformat.h"
#include "ui/common/statuscolors.h"
#include "ui/hex/hexview.h"

#include <QHBoxLayout>
#include <QLabel>
#include <QLineEdit>
#include <QShortcut>
#include <QVBoxLayout>

using namespace Qt::StringLiterals;

namespace stb {

HexPane::HexPane(QWidget *parent)
    : QWidget(parent)
    , m_view(new HexView(this))
    , m_goTo(new QLineEdit(this))
    , m_status(new QLabel(this))
    , m_element(new QLabel(this))
{
    auto *goToLabel = new QLabel(tr("&Go to offset:"), this);
    goToLabel->setBuddy(m_goTo);
    m_goTo->setPlaceholderText(tr("decimal or 0x hex"));
    m_goTo->setClearButtonEnabled(true);
    m_goTo->setToolTip(tr("Jump to a byte offset in the file (Ctrl+G)"));
    m_goTo->setMaximumWidth(m_goTo->fontMetrics().horizontalAdvance(u'0') * 28);
    m_status->setTextInteractionFlags(Qt::TextSelectableByMouse);
    m_status->setTextFormat(Qt::PlainText);
    m_status->setMinimumWidth(1); // long tensor names must not widen the pane
    m_status->setWordWrap(true); // the tensor's name goes under the offset in a narrow pane
    m_status->setContentsMargins(4, 0, 4, 4);
    // The decoded value is the point of the line under the bytes: a line of its own, so a long
    // tensor name in the location never pushes it out of the window.
    m_element->setTextInteractionFlags(Qt::TextSelectableByMouse);
    m_element->setTextFormat(Qt::PlainText);
    m_element->setMinimumWidth(1);
    m_element->setContentsMargins(4, 0, 4, 0);
    m_element->setObjectName(u"hexElement"_s);
    m_element->hide();

    auto *bar = new QHBoxLayout;
    bar->setContentsMargins(4, 4, 4, 0);
    bar->addWidget(goToLabel);
    bar->addWidget(m_goTo, 1);
    bar->addStretch(1);
    auto *layout = new QVBoxLayout(this);
    layout->setContentsMargins(0, 0, 0, 0);
    layout->addLayout(bar);
    layout->addWidget(m_view, 1);
    layout->addWidget(m_element);
    layout->addWidget(m_status);

    m_goToShortcut = new QShortcut(QKeySequence(Qt::CTRL | Qt::Key_G), this);
    m_goToShortcut->setContext(Qt::WidgetWithChildrenShortcut);
    connect(m_goToShortcut, &QShortcut::activated, this, &HexPane::focusGoToOffset);
    connect(m_goTo, &QLineEdit::returnPressed, this, &HexPane::goToTypedOffset);
    connect(m_goTo, &QLineEdit::textEdited, this, [this] { m_goTo->setStyleSheet({}); });
    connect(m_view, &HexView::cursorDescriptionChanged, this,
        [this](const QString &location, const QString &element) {
            m_status->setText(location);
            m_element->setText(element);
            m_element->setVisible(!element.isEmpty());
        });
}

QString HexPane::locationText() const
{
    return m_status->text();
}

QString HexPane::elementText() const
{
    return m_element->text();
}

void HexPane::setFile(std::shared_ptr<const SafetensorsFile> file)
{
    m_goTo->clear();
    m_view->setFile(std::move(file));
}

void HexPane::setTensor(const TensorInfo *tensor)
{
    m_view->setTensor(tensor);
    if (tensor && m_view->file())
        m_view->goToOffset(m_view->file()->header().fileOffset(*tensor));
}

void HexPane::goToOffset(quint64 offset)
{
    m_view->goToOffset(offset);
}

void HexPane::goToOffset(quint64 offset, const QString &note)
{
    m_view->goToOffset(offset);
    if (note.isEmpty())
        return;
    // The element line is rewritten on the next cursor move, which drops the note with it. The
    // note comes first: the line is one line, cut at the pane's edge.
    const QString element = m_view->cursorElement();
    m_element->setText(element.isEmpty() ? note : note + u"  ·  "_s + element);
    m_element->show();
}

void HexPane::setStale(bool stale)
{
    m_view->setStale(stale);
}

void HexPane::focusGoToOffset()
{
    m_goTo->setFocus(Qt::ShortcutFocusReason);
    m_goTo->selectAll();
}

void HexPane::setGoToShortcutEnabled(bool on)
{
    m_goToShortcut->setEnabled(on);
}

std::optional<quint64> HexPane::parseOffset(QStringView text)
{
    QString digits = text.trimmed().toString();
    digits.remove(u'_').remove(u',').remove(u' ');
    int base = 10;
    if (digits.startsWith(u"0x"_s, Qt::CaseInsensitive)) {
        digits = digits.mid(2);
        base = 16;
    }
    if (digits.isEmpty())
        return std::nullopt;
    bool ok = false;
    const quint64 value = digits.toULongLong(&ok, base);
    return ok ? std::optional(value) : std::nullopt;
}

void HexPane::goToTypedOffset()
{
    const auto &file = m_view->file();
    if (!file)
        return;
    const auto offset = parseOffset(m_goTo->text());
    if (!offset)
        return showProblem(tr("“%1” is not an offset: type a decimal number or 0x followed by hex digits.")
                               .arg(m_goTo->text()));
    if (*offset >= file->mapping().size())
        return showProblem(tr("Offset %1 is past the end of the file (%2 bytes).")
                               .arg(offsetText(*offset), countText(file->mapping().size())));
    m_goTo->setStyleSheet({});
    m_view->goToOffset(*offset);
    m_view->setFocus(Qt::OtherFocusReason);
    emit offsetEntered(*offset);
}

void HexPane::showProblem(const QString &text)
{
    m_goTo->setStyleSheet(invalidFieldStyle(palette()));
    m_status->setText(text);
}

} // namespace stb
