#pragma once

// Runs the built safetensors-inspect (STB_INSPECT_PATH, defined for every test by
// tests/CMakeLists.txt) as a process, the way scripts meet it.
#include <QByteArray>
#include <QProcess>
#include <QString>
#include <QStringList>

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

} // namespace stb::test
