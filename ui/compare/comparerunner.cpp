#include "ui/compare/comparerunner.h"

namespace stb {

namespace {

std::optional<std::shared_ptr<const CompareResult>> compare(std::shared_ptr<const Checkpoint> a,
    std::shared_ptr<const Checkpoint> b, const CompareOptions &options, std::stop_token stop,
    const JobProgress &progress)
{
    auto comparison = compareCheckpoints(*a, *b, options, stop, progress);
    if (!comparison)
        return std::nullopt;
    return std::make_shared<const CompareResult>(std::move(a), std::move(b), options, std::move(*comparison));
}

} // namespace

CompareRunner::CompareRunner(QObject *parent)
    : QObject(parent)
{
    connect(&m_job, &JobTrackerBase::progressChanged, this, &CompareRunner::progressChanged);
    connect(&m_job, &JobTrackerBase::cancelled, this, &CompareRunner::cancelled);
}

void CompareRunner::start(
    std::shared_ptr<const Checkpoint> a, std::shared_ptr<const Checkpoint> b, const CompareOptions &options)
{
    m_job.start(
        [a = std::move(a), b = std::move(b), options](std::stop_token stop, const JobProgress &progress) {
            return compare(a, b, options, std::move(stop), progress);
        },
        [this](std::optional<ResultPtr> result) {
            if (result)
                emit finished(*result);
            else
                emit failed(tr("A file changed or vanished while it was being read."));
        });
}

} // namespace stb
