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
    // Control and bidi characters escaped as in names: a value with an escape sequence or a
    // newline showed boxes, or broke a one-line cell. The escapes can lengthen the text: it
    // is cut again, to `limit` characters.
    const std::size_t cut = utf8.size() <= limit ? utf8.size() : characterBoundary(utf8, limit);
    bool longer = false;
    QString shown = escapedControls(toQString(utf8.substr(0, cut)), qsizetype(limit), &longer);
    if (cut < utf8.size())
        return shown + QObject::tr(" … (%1 more bytes)").arg(countText(utf8.size() - cut));
    return longer ? shown + u'…' : shown;
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
