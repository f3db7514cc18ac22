#include "ui/common/qtformat.h"

#include "core/text/pathbytes.h"
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

QString compactCountText(std::uint64_t value)
{
    if (value < 1'000'000)
        return countText(value);
    struct Scale {
        double divisor;
        char16_t suffix;
    };
    static constexpr Scale kScales[] { { 1e6, u'M' }, { 1e9, u'B' }, { 1e12, u'T' }, { 1e15, u'P' } };
    const double v = static_cast<double>(value);
    std::size_t i = 0;
    // 999,960,000 would round to "1000.0 M": move up a scale where the rounded text would.
    while (i + 1 < std::size(kScales) && v / kScales[i].divisor >= 999.95)
        ++i;
    return QLocale().toString(v / kScales[i].divisor, 'f', 1) + u' ' + QChar(kScales[i].suffix);
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

QString pathToQString(std::string_view path)
{
    return QString::fromStdU16String(pathToUtf16(path));
}

std::string pathFromQString(const QString &path)
{
    return pathFromUtf16(path.toStdU16String());
}

QString escapedControls(const QString &text, qsizetype maxChars, bool *cut)
{
    // The characters core's escapeText escapes (C0, DEL, C1, bidi controls) as \xNN or \uXXXX;
    // quotes and backslashes stay as they are, which a label (unlike a terminal) can show.
    QString shown;
    for (const QChar c : text) {
        const char16_t u = c.unicode();
        const bool control = u < 0x20 || (u >= 0x7F && u <= 0x9F) || (u >= 0x202A && u <= 0x202E)
            || (u >= 0x2066 && u <= 0x2069);
        if (!control)
            shown += c;
        else if (u <= 0xFF)
            shown += u"\\x%1"_s.arg(uint(u), 2, 16, QChar(u'0'));
        else
            shown += u"\\u%1"_s.arg(uint(u), 4, 16, QChar(u'0'));
        if (shown.size() > maxChars) {
            if (cut)
                *cut = true;
            return shown.left(maxChars);
        }
    }
    if (cut)
        *cut = false;
    return shown;
}

QString shownName(std::string_view name, qsizetype maxChars)
{
    // Invalid UTF-8 becomes U+FFFD. A prefix is enough: each byte gives at most one character.
    const std::size_t bytes = std::min<std::size_t>(name.size(), std::size_t(maxChars) * 4 + 4);
    bool cut = false;
    const QString shown = escapedControls(toQString(name.substr(0, bytes)), maxChars, &cut);
    return cut || bytes < name.size() ? shown + u'…' : shown;
}

} // namespace stb
