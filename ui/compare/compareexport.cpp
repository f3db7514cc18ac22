#include "ui/compare/compareexport.h"

#include "core/compare/comparereport.h"

#include <QSaveFile>

namespace stb {

namespace {

bool save(const QString &path, const std::string &text, QString *error)
{
    QSaveFile file(path);
    if (file.open(QIODevice::WriteOnly)) {
        file.write(text.data(), static_cast<qint64>(text.size()));
        if (file.commit())
            return true;
    }
    if (error)
        *error = file.errorString();
    return false;
}

} // namespace

bool exportComparisonJson(const CompareResult &result, const QString &path, QString *error)
{
    return save(path, jsonText(comparisonJson(*result.a, *result.b, result.comparison, result.options), 2) + '\n', error);
}

bool exportComparisonMarkdown(const CompareResult &result, const QString &path, QString *error)
{
    return save(path, comparisonMarkdown(*result.a, *result.b, result.comparison, result.options), error);
}

} // namespace stb
