#pragma once

#include "core/compare/compareresult.h"

#include <QWidget>

#include <memory>
#include <string_view>
#include <utility>
#include <vector>

class QSplitter;
class QTabWidget;
class QTextBrowser;
class QUrl;

namespace stb {

class CompareHistogramPane;
class OverviewPane;

// What the compare window shows for its selection: for a tensor, the difference metrics (the
// largest difference located by its index in the shape), both sides' overviews and the value
// histograms; for a group, its counts per status; for nothing, the whole comparison with its
// metadata changes.
class CompareDetailsPane : public QWidget {
    Q_OBJECT
public:
    explicit CompareDetailsPane(QWidget *parent = nullptr);

    void showPair(const std::shared_ptr<const CompareResult> &result, std::size_t pair);
    void showGroup(const CompareResult &result, int node);
    // The whole comparison with its metadata changes; values longer than kShownTextBytes are cut
    // short with a link that opens the whole of them (longtext.h).
    void showWhole(const std::shared_ptr<const CompareResult> &result);
    void showMessage(const QString &text);

    QString metricsText() const;
    // The metrics text above the charts (beside the trees: tall and narrow), or beside them (under
    // the trees: wide and low, where one above the other would leave each a strip).
    void setSideBySide(bool sideBySide);
    bool isSideBySide() const;
    CompareHistogramPane *histogramPane() const { return m_histograms; }
    OverviewPane *overviewA() const { return m_overviewA; }
    OverviewPane *overviewB() const { return m_overviewB; }

    // "[1, 2, 0]": a flat row-major element index as an index into `shape`.
    static QString multiIndexText(std::uint64_t flat, const std::vector<std::uint64_t> &shape);

private:
    void showCounts(const QString &title, const CompareTree::Counts &counts, const QString &extra);

    void showLongValue(const QUrl &link);

    QSplitter *m_splitter;
    QTextBrowser *m_metrics;
    std::shared_ptr<const CompareResult> m_wholeResult; // keeps m_longValues' text alive
    std::vector<std::pair<QString, std::string_view>> m_longValues; // (title, whole text) per link
    QTabWidget *m_tabs;
    CompareHistogramPane *m_histograms;
    OverviewPane *m_overviewA;
    OverviewPane *m_overviewB;
};

} // namespace stb
