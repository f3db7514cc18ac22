#pragma once

#include <QWidget>

#include <memory>
#include <optional>

class QLabel;
class QLineEdit;
class QShortcut;

namespace stb {

class HexView;
class SafetensorsFile;
struct TensorInfo;

// The hex pane: a HexView under a "Go to offset" field, over a line with the value of the
// element under the cursor and one saying where the cursor's byte is. Ctrl+G (while the pane has focus; the
// main window may bind it globally through focusGoToOffset) puts the caret in the field.
class HexPane : public QWidget {
    Q_OBJECT

public:
    explicit HexPane(QWidget *parent = nullptr);

    HexView *view() const { return m_view; }
    // The line under the bytes saying where the cursor is, and the one with its element's value.
    QString locationText() const;
    QString elementText() const;

    void setFile(std::shared_ptr<const SafetensorsFile> file);
    // Tints the tensor and opens the view at its first byte (nullptr: clears the tint only).
    void setTensor(const TensorInfo *tensor);
    void goToOffset(quint64 offset);
    // goToOffset, then `note` before the element line's text until the cursor moves (what the byte
    // holds for the pane that asked: "its 4-bit code is bits 4–7 of this byte; 2 values share it").
    void goToOffset(quint64 offset, const QString &note);
    void setStale(bool stale);
    void focusGoToOffset();
    // The pane's own Ctrl+G. A window that binds Ctrl+G itself (a menu entry calling
    // focusGoToOffset) turns it off: two bindings of one key in one window cancel each other.
    void setGoToShortcutEnabled(bool on);

    // Accepts "1234", "0x4D2", "0X4d2", with spaces, '_' or ',' between digits; nullopt for
    // anything else or a value beyond 64 bits.
    static std::optional<quint64> parseOffset(QStringView text);

signals:
    // The user typed an offset and went there (the view is already at it).
    void offsetEntered(quint64 offset);

private:
    void goToTypedOffset();
    void showProblem(const QString &text);

    HexView *m_view;
    QLineEdit *m_goTo;
    QLabel *m_status;
    QLabel *m_element;
    QShortcut *m_goToShortcut;
};

} // namespace stb
