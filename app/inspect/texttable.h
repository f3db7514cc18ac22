#pragma once

#include <string>
#include <vector>

namespace stb::inspect {

// A plain-text table: columns padded to their widest cell (up to 120 characters: a longer cell
// overflows on its own line), numbers right-aligned.
class TextTable {
public:
    explicit TextTable(std::vector<std::string> headings, std::vector<bool> rightAligned);
    void addRow(std::vector<std::string> cells);
    std::string render() const;

private:
    std::vector<std::string> m_headings;
    std::vector<bool> m_right;
    std::vector<std::vector<std::string>> m_rows;
};

} // namespace stb::inspect
