#include "ui/common/fittingtextdelegate.h"

#include <QApplication>
#include <QStyle>

namespace stb {

FittingTextDelegate::FittingTextDelegate(int role, QObject *parent)
    : QStyledItemDelegate(parent)
    , m_role(role)
{ }

QString FittingTextDelegate::fitting(const QStringList &texts, const QFontMetrics &metrics, int width)
{
    for (const QString &text : texts) {
        if (metrics.horizontalAdvance(text) <= width)
            return text;
    }
    return texts.isEmpty() ? QString() : texts.back();
}

void FittingTextDelegate::initStyleOption(QStyleOptionViewItem *option, const QModelIndex &index) const
{
    QStyledItemDelegate::initStyleOption(option, index);
    const QStringList texts = index.data(m_role).toStringList();
    if (texts.isEmpty())
        return;
    // The room the style leaves for the text: the cell less the item's margins on both sides.
    const QStyle *style = option->widget ? option->widget->style() : QApplication::style();
    const int margin = style->pixelMetric(QStyle::PM_FocusFrameHMargin, nullptr, option->widget) + 1;
    option->text = fitting(texts, option->fontMetrics, option->rect.width() - 2 * margin);
}

} // namespace stb
