#include "ui/shell/samplefile.h"

#include <QDir>
#include <QFile>
#include <QFileInfo>
#include <QSaveFile>
#include <QStandardPaths>

using namespace Qt::StringLiterals;

namespace stb {

QString samplePath(QString *error)
{
    QFile resource(u":/sample/sample.safetensors"_s);
    const QString folder = QStandardPaths::writableLocation(QStandardPaths::CacheLocation);
    const QString path = folder + u"/sample.safetensors"_s;
    auto fail = [error](const QString &reason) {
        if (error)
            *error = reason;
        return QString();
    };
    if (!resource.open(QIODevice::ReadOnly))
        return fail(QObject::tr("the sample is missing from the program's resources"));
    const QByteArray bytes = resource.readAll();
    {
        QFile existing(path);
        if (existing.open(QIODevice::ReadOnly) && existing.size() == bytes.size()
            && existing.readAll() == bytes)
            return path;
    }
    if (!QDir().mkpath(folder))
        return fail(QObject::tr("cannot create %1").arg(folder));
    // Written beside and renamed over: a browser that has the old copy open keeps a whole file.
    QSaveFile out(path);
    if (!out.open(QIODevice::WriteOnly) || out.write(bytes) != bytes.size() || !out.commit())
        return fail(QObject::tr("cannot write %1: %2").arg(path, out.errorString()));
    return path;
}

} // namespace stb
