#include "ui/common/longtext.h"

#include "ui/common/longtextview.h"
#include "ui/common/qtformat.h"

#include <QClipboard>
#include <QDialog>
#include <QDialogButtonBox>
#include <QGuiApplication>
#include <QLabel>
#include <QPushButton>
#include <QVBoxLayout>

using namespace Qt::StringLiterals;

namespace stb {

namespace {

// Where to cut `text` at or before `at` without splitting a UTF-8 sequence.
std::size_t characterBoundary(std::string_view text, std::size_t at)
{
    while (at > 0 && at < text.size() && (static_cast<unsigned char>(text[at]) & 0xC0) == 0x80)
        --at;
    return at;
}

} // namespace

QString elidedText(std::string_view utf8, std::size_t limit)
{
    if (utf8.size() <= limit)
        return toQString(utf8);
    const std::size_t cut = characterBoundary(utf8, limit);
    return toQString(utf8.substr(0, cut))
        + QObject::tr(" … (%1 more bytes)").arg(countText(utf8.size() - cut));
}

void showFullText(QWidget *parent, const QString &title, std::string_view utf8)
{
    auto *dialog = new QDialog(parent);
    dialog->setAttribute(Qt::WA_DeleteOnClose);
    dialog->setWindowTitle(title);
    auto *layout = new QVBoxLayout(dialog);
    auto *view = new LongTextView(std::string(utf8), dialog);
    view->setObjectName(u"fullText"_s);
    auto *note = new QLabel(QObject::tr("%1 bytes; long lines are wrapped at the window's width").arg(countText(utf8.size())), dialog);
    auto *buttons = new QDialogButtonBox(QDialogButtonBox::Close, dialog);
    // The whole text to the clipboard: a QString, never laid out.
    QPushButton *copy = buttons->addButton(QObject::tr("Copy All"), QDialogButtonBox::ActionRole);
    QObject::connect(copy, &QPushButton::clicked, view, [view] {
        QGuiApplication::clipboard()->setText(toQString(view->text()));
    });
    QObject::connect(buttons, &QDialogButtonBox::rejected, dialog, &QDialog::close);
    layout->addWidget(note);
    layout->addWidget(view);
    layout->addWidget(buttons);
    dialog->resize(800, 600);
    dialog->show();
}

} // namespace stb
