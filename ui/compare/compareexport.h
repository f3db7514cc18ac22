#pragma once

#include "core/compare/compareresult.h"

#include <QString>

namespace stb {

// The comparison as the CLI's `diff --json` object, or as Markdown for a review, with the
// tolerances it ran with (the window's) stated, written by saveText (ui/common/savetext.h): a
// failed export never leaves half a file. False with a reason on error.
bool exportComparisonJson(const CompareResult &result, const QString &path, QString *error = nullptr);
bool exportComparisonMarkdown(const CompareResult &result, const QString &path, QString *error = nullptr);

} // namespace stb
