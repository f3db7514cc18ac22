#include "ui/common/qtformat.h"

#include "core/text/escape.h"
#include "core/text/textformat.h"

#include <QLocale>

#include <algorithm>
#include <cstdint>

using namespace Qt::StringLiterals;

namespace stb {

QString countText(std::uint64_t value)
{
    return QLocale().toString(static_cast<qulonglong>(value));
}

QString sizeText(std::uint64_t bytes)
{
    // formattedDataSize takes qint64; sizes past 2^63 only come from broken headers.
    const auto clamped = static_cast<qint64>(std::min<std::uint64_t>(bytes, INT64_MAX));
    if (bytes == 1)
        return u"1 byte"_s; // Qt 6.4 says "1 bytes"
    return QLocale().formattedDataSize(clamped, bytes < 1024 ? 0 : 1);
}

QString offsetText(std::uint64_t offset)
{
    return u"0x%1 (%2)"_s.arg(
        QString::number(static_cast<qulonglong>(offset), 16).toUpper(), countText(offset));
}

QString countNoun(std::uint64_t count, const QString &singular, const QString &plural)
{
    return countText(count) + u' ' + (count == 1 ? singular : plural);
}

QString shapeText(const std::vector<std::uint64_t> &shape)
{
    return toQString(formatShape(shape));
}

QString shownName(std::string_view name, qsizetype maxChars)
{
    // Escaping at most grows a byte to four characters: a bounded prefix is enough to fill maxChars.
    const std::size_t bytes = std::min<std::size_t>(name.size(), std::size_t(maxChars) * 4 + 4);
    QString text = QString::fromStdString(escapeText(name.substr(0, bytes)));
    if (text.size() > maxChars || bytes < name.size())
        text = text.left(maxChars) + u'…';
    return text;
}

} // namespace stb
