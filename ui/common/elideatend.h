#pragma once

#include <QStyledItemDelegate>

namespace stb {

// Cells cut at their end where their view cuts in the middle (the view's setting is for the
// names beside them): lists and keys that differ early read best from their start (the audit's
// flags, the metadata keys "model-00001-of-…").
class ElideAtEndDelegate : public QStyledItemDelegate {
public:
    using QStyledItemDelegate::QStyledItemDelegate;

protected:
    void initStyleOption(QStyleOptionViewItem *option, const QModelIndex &index) const override
    {
        QStyledItemDelegate::initStyleOption(option, index);
        option->textElideMode = Qt::ElideRight;
    }
};

} // namespace stb
