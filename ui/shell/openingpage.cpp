#include "ui/shell/openingpage.h"

#include "ui/common/qtformat.h"

#include "core/io/hugepageheap.h"

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
    // Busy until the first shard of an index is in; then shards opened, as a percentage (a single
    // file is one step: it stays busy).
    m_progress->setRange(0, 0);
    m_progress->setTextVisible(false);
    m_progress->setMinimumWidth(240);

    connect(&m_job, &JobTrackerBase::progressChanged, this, [this](int permille) {
        m_progress->setRange(0, 1000);
        m_progress->setValue(permille);
        m_progress->setTextVisible(true);
        m_label->setText(tr("Opening %1… %2%").arg(m_title).arg(permille / 10));
    });
    // Why it failed: written by the job, read once the job has returned.
    auto error = std::make_shared<std::string>();
    m_job.start(
        [file = pathFromQString(path), error](
            std::stop_token stop, const JobProgress &progress) -> std::optional<Opened> {
            useHugePagesForTheHeap(); // the reserve ahead of this model's names and shapes
            auto checkpoint = Checkpoint::open(file, *error, progress);
            if (!checkpoint || stop.stop_requested())
                return std::nullopt;
            // What the view would otherwise do on the GUI thread: recognise the quantization
            // (reads config.json) and group and sum the names, seconds for a million tensors.
            auto quant = std::make_shared<const QuantView>(QuantView::buildWithConfig(*checkpoint));
            auto rows = TensorTreeModel::prepare(*checkpoint, false, std::move(quant));
            return Opened { std::move(checkpoint), std::move(rows) };
        },
        [this, error](std::optional<Opened> result) {
            if (result) {
                m_rows = std::move(result->rows);
                emit opened(result->checkpoint);
            } else {
                emit failed(QString::fromLocal8Bit(error->c_str()));
            }
        });
}

QString OpeningPage::statusText() const
{
    return m_label->text();
}

} // namespace stb
