#pragma once

#include "core/io/checkpoint.h"
#include "ui/common/jobtracker.h"
#include "ui/document/tensortreemodel.h"

#include <QWidget>

#include <memory>

class QLabel;
class QProgressBar;

namespace stb {

// A document tab while its checkpoint opens: "Opening… N%" (shards opened) with a bar, the header parsed and
// the shards opened (side by side, see Checkpoint::open) off the GUI thread, so the window
// answers at once however large the header or however many the shards. Closing the tab drops
// the opening (after waiting for it: Checkpoint::open cannot stop midway yet).
class OpeningPage : public QWidget {
    Q_OBJECT
public:
    OpeningPage(const QString &path, const QString &title, QWidget *parent = nullptr);

    QString path() const { return m_path; }
    QString title() const { return m_title; }
    QString statusText() const;
    // The tensor tree's rows, grouped and summed in the same job (a million names take seconds),
    // once opened() was emitted; nullptr before.
    std::shared_ptr<const TensorTreeModel::Rows> rows() const { return m_rows; }

signals:
    void opened(std::shared_ptr<const stb::Checkpoint> checkpoint);
    void failed(const QString &reason);

private:
    QString m_path;
    QString m_title;
    QLabel *m_label;
    QProgressBar *m_progress;
    struct Opened {
        std::shared_ptr<const Checkpoint> checkpoint;
        std::shared_ptr<const TensorTreeModel::Rows> rows;
    };
    JobTracker<Opened> m_job;
    std::shared_ptr<const TensorTreeModel::Rows> m_rows;
};

} // namespace stb
