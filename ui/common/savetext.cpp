#include "ui/common/savetext.h"

#include "core/values/atomicfile.h"
#include "ui/common/qtformat.h"

#include <string>

namespace stb {

bool saveText(const QString &path, std::string_view text, QString *error)
{
    // QSaveFile renames its temporary over whatever the path names, a device or FIFO included.
    AtomicFile file;
    std::string reason;
    if (file.open(pathFromQString(path), {}, reason) && file.write(text.data(), text.size(), reason)
        && file.commit(reason))
        return true;
    if (error)
        *error = toQString(reason);
    return false;
}

} // namespace stb
