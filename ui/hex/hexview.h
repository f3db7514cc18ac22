#pragma once

#include "core/io/fileextents.h"
#include "ui/hex/hexgeometry.h"

#include <QAbstractScrollArea>

#include <cstddef>
#include <memory>
#include <optional>
#include <vector>

namespace stb {

class SafetensorsFile;
struct TensorInfo;

// The raw bytes of a whole file (header included), 16 to a row (8 when the view is too narrow for
// 16): offset, hex in groups of 8, ASCII. Paints only the rows in view, reading their bytes with pread (MappedFile::read), not
// through the mapping: scrolling maps no pages, and a file truncated under us gives a short read
// and an error message instead of SIGBUS. The top row is a quint64; the scrollbar is scaled when
// rows exceed int (see hexgeometry.h).
class HexView : public QAbstractScrollArea {
    Q_OBJECT

public:
    explicit HexView(QWidget *parent = nullptr);
    ~HexView() override;

    // nullptr clears. The view keeps the file (and so its mapping) alive.
    void setFile(std::shared_ptr<const SafetensorsFile> file);
    const std::shared_ptr<const SafetensorsFile> &file() const { return m_file; }
    // Tints the tensor's bytes and names it in the cursor description. The pointer must point
    // into the current file's header; nullptr clears. Does not move the cursor.
    void setTensor(const TensorInfo *tensor);
    const TensorInfo *tensor() const { return m_tensor; }

    // Puts the cursor on `offset` (clamped to the last byte) with its row near the top.
    void goToOffset(quint64 offset);
    quint64 cursorOffset() const { return m_cursor; }
    quint64 topRow() const { return m_topRow; }
    // Full rows that fit in the viewport.
    quint64 visibleRowCount() const;
    // 16, or 8 when 16 would not fit the viewport's width.
    int bytesPerRow() const { return m_columns.perRow; }

    // The file changed on disk: stop reading its bytes and say so until a new file is set.
    void setStale(bool stale);
    bool isStale() const { return m_stale; }
    // True once a read failed because the file shrank under us.
    bool readFailed() const { return m_readFailed; }

    // "offset 0x… (…) — region: …" for the cursor's byte.
    QString cursorDescription() const { return m_description; }
    // "element [0, 1] = 1.5 (f32 0x3fc00000)" when the cursor is in a tensor, else empty.
    QString cursorElement() const { return m_element; }

    QSize sizeHint() const override;

signals:
    void cursorMoved(quint64 offset);
    void cursorDescriptionChanged(const QString &location, const QString &element);
    // Emitted once when the bytes can no longer be read (the file was truncated while open).
    void bytesUnreadable();

protected:
    void paintEvent(QPaintEvent *event) override;
    void resizeEvent(QResizeEvent *event) override;
    void keyPressEvent(QKeyEvent *event) override;
    void mousePressEvent(QMouseEvent *event) override;
    void mouseMoveEvent(QMouseEvent *event) override;
    void mouseReleaseEvent(QMouseEvent *event) override;
    void wheelEvent(QWheelEvent *event) override;
    void changeEvent(QEvent *event) override;
    void focusInEvent(QFocusEvent *event) override;
    void focusOutEvent(QFocusEvent *event) override;
    void scrollContentsBy(int dx, int dy) override;

private:
    quint64 fileSize() const;
    quint64 maxTop() const;
    quint64 perRow() const { return quint64(m_columns.perRow); }
    void updateBytesPerRow();
    void updateMetrics();
    void updateScrollBars();
    void onScrollValue(int value);
    void onScrollAction(int action);
    void setTopRow(quint64 row, int pixelOffset = 0);
    void scrollByPixels(qint64 pixels);
    void scrollByRows(qint64 rows);
    void moveCursorTo(quint64 offset, bool ensureVisible = true);
    void moveCursorBy(qint64 delta);
    void ensureCursorVisible();
    void updateDescription();
    void markUnreadable();
    std::optional<quint64> offsetAt(QPoint viewportPos) const;
    void paintNotice(QPainter &painter, const QString &text);

    std::shared_ptr<const SafetensorsFile> m_file;
    mutable std::vector<Extent> m_extents; // computed when first needed
    mutable bool m_extentsReady = false;
    const TensorInfo *m_tensor = nullptr;
    quint64 m_cursor = 0;
    quint64 m_topRow = 0;
    int m_pixelOffset = 0; // 0 … lineHeight-1: how far the top row is scrolled out, for smooth wheels
    int m_wheelRemainder = 0; // wheel angle not yet turned into whole pixels (120ths of a pixel)
    bool m_stale = false;
    bool m_readFailed = false;
    QString m_description;
    QString m_element;
    hexgeometry::Columns m_columns;
    qreal m_charWidth = 8;
    int m_lineHeight = 16;
    int m_ascent = 12;
    std::vector<std::byte> m_rowBytes; // reused between paints
};

} // namespace stb
