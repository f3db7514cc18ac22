#pragma once

#include "core/io/checkpoint.h"
#include "ui/common/jobtracker.h"

#include <QWidget>

#include <memory>

class QLabel;
class QProgressBar;

namespace stb {

// A document tab while its checkpoint opens: "Opening…" with a busy bar, the header parsed and
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

signals:
    void opened(std::shared_ptr<const stb::Checkpoint> checkpoint);
    void failed(const QString &reason);

private:
    QString m_path;
    QString m_title;
    QLabel *m_label;
    QProgressBar *m_progress;
    JobTracker<std::shared_ptr<const Checkpoint>> m_job;
};

} // namespace stb
