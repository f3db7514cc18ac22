#include "ui/shell/openingpage.h"

#include "ui/common/qtformat.h"

#include <QFile>
#include <QLabel>
#include <QProgressBar>
#include <QVBoxLayout>

namespace stb {

OpeningPage::OpeningPage(const QString &path, const QString &title, QWidget *parent)
    : QWidget(parent)
    , m_path(path)
    , m_title(title)
    , m_label(new QLabel(this))
    , m_progress(new QProgressBar(this))
{
    auto *layout = new QVBoxLayout(this);
    layout->addStretch();
    layout->addWidget(m_label, 0, Qt::AlignHCenter);
    layout->addWidget(m_progress, 0, Qt::AlignHCenter);
    layout->addStretch();
    m_label->setEnabled(false);
    m_label->setText(tr("Opening %1…").arg(m_title));
    // Busy, without a percentage: Checkpoint::open reports no progress yet.
    m_progress->setRange(0, 0);
    m_progress->setTextVisible(false);
    m_progress->setMinimumWidth(240);

    // Why it failed: written by the job, read once the job has returned.
    auto error = std::make_shared<std::string>();
    m_job.start(
        [file = pathFromQString(path), error](
            std::stop_token, const JobProgress &) -> std::optional<std::shared_ptr<const Checkpoint>> {
            auto checkpoint = Checkpoint::open(file, *error);
            if (!checkpoint)
                return std::nullopt;
            return checkpoint;
        },
        [this, error](std::optional<std::shared_ptr<const Checkpoint>> checkpoint) {
            if (checkpoint)
                emit opened(*checkpoint);
            else
                emit failed(QString::fromLocal8Bit(error->c_str()));
        });
}

QString OpeningPage::statusText() const
{
    return m_label->text();
}

} // namespace stb
