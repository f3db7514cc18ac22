#include "ui/compare/compareexport.h"

#include "core/compare/comparereport.h"

#include "ui/common/savetext.h"

namespace stb {

bool exportComparisonJson(const CompareResult &result, const QString &path, QString *error)
{
    return saveText(path,
        jsonText(comparisonJson(*result.a, *result.b, result.comparison, result.options), 2) + '\n', error);
}

bool exportComparisonMarkdown(const CompareResult &result, const QString &path, QString *error)
{
    return saveText(path, comparisonMarkdown(*result.a, *result.b, result.comparison, result.options), error);
}

} // namespace stb
