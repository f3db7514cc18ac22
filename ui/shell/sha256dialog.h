#pragma once

#include "core/io/checkpoint.h"

#include <QDialog>
#include <QFutureWatcher>

#include <memory>
#include <vector>

class QDialogButtonBox;
class QLineEdit;
class QProgressBar;

namespace stb {

// The SHA-256 of every file of a checkpoint (each shard), computed in the background: what
// `sha256sum` prints and the Hub shows as a file's LFS object id. Digests appear one by one as
// selectable text; closing the dialog cancels the reading.
class Sha256Dialog : public QDialog {
    Q_OBJECT
public:
    explicit Sha256Dialog(std::shared_ptr<const Checkpoint> checkpoint, QWidget *parent = nullptr);
    ~Sha256Dialog() override;

    bool isRunning() const { return m_job.isRunning(); }
    // The digest shown for shard `shard` (empty until it is known).
    QString digest(std::size_t shard) const;

signals:
    void finished();

private:
    std::shared_ptr<const Checkpoint> m_checkpoint;
    QFutureWatcher<QString> m_job;
    std::vector<QLineEdit *> m_digests;
    QProgressBar *m_progress;
    QDialogButtonBox *m_buttons;
};

} // namespace stb
