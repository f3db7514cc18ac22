#include "ui/common/longtext.h"

#include "ui/common/qtformat.h"

#include <QDialog>
#include <QDialogButtonBox>
#include <QLabel>
#include <QPlainTextEdit>
#include <QVBoxLayout>

using namespace Qt::StringLiterals;

namespace stb {

namespace {

// A block of the full-text view: long enough for any sane line, short enough to lay out at once.
constexpr std::size_t kBlockBytes = 4000;

// Where to cut `text` at or before `at` without splitting a UTF-8 sequence.
std::size_t characterBoundary(std::string_view text, std::size_t at)
{
    while (at > 0 && at < text.size() && (static_cast<unsigned char>(text[at]) & 0xC0) == 0x80)
        --at;
    return at;
}

// `utf8` with a line break added wherever a line runs past kBlockBytes.
QString inBlocks(std::string_view utf8, bool &broken)
{
    QString out;
    out.reserve(static_cast<qsizetype>(utf8.size() + utf8.size() / kBlockBytes + 1));
    std::size_t start = 0;
    while (start < utf8.size()) {
        const std::size_t newline = utf8.find('\n', start);
        const std::size_t lineEnd = newline == std::string_view::npos ? utf8.size() : newline;
        std::size_t end = lineEnd;
        if (end - start > kBlockBytes) {
            end = characterBoundary(utf8, start + kBlockBytes);
            broken = true;
        }
        out += toQString(utf8.substr(start, end - start));
        if (end < utf8.size())
            out += u'\n';
        start = end == lineEnd ? end + 1 : end;
    }
    return out;
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
    bool broken = false;
    auto *view = new QPlainTextEdit(dialog);
    view->setReadOnly(true);
    view->setObjectName(u"fullText"_s);
    view->setPlainText(inBlocks(utf8, broken));
    auto *note = new QLabel(QObject::tr("%1 bytes").arg(countText(utf8.size()))
            + (broken ? QObject::tr("; lines longer than %1 bytes are shown broken into pieces of that size")
                            .arg(countText(kBlockBytes))
                      : QString()),
        dialog);
    auto *buttons = new QDialogButtonBox(QDialogButtonBox::Close, dialog);
    QObject::connect(buttons, &QDialogButtonBox::rejected, dialog, &QDialog::close);
    layout->addWidget(note);
    layout->addWidget(view);
    layout->addWidget(buttons);
    dialog->resize(800, 600);
    dialog->show();
}

} // namespace stb
