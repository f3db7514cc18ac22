#pragma once

#include "core/compare/compareresult.h"

#include <QStringList>
#include <QWidget>

#include <memory>

class QLabel;
class QModelIndex;
class QTreeView;

namespace stb {

class CompareFilterModel;
class CompareModel;

// The two trees of a compare window, A on the left and B on the right, with a legend of the
// status colours. They have the same rows (one tree over the names of both sides) and move as
// one: expanding, collapsing, scrolling, selecting or resizing a column on one side does the
// same on the other. Expansion and selection survive a new result for the same files.
class CompareTreesView : public QWidget {
    Q_OBJECT
public:
    explicit CompareTreesView(QWidget *parent = nullptr);

    void setResult(std::shared_ptr<const CompareResult> result);
    void setDifferencesOnly(bool on);
    void setPattern(const QString &pattern);
    void setSideTitles(const QString &a, const QString &b);

    bool selectPath(const QString &fullName);
    QString selectedPath() const;
    // The selected row in model coordinates (invalid for none) and its pair (nullptr for a group).
    QModelIndex selectedIndex() const;
    const TensorPair *selectedPair() const;

    QTreeView *treeA() const { return m_treeA; }
    QTreeView *treeB() const { return m_treeB; }
    CompareModel *modelA() const { return m_modelA; }
    CompareModel *modelB() const { return m_modelB; }
    CompareFilterModel *proxyA() const { return m_proxyA; }
    CompareFilterModel *proxyB() const { return m_proxyB; }

signals:
    void selectionChanged();

private:
    QWidget *createSide(QTreeView *tree, QLabel *title);
    QWidget *createLegend();
    void connectPair(QTreeView *from, QTreeView *to);
    void expandDefault();
    void restoreExpanded(const QStringList &paths);
    QStringList expandedPaths() const;

    CompareModel *m_modelA, *m_modelB;
    CompareFilterModel *m_proxyA, *m_proxyB;
    QTreeView *m_treeA, *m_treeB;
    QLabel *m_titleA, *m_titleB;
    bool m_syncing = false; // one side is following the other: do not echo back
    // What the user had open and selected in the last result, for the next one of the same files
    // (a re-run with other tolerances goes through an empty tree while it computes).
    std::shared_ptr<const Checkpoint> m_keptA, m_keptB;
    QStringList m_keptExpanded;
    QString m_keptSelection;
};

} // namespace stb
