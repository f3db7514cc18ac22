#pragma once

#include "core/io/checkpoint.h"
#include "ui/common/jobtracker.h"

#include <QDialog>

#include <memory>
#include <vector>

class QDialogButtonBox;
class QLabel;
class QLineEdit;
class QProgressBar;

namespace stb {

// The SHA-256 of every file of a checkpoint (each shard), computed in the background: what
// `sha256sum` prints and the Hub shows as a file's LFS object id. Digests appear one by one as
// selectable text, shard after shard; closing the dialog cancels the reading.
class Sha256Dialog : public QDialog {
    Q_OBJECT
public:
    explicit Sha256Dialog(std::shared_ptr<const Checkpoint> checkpoint, QWidget *parent = nullptr);

    bool isRunning() const { return m_next < m_files.size(); }
    // The digest shown for shard `shard` (empty until it is known).
    QString digest(std::size_t shard) const;
    // "SHA-256 of this file, …" or "SHA-256 of each of the model's 3 shard files, …"
    QString introText() const;

signals:
    void finished();

private:
    void hashNext();

    std::shared_ptr<const Checkpoint> m_checkpoint;
    std::vector<std::shared_ptr<const MappedFile>> m_files; // nullptr for a shard not opened
    std::size_t m_next = 0; // the shard being hashed
    std::uint64_t m_before = 0, m_total = 0; // bytes of the shards hashed already, of all
    JobTracker<std::string> m_job;
    std::vector<QLineEdit *> m_digests;
    QLabel *m_intro = nullptr;
    QProgressBar *m_progress;
    QDialogButtonBox *m_buttons;
};

} // namespace stb
