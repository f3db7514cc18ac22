#include "ui/compare/comparerunner.h"

#include <QFutureWatcher>
#include <QPromise>
#include <QtConcurrent>

#include <algorithm>
#include <atomic>

namespace stb {

namespace {

using ResultPtr = std::shared_ptr<const CompareResult>;

void compareJob(QPromise<ResultPtr> &promise, std::shared_ptr<const Checkpoint> a,
    std::shared_ptr<const Checkpoint> b, CompareOptions options)
{
    promise.setProgressRange(0, 1000);
    // Core polls a plain flag; the promise's cancel state reaches it through the progress callback,
    // which core calls after every chunk.
    std::atomic<bool> cancel { promise.isCanceled() };
    int last = -1;
    const auto progress = [&](std::uint64_t done, std::uint64_t total) {
        if (promise.isCanceled())
            cancel.store(true, std::memory_order_relaxed);
        const int permille
            = total ? static_cast<int>(std::min<double>(1.0, double(done) / double(total)) * 1000) : 0;
        if (permille > last)
            promise.setProgressValue(last = permille);
    };
    auto result = std::make_shared<CompareResult>();
    result->a = std::move(a);
    result->b = std::move(b);
    result->options = options;
    auto comparison = compareCheckpoints(*result->a, *result->b, options, &cancel, progress);
    if (!comparison || promise.isCanceled())
        return;
    result->comparison = std::move(*comparison);
    result->tree = CompareTree::build(
        result->comparison, options.tolerances); // after the move: it points into the pairs
    promise.addResult(ResultPtr(std::move(result)));
}

} // namespace

CompareRunner::CompareRunner(QObject *parent)
    : QObject(parent)
{ }

CompareRunner::~CompareRunner()
{
    stopAll();
}

void CompareRunner::start(
    std::shared_ptr<const Checkpoint> a, std::shared_ptr<const Checkpoint> b, const CompareOptions &options)
{
    for (auto *watcher : findChildren<QFutureWatcher<ResultPtr> *>())
        watcher->cancel(); // superseded: let it stop early; its answer is dropped by generation
    const quint64 generation = ++m_generation;
    m_running = true;
    auto *watcher = new QFutureWatcher<ResultPtr>(this);
    connect(watcher, &QFutureWatcher<ResultPtr>::progressValueChanged, this, [this, generation](int value) {
        if (generation == m_generation)
            emit progressChanged(value);
    });
    connect(watcher, &QFutureWatcher<ResultPtr>::finished, this, [this, watcher, generation] {
        watcher->deleteLater();
        if (generation != m_generation)
            return;
        m_running = false;
        const QFuture<ResultPtr> future = watcher->future();
        if (future.isCanceled())
            emit cancelled();
        else if (future.resultCount() == 0)
            emit failed(tr("A file changed or vanished while it was being read."));
        else
            emit finished(future.result());
    });
    watcher->setFuture(QtConcurrent::run(&compareJob, std::move(a), std::move(b), options));
}

void CompareRunner::cancel()
{
    if (!m_running)
        return;
    ++m_generation;
    m_running = false;
    for (auto *watcher : findChildren<QFutureWatcher<ResultPtr> *>())
        watcher->cancel();
    emit cancelled();
}

void CompareRunner::stopAll()
{
    ++m_generation;
    const auto watchers = findChildren<QFutureWatcher<ResultPtr> *>();
    for (auto *watcher : watchers)
        watcher->cancel();
    for (auto *watcher : watchers)
        watcher->waitForFinished();
}

} // namespace stb
