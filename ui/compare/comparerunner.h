#pragma once

#include "core/compare/compareresult.h"

#include <QObject>

#include <memory>

namespace stb {

// Runs compareCheckpoints off the GUI thread: progress 0..1000, Cancel, and only the newest
// request's answer is delivered (a generation counter drops the others). The destructor cancels
// and waits, so no job outlives the checkpoints' owner.
class CompareRunner : public QObject {
    Q_OBJECT
public:
    explicit CompareRunner(QObject *parent = nullptr);
    ~CompareRunner() override;

    void start(std::shared_ptr<const Checkpoint> a, std::shared_ptr<const Checkpoint> b,
        const CompareOptions &options);
    // Drops the running job's answer at once (`cancelled` is emitted now) and stops its threads.
    void cancel();
    bool isRunning() const { return m_running; }

signals:
    void progressChanged(int permille);
    void finished(std::shared_ptr<const stb::CompareResult> result);
    void cancelled();
    void failed(const QString &reason);

private:
    void stopAll();

    quint64 m_generation = 0;
    bool m_running = false;
};

} // namespace stb
