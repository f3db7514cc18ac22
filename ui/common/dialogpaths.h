#pragma once

#include <QString>
#include <QStringList>

namespace stb {

// QFileDialog lists a folder through QFile::decodeName, which turns every byte that is not UTF-8
// into U+FFFD for good: a chosen "bad\xff\xfe.safetensors" comes back as "bad\uFFFD\uFFFD…", a name
// no file has. These find, component by component, the entry whose listed name that is and return
// its path with every byte kept (pathToQString, core/text/pathbytes.h), so it reaches
// Checkpoint::open as it is. A component that exists as given is kept; one matched by no entry or
// by several (two names differing only in their invalid bytes) is left as the dialog gave it.
// (Qt 6.4's own widget dialog does not list such files at all; native and portal dialogs, which
// return them as lossy text, do.)

// A path picked in an Open dialog.
QString pathFromDialog(const QString &chosen);
QStringList pathsFromDialog(const QStringList &chosen);

} // namespace stb
