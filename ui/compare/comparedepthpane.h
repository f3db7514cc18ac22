#pragma once

#include "core/compare/compareresult.h"
#include "core/layers/layerdiff.h"

#include <QWidget>

#include <memory>

class QComboBox;

namespace stb {

class DepthView;

// The compare window's Depth tab: per role, relative L2 and cosine over the blocks of a repeat
// (which layers a fine-tune or merge changed, and how much). Laid out from the finished
// comparison's metrics, names only, so it is immediate. Clicking a point selects that tensor in
// both trees.
class CompareDepthPane : public QWidget {
    Q_OBJECT
public:
    explicit CompareDepthPane(QWidget *parent = nullptr);
    ~CompareDepthPane() override;

    // nullptr while comparing.
    void setResult(std::shared_ptr<const CompareResult> result);
    // Chooses a repeat by position in layerDiff().repeats (nested ones follow their outer one).
    void setRepeat(int entry);
    const LayerDiff &layerDiff() const { return m_diff; }
    DepthView *view() const { return m_view; }
    int repeatCount() const;

signals:
    void pathActivated(const QString &fullName);

private:
    void show();

    std::shared_ptr<const CompareResult> m_result;
    LayerDiff m_diff;
    // Every repeat, nested ones after their outer one, with its series.
    std::vector<std::pair<const Repeat *, const RepeatDiff *>> m_entries;
    QComboBox *m_repeats;
    DepthView *m_view;
};

} // namespace stb
