#pragma once

#include "core/io/checkpoint.h"
#include "ui/document/tensortreemodel.h"

#include <QWidget>

class QTextBrowser;

namespace stb {

// Header facts about the selection, never a byte of tensor data: for a tensor its dtype, shape,
// counts, offsets and their alignment; for a group (or the whole model) its totals by dtype.
class OverviewPane : public QWidget {
    Q_OBJECT
public:
    explicit OverviewPane(QWidget *parent = nullptr);

    void showTensor(const Checkpoint &checkpoint, const Checkpoint::Tensor &tensor);
    // `title` names the group ("model.layers.3"), or the file for the whole model.
    void showGroup(const QString &title, const TensorTreeModel::Totals &totals,
        const std::vector<TensorTreeModel::DTypeTotals> &byDType);
    QString plainText() const;

private:
    QTextBrowser *m_text;
};

} // namespace stb
