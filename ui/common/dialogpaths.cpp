#include "ui/common/dialogpaths.h"

#include "ui/common/qtformat.h"

#include <QFile>

#include <dirent.h>
#include <sys/stat.h>

#include <memory>
#include <string>

namespace stb {

namespace {

bool exists(const std::string &path)
{
    struct stat st;
    return ::lstat(path.c_str(), &st) == 0;
}

// The one entry of `folder` (bytes, ending in '/') that QFileDialog lists as `shown`; empty
// when none or several do.
std::string entryListedAs(const std::string &folder, const QString &shown)
{
    const std::unique_ptr<DIR, int (*)(DIR *)> dir(::opendir(folder.c_str()), ::closedir);
    if (!dir)
        return {};
    std::string found;
    while (const dirent *entry = ::readdir(dir.get())) {
        if (QFile::decodeName(entry->d_name) != shown)
            continue;
        if (!found.empty())
            return {}; // ambiguous: neither is the user's choice for sure
        found = entry->d_name;
    }
    return found;
}

// `chosen` with each component that does not exist as given replaced by the entry listed as it.
std::string resolve(const QString &chosen)
{
    const std::string given = pathFromQString(chosen);
    if (chosen.isEmpty() || exists(given) || !chosen.startsWith(u'/'))
        return given;
    std::string path = "/";
    const QStringList parts = chosen.split(u'/', Qt::SkipEmptyParts);
    for (qsizetype i = 0; i < parts.size(); ++i) {
        std::string part = pathFromQString(parts[i]);
        if (!exists(path + part)) {
            if (std::string listed = entryListedAs(path, parts[i]); !listed.empty())
                part = std::move(listed);
        }
        path += part;
        if (i + 1 < parts.size())
            path += '/';
    }
    return path;
}

} // namespace

QString pathFromDialog(const QString &chosen)
{
    return pathToQString(resolve(chosen));
}

QStringList pathsFromDialog(const QStringList &chosen)
{
    QStringList paths;
    paths.reserve(chosen.size());
    for (const QString &path : chosen)
        paths << pathFromDialog(path);
    return paths;
}

} // namespace stb
