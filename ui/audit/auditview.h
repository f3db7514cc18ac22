#pragma once

#include "core/audit/audit.h"
#include "ui/common/jobtracker.h"
#include "ui/values/locatemenu.h"

#include <QWidget>

#include <memory>

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

    // Scans the whole checkpoint (again); histograms get `bins` bins.
    void start(unsigned bins = 10);
    void cancel();
    bool isRunning() const { return m_job.isRunning(); }
    // The scans, for a test to wait until a cancelled one has returned.
    const JobTrackerBase &jobs() const { return m_job; }
    unsigned bins() const { return m_bins; }

    // Makes that tensor's row current without emitting tensorSelected; no row if it is hidden.
    void selectTensor(const QString &name);
    bool exportJson(const QString &path, QString *error = nullptr) const;
    bool exportMarkdown(const QString &path, QString *error = nullptr) const;

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
    void closeRequested();

private:
    void onFinished(std::optional<AuditResult> result);
    void setRunning(bool running);
    void exportWithDialog(bool markdown);
    void showContextMenu(const QPoint &position);

    std::shared_ptr<const Checkpoint> m_checkpoint;
    AuditModel *m_model;
    AuditFilterModel *m_proxy;
    JobTracker<AuditResult> m_job;
    unsigned m_bins = 10;
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
