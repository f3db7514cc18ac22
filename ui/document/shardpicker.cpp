#include "ui/document/shardpicker.h"

#include "core/io/checkpoint.h"
#include "ui/common/qtformat.h"

#include <QAbstractItemView>
#include <QSignalBlocker>

#include <algorithm>

#include <vector>

using namespace Qt::StringLiterals;

namespace stb {

ShardPicker::ShardPicker(const Checkpoint &checkpoint, QWidget *parent)
    : QComboBox(parent)
{
    setObjectName(u"shardPicker"_s);
    setToolTip(tr("The shard whose bytes the Layout, Hex and Metadata panes show"));
    // Narrow beside the pane tabs (it must not widen the panes); the list shows whole entries.
    setSizeAdjustPolicy(QComboBox::AdjustToMinimumContentsLengthWithIcon);
    setMinimumContentsLength(18);
    setMaximumWidth(fontMetrics().horizontalAdvance(u'0') * 30);
    std::vector<std::size_t> tensors(checkpoint.shards().size(), 0);
    for (const Checkpoint::Tensor &tensor : checkpoint.tensors()) {
        if (tensor.shard < tensors.size())
            ++tensors[tensor.shard];
    }
    int widest = 0;
    for (std::size_t s = 0; s < checkpoint.shards().size(); ++s) {
        const auto &file = checkpoint.shards()[s];
        const QString name = shownName(checkpoint.shardNames()[s], 80);
        addItem(file ? tr("%1 — %2, %3")
                           .arg(name, sizeText(file->mapping().size()),
                               countNoun(tensors[s], tr("tensor"), tr("tensors")))
                     : tr("%1 — could not be read").arg(name));
        setItemData(count() - 1, itemText(count() - 1), Qt::ToolTipRole);
        widest = std::max(widest, fontMetrics().horizontalAdvance(itemText(count() - 1)));
    }
    view()->setMinimumWidth(widest + 40);
    connect(this, &QComboBox::activated, this, [this](int index) { emit shardPicked(std::size_t(index)); });
}

void ShardPicker::setShard(std::size_t shard)
{
    const QSignalBlocker blocker(this);
    if (shard < std::size_t(count()))
        setCurrentIndex(int(shard));
}

} // namespace stb
