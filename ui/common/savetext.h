#pragma once

#include <QString>

#include <string_view>

namespace stb {

// Writes a report (audit, comparison) to a path the user chose, by the rule of every export
// (core/values/atomicfile.h): a regular file replaced whole or not at all, a link's file written
// and the link kept, a device or FIFO written to, never replaced. False with the reason, which
// names the file, in `error` (when given). GUI thread: a report is small.
bool saveText(const QString &path, std::string_view text, QString *error = nullptr);

} // namespace stb
