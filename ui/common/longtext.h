#pragma once

#include <QString>

#include <cstddef>
#include <string_view>

class QWidget;

namespace stb {

// Text from a file (a metadata value, a tensor name, a message) is hostile in size too: a label,
// a cell or a rich-text pane that lays out megabytes freezes the window (issue 15, items 1-2).
// Where such text is shown it is cut to kShownTextBytes with "… (N more bytes)", and the whole of
// it is one action away in showFullText's window, which lays out only the lines on screen.
inline constexpr std::size_t kShownTextBytes = 1000;

// The first `limit` bytes of `utf8` (cut at a character boundary) and " … (N more bytes)", or
// the whole text when it fits. Invalid UTF-8 shows as U+FFFD, as toQString does.
QString elidedText(std::string_view utf8, std::size_t limit = kShownTextBytes);
inline bool isElided(std::string_view utf8, std::size_t limit = kShownTextBytes)
{
    return utf8.size() > limit;
}

// Opens a window (non-modal, deleted when closed) with the whole of `utf8` in a LongTextView,
// which lays out only the rows on screen, and a button that copies all of it.
void showFullText(QWidget *parent, const QString &title, std::string_view utf8);

} // namespace stb
