#include "ui/common/droppedfiles.h"

#include "ui/common/qtformat.h"

#include <QMimeData>
#include <QUrl>

namespace stb {

QStringList droppedLocalFiles(const QMimeData *mime)
{
    QStringList paths;
    if (!mime || !mime->hasUrls())
        return paths;
    for (const QUrl &url : mime->urls()) {
        if (!url.isLocalFile())
            continue;
        // The path's bytes from the URL's percent-encoding: toLocalFile() decodes them as UTF-8,
        // losing a name that is not (pathbytes.h).
        if (url.host().isEmpty())
            paths << pathToQString(QByteArray::fromPercentEncoding(url.path(QUrl::FullyEncoded).toLatin1()).toStdString());
        else
            paths << url.toLocalFile();
    }
    return paths;
}

} // namespace stb
