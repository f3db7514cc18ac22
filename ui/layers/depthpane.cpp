#include "ui/layers/depthpane.h"

#include "ui/common/qtformat.h"
#include "ui/layers/depthview.h"

#include <QHBoxLayout>
#include <QLabel>
#include <QProgressBar>
#include <QToolButton>
#include <QVBoxLayout>

#include <unordered_map>

using namespace Qt::StringLiterals;

namespace stb {

namespace {

QStringList statNames()
{
    QStringList names;
    for (std::size_t s = 0; s < kDepthStatCount; ++s)
        names << toQString(depthStatName(static_cast<DepthStat>(s)));
    return names;
}

const char *const kHint = QT_TRANSLATE_NOOP(
    "stb::DepthPane", "Select a repeat or a role in the Layers view to see its profile over depth.");

} // namespace

DepthPane::DepthPane(std::shared_ptr<const Checkpoint> checkpoint, QWidget *parent)
    : QWidget(parent)
    , m_checkpoint(std::move(checkpoint))
    , m_view(new DepthView(statNames(), this))
    , m_status(new QLabel(this))
    , m_progress(new QProgressBar(this))
    , m_cancel(new QToolButton(this))
{
    m_view->setMetric(static_cast<int>(DepthStat::Rms));
    m_progress->setRange(0, 1000);
    m_progress->setTextVisible(false);
    m_progress->setMaximumWidth(160);
    m_cancel->setText(tr("Cancel"));
    auto *bar = new QHBoxLayout;
    bar->addWidget(m_status, 1);
    bar->addWidget(m_progress);
    bar->addWidget(m_cancel);
    auto *layout = new QVBoxLayout(this);
    layout->addLayout(bar);
    layout->addWidget(m_view, 1);
    m_progress->hide();
    m_cancel->hide();
    m_view->setRepeat(nullptr, -1, tr(kHint));

    connect(m_view, &DepthView::statusChanged, m_status, &QLabel::setText);
    connect(m_cancel, &QToolButton::clicked, this, &DepthPane::cancel);
    connect(&m_job, &JobTrackerBase::progressChanged, m_progress, &QProgressBar::setValue);
    connect(m_view, &DepthView::blockClicked, this,
        [this](std::size_t row, std::size_t column, std::size_t role) {
            const std::size_t tensor = m_repeat ? m_repeat->tensorAt(row, column, role) : kNoTensor;
            if (tensor != kNoTensor)
                emit tensorActivated(tensor);
        });
}

DepthPane::~DepthPane() = default;

DepthChart *DepthPane::chart() const
{
    return m_view->chart();
}

const RepeatProfile *DepthPane::profile() const
{
    const auto it = m_profiles.find(m_repeat);
    return it == m_profiles.end() ? nullptr : &it->second;
}

void DepthPane::setStat(DepthStat stat)
{
    m_view->setMetric(static_cast<int>(stat));
}

void DepthPane::setRepeat(const Repeat *repeat, int role)
{
    if (repeat != m_repeat)
        m_job.cancel();
    m_repeat = repeat;
    m_view->setRepeat(repeat, role, repeat ? tr("Computing\u2026") : tr(kHint));
    if (!repeat) {
        m_status->clear();
        return;
    }
    if (const RepeatProfile *p = profile())
        show(*p);
    else if (!m_job.isRunning())
        compute();
}

void DepthPane::cancel()
{
    if (!m_job.isRunning())
        return;
    m_job.cancel();
    m_progress->hide();
    m_cancel->hide();
    m_status->setText(tr("Cancelled."));
    m_view->showMessage(tr("Cancelled: select the repeat again to compute its profile."));
}

void DepthPane::show(const RepeatProfile &profile)
{
    DepthView::Series series;
    for (const auto &stats : profile.roles)
        series.emplace_back(stats.begin(), stats.end());
    m_view->setSeries(std::move(series), profile.outliers);
}

// The statistics already known are copied here, on the GUI thread: the job must not read the
// cache while the GUI changes it.
void DepthPane::compute()
{
    const Repeat *repeat = m_repeat;
    auto known = std::make_shared<std::unordered_map<std::size_t, TensorStats>>();
    auto take = [&](const Repeat &r) {
        for (std::size_t tensor : r.table) {
            if (tensor == kNoTensor || known->contains(tensor))
                continue;
            if (const TensorStats *stats = m_known(tensor))
                known->emplace(tensor, *stats);
        }
    };
    if (m_known) {
        take(*repeat);
        for (const Repeat &inner : repeat->repeats)
            take(inner);
    }
    m_progress->setValue(0);
    m_progress->show();
    m_cancel->show();
    m_status->setText(tr("Computing the statistics of %1\u2026").arg(toQString(repeat->label())));
    m_job.start(
        [checkpoint = m_checkpoint, repeat, known](
            std::stop_token stop, const JobProgress &progress) -> std::optional<RepeatProfile> {
            AnalysisOptions options;
            options.digest = false;
            auto profiles = profileRepeats(*checkpoint, std::span(repeat, 1), options, std::move(stop),
                progress, [known](std::size_t tensor) -> const TensorStats * {
                    const auto it = known->find(tensor);
                    return it == known->end() ? nullptr : &it->second;
                });
            if (!profiles)
                return std::nullopt;
            return std::move(profiles->front());
        },
        [this, repeat](std::optional<RepeatProfile> result) {
            m_progress->hide();
            m_cancel->hide();
            if (result) {
                const RepeatProfile &stored = m_profiles[repeat] = std::move(*result);
                if (repeat == m_repeat)
                    show(stored);
            } else {
                m_status->setText(tr("The statistics could not be computed: the file changed on disk."));
                m_view->showMessage(tr("No profile."));
            }
            emit profileReady();
        });
}

} // namespace stb
