#include "ui/compare/comparerunner.h"

namespace stb {

namespace {

std::optional<std::shared_ptr<const CompareResult>> compare(std::shared_ptr<const Checkpoint> a,
    std::shared_ptr<const Checkpoint> b, const CompareOptions &options, std::stop_token stop,
    const JobProgress &progress)
{
    auto result = std::make_shared<CompareResult>();
    result->a = std::move(a);
    result->b = std::move(b);
    result->options = options;
    const StopFlag cancel(std::move(stop));
    auto comparison = compareCheckpoints(*result->a, *result->b, options, cancel.get(), progress);
    if (!comparison)
        return std::nullopt;
    result->comparison = std::move(*comparison);
    result->tree = CompareTree::build(
        result->comparison, options.tolerances); // after the move: it points into the pairs
    return result;
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
