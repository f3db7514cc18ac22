#include "ui/shell/sha256dialog.h"

#include "core/io/filedigest.h"
#include "ui/common/qtformat.h"

#include <QDialogButtonBox>
#include <QFontDatabase>
#include <QFormLayout>
#include <QLabel>
#include <QLineEdit>
#include <QProgressBar>
#include <QPushButton>

using namespace Qt::StringLiterals;

namespace stb {

Sha256Dialog::Sha256Dialog(std::shared_ptr<const Checkpoint> checkpoint, QWidget *parent)
    : QDialog(parent)
    , m_checkpoint(std::move(checkpoint))
    , m_progress(new QProgressBar(this))
    , m_buttons(new QDialogButtonBox(QDialogButtonBox::Close, this))
{
    setWindowTitle(tr("SHA-256"));
    auto *layout = new QVBoxLayout(this);
    const QString what = m_checkpoint->isSharded()
        ? tr("SHA-256 of each of the model's %1 shard files").arg(countText(m_checkpoint->shards().size()))
        : tr("SHA-256 of this file");
    m_intro = new QLabel(
        tr("%1, as <tt>sha256sum</tt> prints it and the Hugging Face Hub shows it (the LFS object id).")
            .arg(what),
        this);
    m_intro->setWordWrap(true);
    layout->addWidget(m_intro);
    auto *form = new QFormLayout;
    const QFont mono = QFontDatabase::systemFont(QFontDatabase::FixedFont);
    for (std::size_t i = 0; i < m_checkpoint->shards().size(); ++i) {
        const auto &shard = m_checkpoint->shards()[i];
        auto *digest = new QLineEdit(this);
        digest->setReadOnly(true);
        digest->setFont(mono);
        digest->setPlaceholderText(shard ? tr("reading %1…").arg(sizeText(shard->mapping().size()))
                                         : tr("this file could not be opened"));
        digest->setMinimumWidth(QFontMetrics(mono).horizontalAdvance(QString(66, u'0')));
        form->addRow(shownName(m_checkpoint->shardNames()[i]), digest);
        m_digests.push_back(digest);
        m_files.push_back(shard ? shard->sharedMapping() : nullptr);
        m_total += shard ? shard->mapping().size() : 0;
    }
    layout->addLayout(form);
    layout->addWidget(m_progress);
    layout->addWidget(m_buttons);
    m_progress->setRange(0, 1000);
    connect(m_buttons, &QDialogButtonBox::rejected, this, &QDialog::reject);
    // The job's progress is within the shard being hashed: the bar shows all bytes.
    connect(&m_job, &JobTrackerBase::progressChanged, this, [this](int permille) {
        if (m_next == m_files.size() || m_total == 0)
            return;
        const double shard = double(m_files[m_next]->size()) * permille / 1000;
        m_progress->setValue(static_cast<int>(1000 * (double(m_before) + shard) / double(m_total)));
    });
    hashNext();
}

// One shard at a time, in order, each a job of its own (the mapping is held by its shared_ptr);
// a shard that could not be opened keeps its placeholder.
void Sha256Dialog::hashNext()
{
    if (std::string why; !sha256Available(why)) { // every shard: the library cannot be loaded
        for (auto *edit : m_digests)
            edit->setPlaceholderText(QString::fromStdString(why));
        m_next = m_files.size();
    }
    while (m_next < m_files.size() && !m_files[m_next])
        ++m_next;
    if (m_next == m_files.size()) {
        m_progress->hide();
        emit finished();
        return;
    }
    m_job.start(
        [file = m_files[m_next]](std::stop_token stop, const JobProgress &progress) {
            return sha256Hex(*file, stop, progress);
        },
        [this](std::optional<std::string> digest) {
            auto *edit = m_digests[m_next];
            if (digest)
                edit->setText(QString::fromStdString(*digest));
            else
                edit->setPlaceholderText(tr("the file changed on disk while it was read"));
            m_before += m_files[m_next]->size();
            ++m_next;
            hashNext();
        });
}

QString Sha256Dialog::introText() const
{
    return m_intro->text();
}

QString Sha256Dialog::digest(std::size_t shard) const
{
    return shard < m_digests.size() ? m_digests[shard]->text() : QString();
}

} // namespace stb
