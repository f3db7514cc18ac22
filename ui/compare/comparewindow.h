#pragma once

#include "core/compare/compareresult.h"

#include "ui/common/jobtracker.h"

#include <QMainWindow>

#include <memory>

class QCheckBox;
class QLabel;
class QLineEdit;
class QProgressBar;
class QSplitter;
class QPushButton;

namespace stb {

class CompareDepthPane;
class CompareDetailsPane;
class CompareRunner;
class CompareTreesView;
class MessageBar;

// "A ↔ B": two checkpoints side by side. The synchronized trees on the left, the selection's
// metrics, overviews and histograms on the right, the counts per status and the verdict in the
// status bar. The comparison runs in the background with progress and Cancel; tolerances re-run
// it; the result exports as the CLI's JSON or as Markdown. Dropping one file replaces B, two
// files replace both.
class CompareWindow : public QMainWindow {
    Q_OBJECT
public:
    explicit CompareWindow(QWidget *parent = nullptr);
    ~CompareWindow() override;

    // Opens both off the GUI thread, then compares them. Returns at once; when either cannot be
    // opened the bar says why (comparisonFailed). `openA`: A is already open (the document the
    // comparison starts from), so only B is read; its path is then ignored.
    void openFiles(const QString &a, const QString &b, std::shared_ptr<const Checkpoint> openA = {});
    void setCheckpoints(std::shared_ptr<const Checkpoint> a, std::shared_ptr<const Checkpoint> b);
    // Absolute and relative tolerance as typed (empty: not given). False, changing nothing, when
    // either is not a non-negative number; otherwise re-runs the comparison if they changed.
    bool setTolerances(const QString &atol, const QString &rtol);
    void cancel();
    bool isComparing() const;
    // Selects that tensor or group now, or once the running comparison is done.
    void selectPath(const QString &fullName);

    // nullptr while comparing, after Cancel, or when nothing is open.
    const std::shared_ptr<const CompareResult> &result() const { return m_result; }
    QString summaryText() const;
    QString verdictText() const;
    bool exportJson(const QString &path, QString *error = nullptr) const;
    bool exportMarkdown(const QString &path, QString *error = nullptr) const;

    CompareTreesView *trees() const { return m_trees; }
    CompareDetailsPane *details() const { return m_details; }
    CompareDepthPane *depthPane() const { return m_depth; }
    QCheckBox *differencesOnlyBox() const { return m_differencesOnly; }
    QLineEdit *atolEdit() const { return m_atol; }
    QLineEdit *rtolEdit() const { return m_rtol; }
    QProgressBar *progressBar() const { return m_progress; }
    MessageBar *messageBar() const { return m_bar; }
    CompareRunner *runner() const { return m_runner; }

signals:
    void comparisonFinished();
    void comparisonCancelled();
    void comparisonFailed();

protected:
    void dragEnterEvent(QDragEnterEvent *event) override;
    void dropEvent(QDropEvent *event) override;
    void resizeEvent(QResizeEvent *event) override;

private:
    QWidget *createControls();
    void createMenus();
    void start();
    void setBusy(bool busy);
    void onFinished(std::shared_ptr<const CompareResult> result);
    void onSelectionChanged();
    void exportDialog(bool json);
    void applyTolerances();

    std::shared_ptr<const Checkpoint> m_a, m_b;
    std::shared_ptr<const CompareResult> m_result;
    CompareOptions m_options;
    QString m_pendingSelection;
    int m_pendingExport = 0; // 1 JSON, 2 Markdown: asked for while tolerances were being applied
    CompareRunner *m_runner;
    // Opening A and B; a pair so both arrive together.
    JobTracker<std::pair<std::shared_ptr<const Checkpoint>, std::shared_ptr<const Checkpoint>>> m_opening;
    MessageBar *m_bar;
    CompareTreesView *m_trees;
    QSplitter *m_splitter = nullptr; // the trees beside the details, or above them when narrow
    CompareDetailsPane *m_details;
    CompareDepthPane *m_depth;
    QLineEdit *m_filter = nullptr;
    QCheckBox *m_differencesOnly = nullptr;
    QLineEdit *m_atol = nullptr;
    QLineEdit *m_rtol = nullptr;
    QPushButton *m_exportJson = nullptr;
    QPushButton *m_exportMarkdown = nullptr;
    QLabel *m_summary;
    QLabel *m_verdict;
    QProgressBar *m_progress;
    QPushButton *m_cancel;
};

} // namespace stb
