#include "ui/shell/sha256dialog.h"

#include "core/io/filedigest.h"
#include "ui/common/qtformat.h"

#include <QDialogButtonBox>
#include <QFontDatabase>
#include <QFormLayout>
#include <QLabel>
#include <QLineEdit>
#include <QProgressBar>
#include <QPromise>
#include <QPushButton>
#include <QtConcurrent>

using namespace Qt::StringLiterals;

namespace stb {

namespace {

// One result per shard, in order ("" for one that cannot be read); progress over all bytes.
void hashFiles(QPromise<QString> &promise, std::vector<std::shared_ptr<const MappedFile>> files)
{
    std::uint64_t total = 0, before = 0;
    for (const auto &file : files)
        total += file ? file->size() : 0;
    promise.setProgressRange(0, 1000);
    std::atomic<bool> cancel { false };
    for (std::size_t i = 0; i < files.size() && !promise.isCanceled(); ++i) {
        std::optional<std::string> digest;
        if (files[i]) {
            digest = sha256Hex(*files[i], &cancel, [&](std::uint64_t done, std::uint64_t) {
                if (promise.isCanceled())
                    cancel = true;
                promise.setProgressValue(
                    total ? static_cast<int>(1000.0 * double(before + done) / double(total)) : 0);
            });
            before += files[i]->size();
        }
        if (promise.isCanceled())
            return;
        promise.addResult(digest ? QString::fromStdString(*digest) : QString(), static_cast<int>(i));
    }
}

} // namespace

Sha256Dialog::Sha256Dialog(std::shared_ptr<const Checkpoint> checkpoint, QWidget *parent)
    : QDialog(parent)
    , m_checkpoint(std::move(checkpoint))
    , m_progress(new QProgressBar(this))
    , m_buttons(new QDialogButtonBox(QDialogButtonBox::Close, this))
{
    setWindowTitle(tr("SHA-256"));
    auto *layout = new QVBoxLayout(this);
    auto *intro = new QLabel(
        tr("SHA-256 of each file, as <tt>sha256sum</tt> prints it and the Hugging Face Hub shows it "
           "(the LFS object id)."),
        this);
    intro->setWordWrap(true);
    layout->addWidget(intro);
    auto *form = new QFormLayout;
    const QFont mono = QFontDatabase::systemFont(QFontDatabase::FixedFont);
    std::vector<std::shared_ptr<const MappedFile>> files;
    for (std::size_t i = 0; i < m_checkpoint->shards().size(); ++i) {
        const auto &shard = m_checkpoint->shards()[i];
        auto *digest = new QLineEdit(this);
        digest->setReadOnly(true);
        digest->setFont(mono);
        digest->setPlaceholderText(shard ? tr("reading %1…").arg(sizeText(shard->mapping().size()))
                                         : tr("this file could not be opened"));
        digest->setMinimumWidth(QFontMetrics(mono).horizontalAdvance(QString(66, u'0')));
        form->addRow(toQString(m_checkpoint->shardNames()[i]), digest);
        m_digests.push_back(digest);
        files.push_back(shard ? shard->sharedMapping() : nullptr);
    }
    layout->addLayout(form);
    layout->addWidget(m_progress);
    layout->addWidget(m_buttons);
    m_progress->setRange(0, 1000);
    connect(m_buttons, &QDialogButtonBox::rejected, this, &QDialog::reject);
    connect(&m_job, &QFutureWatcherBase::progressValueChanged, m_progress, &QProgressBar::setValue);
    connect(&m_job, &QFutureWatcherBase::resultReadyAt, this, [this](int i) {
        const QString digest = m_job.resultAt(i);
        auto *edit = m_digests[static_cast<std::size_t>(i)];
        edit->setText(digest);
        if (digest.isEmpty())
            edit->setPlaceholderText(tr("the file changed on disk while it was read"));
    });
    connect(&m_job, &QFutureWatcherBase::finished, this, [this] {
        m_progress->hide();
        emit finished();
    });
    m_job.setFuture(QtConcurrent::run(hashFiles, std::move(files)));
}

// Cancel, then wait: the job reports into this dialog's fields.
Sha256Dialog::~Sha256Dialog()
{
    m_job.cancel();
    m_job.waitForFinished();
}

QString Sha256Dialog::digest(std::size_t shard) const
{
    return shard < m_digests.size() ? m_digests[shard]->text() : QString();
}

} // namespace stb
