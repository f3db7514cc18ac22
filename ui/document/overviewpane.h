#pragma once

#include "core/io/checkpoint.h"
#include "core/quant/quantview.h"
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

    // With `quant`, a quantized weight's codes also show its scheme, logical shape and effective
    // parameters, and a companion the weight it belongs to.
    void showTensor(
        const Checkpoint &checkpoint, const Checkpoint::Tensor &tensor, const QuantView *quant = nullptr);
    // `title` names the group ("model.layers.3"), or the file for the whole model. With a
    // non-empty `quant` (the whole model): its schemes, bits per weight and the share of the
    // effective parameters each covers, and the effective against the raw element count.
    void showGroup(const QString &title, const TensorTreeModel::Totals &totals,
        const std::vector<TensorTreeModel::DTypeTotals> &byDType, const QuantView *quant = nullptr);
    QString plainText() const;

private:
    static QString quantizedRows(const Checkpoint &checkpoint, const QuantizedWeight &weight);
    static QString quantizationSection(const QuantView &quant);

    QTextBrowser *m_text;
};

} // namespace stb
