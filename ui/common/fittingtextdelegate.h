#pragma once

#include <QFontMetrics>
#include <QStringList>
#include <QStyledItemDelegate>

namespace stb {

// A cell that says less when it has less room: the model gives, under `role`, the cell's text in
// several lengths (longest first); the cell shows the longest that fits its width whole, and only
// the shortest is ever elided. The compare window's group statuses need it: "5 changed · 1 shape
// changed · 1 only in B" was cut to "5 change…nly in B" at 1024 px, where "7 differ" fits.
class FittingTextDelegate : public QStyledItemDelegate {
    Q_OBJECT
public:
    FittingTextDelegate(int role, QObject *parent = nullptr);

    // The first of `texts` no wider than `width` in `metrics`, else the last one (to be elided).
    static QString fitting(const QStringList &texts, const QFontMetrics &metrics, int width);

protected:
    void initStyleOption(QStyleOptionViewItem *option, const QModelIndex &index) const override;

private:
    int m_role;
};

} // namespace stb
