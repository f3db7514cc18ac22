#pragma once

#include <QAbstractScrollArea>

#include <cstddef>
#include <string>
#include <vector>

namespace stb {

// A read-only view of a text of any size (a 30 MB metadata value, a megabyte tensor name). It
// keeps the UTF-8 bytes and where every kRowsPerMark-th row starts, and lays out only the rows on
// screen: opening, scrolling and resizing cost milliseconds whatever the size, where a
// QPlainTextEdit spent 6-14 s of the GUI thread on 30 MB (issue 15). Rows are the text's lines,
// wrapped at the view's width in a fixed-pitch font (counted in bytes, cut between characters).
class LongTextView : public QAbstractScrollArea {
    Q_OBJECT
public:
    explicit LongTextView(std::string text, QWidget *parent = nullptr);

    const std::string &text() const { return m_text; }
    // Rows at the current width, and the bytes a row shows (no newline), for tests and painting.
    std::size_t rowCount() const { return m_rows; }
    QString rowText(std::size_t row) const;
    // Bytes per row; follows the width of the view (at least kMinColumns).
    int columns() const { return m_columns; }
    void setColumns(int columns);

protected:
    void paintEvent(QPaintEvent *event) override;
    void resizeEvent(QResizeEvent *event) override;

private:
    static constexpr std::size_t kRowsPerMark = 256;
    static constexpr int kMinColumns = 16;

    // Where the row starting at byte `start` ends (its last byte + 1, newline excluded), and
    // where the next row starts.
    struct Row {
        std::size_t end;
        std::size_t next;
    };
    Row rowAt(std::size_t start) const;
    std::size_t rowStart(std::size_t row) const;
    void reindex();

    std::string m_text;
    int m_columns = 80;
    std::vector<std::size_t> m_marks; // start of rows 0, kRowsPerMark, 2 * kRowsPerMark, ...
    std::size_t m_rows = 0;
};

} // namespace stb
