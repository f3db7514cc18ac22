#pragma once

// Golden files: checked-in expected text under tests/data/golden/, compared exactly, so a change
// to a report's wording or layout shows up as a failing test and a reviewable diff. Run a suite
// with STB_UPDATE_GOLDEN=1 to rewrite its files from the current output (then read the diff).
#include <QFile>
#include <QString>
#include <QStringList>

namespace stb::test {

inline QString goldenPath(const QString &name)
{
    return QStringLiteral(STB_SOURCE_DIR "/tests/data/golden/") + name;
}

// True when `actual` equals the golden file `name` byte for byte; otherwise `why` names the first
// line that differs, with both versions.
inline bool matchesGolden(const QString &name, const QString &actual, QString &why)
{
    QFile file(goldenPath(name));
    if (qEnvironmentVariableIntValue("STB_UPDATE_GOLDEN")) {
        if (!file.open(QIODevice::WriteOnly) || file.write(actual.toUtf8()) < 0) {
            why = QStringLiteral("cannot write ") + file.fileName();
            return false;
        }
        return true;
    }
    if (!file.open(QIODevice::ReadOnly)) {
        why = file.fileName() + QStringLiteral(" is missing (STB_UPDATE_GOLDEN=1 writes it)");
        return false;
    }
    const QString expected = QString::fromUtf8(file.readAll());
    if (expected == actual)
        return true;
    const QStringList want = expected.split(u'\n'), got = actual.split(u'\n');
    qsizetype line = 0;
    while (line < want.size() && line < got.size() && want[line] == got[line])
        ++line;
    why = QStringLiteral("%1 differs at line %2:\n expected: %3\n   actual: %4")
              .arg(file.fileName())
              .arg(line + 1)
              .arg(line < want.size() ? want[line] : QStringLiteral("(end of file)"),
                  line < got.size() ? got[line] : QStringLiteral("(end of output)"));
    return false;
}

} // namespace stb::test
