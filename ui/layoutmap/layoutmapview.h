#pragma once

#include "core/io/fileextents.h"

#include <QWidget>

#include <cstddef>
#include <memory>
#include <optional>
#include <vector>

namespace stb {

class SafetensorsFile;
struct TensorInfo;

// A painted map of a whole file in file order (core fileExtents): the length prefix, the header
// and its padding, every tensor, and the holes, overlaps, trailing and missing bytes of broken
// files, as a band wrapped over as many rows as the height allows, with a legend. Hovering
// names an extent; clicking a tensor's extent emits tensorClicked.
//
// Scale: every extent gets a floor of kMinWidth pixels plus a share of the remaining pixels
// proportional to its bytes, so a 4-byte tensor next to a 1 GiB one stays visible and large
// tensors keep their relative sizes. With so many extents that the floors would take more than
// half the band, the floor shrinks below a pixel and runs of neighbours narrower than a pixel
// are painted as one (problems win the colour), keeping a paint O(extents) with few rectangles.
// Bytes claimed past the end of the file weigh at most the file's size, so an absurd length in
// a broken header cannot squeeze the real file to nothing.
class LayoutMapView : public QWidget {
    Q_OBJECT

public:
    static constexpr double kMinWidth = 4;

    explicit LayoutMapView(QWidget *parent = nullptr);
    ~LayoutMapView() override;

    // nullptr clears. The view keeps the file alive.
    void setFile(std::shared_ptr<const SafetensorsFile> file);
    // Highlights every extent of the tensor (a pointer into the current file's header).
    void setSelectedTensor(const TensorInfo *tensor);
    const TensorInfo *selectedTensor() const;

    // The extents shown (computed on first use).
    const std::vector<Extent> &extents() const;
    // The extent painted at `pos` (widget coordinates), if any.
    std::optional<std::size_t> extentIndexAt(QPoint pos) const;
    // Where the extent's first pixels are painted (its piece on the first row it touches).
    QRect extentRect(std::size_t index) const;
    QString extentToolTip(std::size_t index) const;
    // The text painted inside the extent's block: a tensor's shortest name suffix that tells it
    // from the other labelled blocks (before eliding to the block's width); empty when the
    // block is too narrow for a label or is not a tensor.
    QString extentLabel(std::size_t index) const;
    // What is painted in the extent's block on its first row: that label, a shorter form of
    // it, or its last segment, in the view's font or a smaller one; empty when nothing fits.
    QString paintedLabel(std::size_t index) const;
    // The line above the map (name, sizes, problems), wrapped to the width.
    QString caption() const { return m_file ? captionText() : QString(); }

    QSize sizeHint() const override;
    QSize minimumSizeHint() const override;

signals:
    void tensorClicked(const stb::TensorInfo *tensor);

protected:
    bool event(QEvent *event) override;
    void paintEvent(QPaintEvent *event) override;
    void resizeEvent(QResizeEvent *event) override;
    void mousePressEvent(QMouseEvent *event) override;
    void mouseMoveEvent(QMouseEvent *event) override;

private:
    struct Geometry {
        int left = 0, top = 0, width = 1, rows = 1, rowHeight = 1, rowGap = 1;
        int captionHeight = 0;
        int legendTop = 0;
    };
    void ensureLayout() const;
    QRect spanRect(qint64 from, qint64 to, int row) const;
    void paintSpan(QPainter &painter, double begin, double end, std::size_t extent, bool merged) const;
    void paintLabel(QPainter &painter, const QRect &rect, std::size_t index, const QColor &background) const;
    std::pair<QString, QFont> fitLabel(std::size_t index, int width) const;
    void paintLegend(QPainter &painter) const;
    void labelSuffixes() const;
    QString captionText() const;
    int captionHeight(const QString &text, int width) const;

    std::shared_ptr<const SafetensorsFile> m_file;
    std::ptrdiff_t m_selected = -1;
    mutable std::vector<Extent> m_extents;
    mutable bool m_extentsReady = false;
    mutable std::vector<double> m_starts; // pixel position of each extent along the band, then the end
    mutable std::vector<QString> m_labels; // per extent: its label, empty for unlabelled ones
    mutable std::vector<QString> m_shortLabels; // the same without segments every label shares
    mutable std::vector<QString> m_lastSegments; // the short label's last segment ("up_proj")
    mutable Geometry m_geometry;
    mutable bool m_layoutReady = false;
    mutable QSize m_layoutSize; // the size the layout was computed for
};

} // namespace stb
