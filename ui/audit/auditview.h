#pragma once

#include "core/audit/audit.h"
#include "core/audit/auditexpected.h"
#include "ui/common/jobtracker.h"
#include "ui/values/locatemenu.h"

#include <QWidget>

#include <functional>
#include <memory>
#include <vector>

class QCheckBox;
class QLabel;
class QLineEdit;
class QMenu;
class QProgressBar;
class QPushButton;
class QSortFilterProxyModel;
class QTableView;

namespace stb {

class AuditModel;
class AuditFilterModel;

// A checkpoint's audit: runs auditCheckpoint off the GUI thread with a progress bar and Cancel,
// then shows every tensor's statistics and flags in a sortable, filterable table under a
// summary line, with Markdown and JSON export. The current row follows the document's tree
// selection and drives it.
class AuditView : public QWidget {
    Q_OBJECT
public:
    explicit AuditView(std::shared_ptr<const Checkpoint> checkpoint, QWidget *parent = nullptr);

    // Scans the whole checkpoint (again) as `safetensors-inspect audit --json` does: 10-bin
    // histograms (the JSON export's), duplicates told apart without a digest of every tensor.
    // (With the Histogram pane's 64 bins and every digest, as it once ran, the scan took 1.8
    // times as long; the pane computes a tensor's own histogram when it shows it.)
    static constexpr unsigned kBins = 10;
    void start();
    void cancel();
    bool isRunning() const { return m_job.isRunning(); }
    // The scans, for a test to wait until a cancelled one has returned.
    const JobTrackerBase &jobs() const { return m_job; }

    // Makes that tensor's row current without emitting tensorSelected; no row if it is hidden.
    void selectTensor(const QString &name);
    // Every tensor, or the rows the table shows ("Flagged only" and the name filter, in the
    // table's order), said so in the file.
    enum class Rows { All, Shown };
    bool exportJson(const QString &path, QString *error = nullptr, Rows which = Rows::All) const;
    bool exportMarkdown(const QString &path, QString *error = nullptr, Rows which = Rows::All) const;
    // "3 of 40 tensors shown (flagged only, names containing “mlp”)"
    QString shownScope() const;
    bool isFiltered() const;
    // What the user ignores in this model's folder (QSettings); setting it re-counts the audit.
    AuditIgnores ignores() const;
    void setIgnores(const AuditIgnores &ignores);

    // The context menu of a row of the table (an index of proxy()): Locate in Values, each entry
    // emitting locateRequested. nullptr for no row; the caller owns it.
    QMenu *contextMenuFor(const QModelIndex &row);

    AuditModel *model() const { return m_model; }
    QSortFilterProxyModel *proxy() const;
    QTableView *table() const { return m_table; }
    QLineEdit *filterEdit() const { return m_filter; }
    QCheckBox *flaggedOnlyToggle() const { return m_flaggedOnly; }
    QProgressBar *progressBar() const { return m_progress; }
    QString summaryText() const;

signals:
    void tensorSelected(const QString &name);
    // Locate on a row's context menu: find that tensor's first NaN, minimum, … in Values.
    void locateRequested(const QString &name, LocateTarget target);
    // The scan ended: with a result in the model (true), or cancelled or failed (false).
    void finished(bool ok);
    // The counted findings changed: a scan finished or started, or the ignores changed.
    void findingsChanged();
    void closeRequested();

protected:
    void resizeEvent(QResizeEvent *event) override;

private:
    void fitNameColumn();
    int naturalWidth(int column) const; // of a column of the table, from what it holds
    void onFinished(std::optional<AuditResult> result);
    void setRunning(bool running);
    void fitFlagsColumn();
    void exportWithDialog(bool markdown);
    void showContextMenu(const QPoint &position);
    void keepingSelection(const std::function<void()> &change);
    QString currentName() const;
    std::vector<std::size_t> shownRows() const;
    void updateSummary();
    QString ignoresKey() const;

    std::shared_ptr<const Checkpoint> m_checkpoint;
    AuditModel *m_model;
    AuditFilterModel *m_proxy;
    JobTracker<AuditResult> m_job;
    bool m_syncing = false; // selectTensor is moving the current row

    QLabel *m_summary;
    QProgressBar *m_progress;
    QPushButton *m_cancel;
    QPushButton *m_exportJson;
    QPushButton *m_exportMarkdown;
    QLineEdit *m_filter;
    QCheckBox *m_flaggedOnly;
    QTableView *m_table;
};

} // namespace stb
