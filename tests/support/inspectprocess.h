#pragma once

// Runs the built safetensors-inspect (STB_INSPECT_PATH, defined for every test by
// tests/CMakeLists.txt) as a process, the way scripts meet it.
#include <QByteArray>
#include <QList>
#include <QProcess>
#include <QString>
#include <QStringList>

#include <poll.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

namespace stb::test {

struct InspectRun {
    int exitCode = -1; // -1 when it did not finish in time
    QString out;
    QString err;
};

inline InspectRun runInspect(const QStringList &arguments, int timeoutMs = 120000)
{
    QProcess process;
    process.start(QStringLiteral(STB_INSPECT_PATH), arguments);
    if (!process.waitForFinished(timeoutMs))
        return {};
    return {process.exitCode(), QString::fromUtf8(process.readAllStandardOutput()),
            QString::fromUtf8(process.readAllStandardError())};
}

// The raw bytes a run printed, for checking that nothing unescaped reaches a terminal.
struct RawRun {
    int exitCode = -1; // -1 when it did not exit normally
    QByteArray out;
    QByteArray err;
};

// Runs `program` (a path) with arguments passed byte for byte (QProcess would send a QString
// through the locale, losing a path that is not valid UTF-8), optionally with RLIMIT_NOFILE set
// to `openFiles` (soft and hard) in the child, as `ulimit -n` would.
inline RawRun runRaw(const QByteArray &program, const QList<QByteArray> &arguments, rlim_t openFiles = 0)
{
    int outPipe[2], errPipe[2];
    if (::pipe(outPipe) != 0 || ::pipe(errPipe) != 0)
        return {};
    QList<QByteArray> storage = arguments;
    storage.prepend(program);
    std::vector<char *> argv;
    for (auto &a : storage)
        argv.push_back(a.data());
    argv.push_back(nullptr);
    const pid_t pid = ::fork();
    if (pid == 0) {
        ::dup2(outPipe[1], 1);
        ::dup2(errPipe[1], 2);
        ::close(outPipe[0]);
        ::close(errPipe[0]);
        if (openFiles) {
            const rlimit limit { openFiles, openFiles };
            ::setrlimit(RLIMIT_NOFILE, &limit);
        }
        ::execv(argv[0], argv.data());
        ::_exit(127);
    }
    ::close(outPipe[1]);
    ::close(errPipe[1]);
    RawRun run;
    pollfd fds[2] = { { outPipe[0], POLLIN, 0 }, { errPipe[0], POLLIN, 0 } };
    QByteArray *sinks[2] = { &run.out, &run.err };
    int open = 2;
    while (open > 0 && ::poll(fds, 2, -1) >= 0) {
        for (int i = 0; i < 2; ++i) {
            if (fds[i].fd < 0 || !(fds[i].revents & (POLLIN | POLLHUP | POLLERR)))
                continue;
            char buffer[65536];
            const ssize_t n = ::read(fds[i].fd, buffer, sizeof buffer);
            if (n > 0) {
                sinks[i]->append(buffer, n);
            } else {
                ::close(fds[i].fd);
                fds[i].fd = -1;
                --open;
            }
        }
    }
    int status = 0;
    ::waitpid(pid, &status, 0);
    run.exitCode = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
    return run;
}

inline RawRun runInspectRaw(const QList<QByteArray> &arguments, rlim_t openFiles = 0)
{
    return runRaw(QByteArray(STB_INSPECT_PATH), arguments, openFiles);
}

} // namespace stb::test
