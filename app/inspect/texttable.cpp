#include "texttable.h"

#include <algorithm>

namespace stb::inspect {

namespace {

// Display width of UTF-8 text: count code points, not bytes.
std::size_t displayWidth(const std::string &text)
{
    return static_cast<std::size_t>(std::count_if(text.begin(), text.end(), [](char c) {
        return (static_cast<unsigned char>(c) & 0xC0) != 0x80;
    }));
}

// Columns are padded to their widest cell up to this width; a longer cell (a hostile or merely
// very long name) overflows its column on its own line instead of widening every line.
constexpr std::size_t kMaxPaddedWidth = 120;

} // namespace

TextTable::TextTable(std::vector<std::string> headings, std::vector<bool> rightAligned)
    : m_headings(std::move(headings))
    , m_right(std::move(rightAligned))
{
}

void TextTable::addRow(std::vector<std::string> cells) { m_rows.push_back(std::move(cells)); }

std::string TextTable::render() const
{
    std::vector<std::size_t> widths(m_headings.size());
    for (std::size_t c = 0; c < m_headings.size(); ++c)
        widths[c] = displayWidth(m_headings[c]);
    for (const auto &row : m_rows) {
        for (std::size_t c = 0; c < row.size() && c < widths.size(); ++c)
            widths[c] = std::max(widths[c], std::min(displayWidth(row[c]), kMaxPaddedWidth));
    }
    std::string out;
    auto emit = [&](const std::vector<std::string> &row) {
        std::string line;
        for (std::size_t c = 0; c < widths.size(); ++c) {
            const std::string cell = c < row.size() ? row[c] : std::string();
            const std::size_t width = displayWidth(cell);
            const std::string pad(width < widths[c] ? widths[c] - width : 0, ' ');
            if (c)
                line += "  ";
            line += m_right[c] ? pad + cell : cell + (c + 1 < widths.size() ? pad : std::string());
        }
        out += line;
        out += '\n';
    };
    emit(m_headings);
    for (const auto &row : m_rows)
        emit(row);
    return out;
}

} // namespace stb::inspect
