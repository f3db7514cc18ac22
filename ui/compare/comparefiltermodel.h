#pragma once

#include "ui/document/tensorfiltermodel.h"

namespace stb {

// The name filter of TensorFilterModel plus "differences only" for one side of a comparison.
// Both sides of a compare window are filtered with the same settings over the same tree, so
// they keep the same rows.
class CompareFilterModel : public TensorFilterModel {
    Q_OBJECT
public:
    explicit CompareFilterModel(QObject *parent = nullptr);

    // Hides identical tensors, and changed ones within the tolerances when tolerances are given.
    void setDifferencesOnly(bool on);
    bool differencesOnly() const { return m_differencesOnly; }

protected:
    bool filterAcceptsRow(int sourceRow, const QModelIndex &sourceParent) const override;

private:
    bool m_differencesOnly = false;
};

} // namespace stb
