#include "ui/layoutmap/layoutmapview.h"

#include "core/io/safetensorsfile.h"
#include "core/text/uniquesuffix.h"
#include "ui/common/qtformat.h"
#include "ui/hex/bytedescription.h"
#include "ui/layoutmap/layoutmapstyle.h"

#include <QFileInfo>
#include <QHelpEvent>
#include <QMouseEvent>
#include <QPainter>
#include <QTextLayout>
#include <QTextOption>
#include <QToolTip>

#include <algorithm>
#include <cmath>

using namespace Qt::StringLiterals;

namespace stb {

namespace {

using Kind = Extent::Kind;

constexpr int kPad = 8;
constexpr int kRowHeight = 26;
constexpr int kRowGap = 6;
constexpr int kSwatch = 12;
constexpr int kMinLabelWidth = 28; // narrower blocks show no label (a few small characters fit)
constexpr double kSmallFontScale = 0.82; // the labels' second try, for blocks of a 1024 px window

struct LegendItem {
    LayoutMapStyle style;
    QString label;
};

QTextOption captionOption()
{
    QTextOption option(Qt::AlignLeft | Qt::AlignTop);
    option.setWrapMode(QTextOption::WrapAtWordBoundaryOrAnywhere);
    return option;
}

std::vector<LegendItem> legendItems(const std::vector<Extent> &extents, bool selection, const QPalette &palette)
{
    bool present[8] = {};
    for (const Extent &e : extents)
        present[int(e.kind)] = true;
    std::vector<LegendItem> items;
    for (int k = 0; k < 8; ++k) {
        if (present[k])
            items.push_back({ LayoutMapStyle::forKind(Kind(k), false, palette), LayoutMapStyle::label(Kind(k)) });
    }
    if (selection)
        items.push_back({ LayoutMapStyle::selected(), LayoutMapView::tr("Selected tensor") });
    return items;
}

} // namespace

LayoutMapView::LayoutMapView(QWidget *parent)
    : QWidget(parent)
{
    setMouseTracking(true);
    setAttribute(Qt::WA_OpaquePaintEvent);
}

LayoutMapView::~LayoutMapView() = default;

void LayoutMapView::setFile(std::shared_ptr<const SafetensorsFile> file)
{
    m_file = std::move(file);
    m_selected = -1;
    m_extents.clear();
    m_extentsReady = false;
    m_layoutReady = false;
    update();
}

void LayoutMapView::setSelectedTensor(const TensorInfo *tensor)
{
    std::ptrdiff_t index = -1;
    if (m_file && tensor) {
        const auto &tensors = m_file->header().tensors;
        if (tensor >= tensors.data() && tensor < tensors.data() + tensors.size())
            index = tensor - tensors.data();
    }
    if (index == m_selected)
        return;
    m_selected = index;
    m_layoutReady = false; // the legend gains or loses its "selected" entry
    update();
}

const TensorInfo *LayoutMapView::selectedTensor() const
{
    return m_selected >= 0 ? &m_file->header().tensors[std::size_t(m_selected)] : nullptr;
}

const std::vector<Extent> &LayoutMapView::extents() const
{
    if (!m_extentsReady) {
        m_extents = m_file ? fileExtents(*m_file) : std::vector<Extent>();
        m_extentsReady = true;
    }
    return m_extents;
}

void LayoutMapView::ensureLayout() const
{
    // The size too: a hidden widget's resize() sends no resize event until it is shown.
    if (m_layoutReady && m_layoutSize == size())
        return;
    m_layoutReady = true;
    m_layoutSize = size();
    const auto &all = extents();
    Geometry &g = m_geometry;
    const QFontMetrics metrics = fontMetrics();
    g.left = kPad;
    g.width = std::max(1, width() - 2 * kPad);
    // The caption wraps (a broken file's lists its problems) and the band starts below it.
    g.captionHeight = m_file ? captionHeight(captionText(), g.width) : metrics.height();
    g.top = kPad + g.captionHeight + 6;
    g.rowHeight = kRowHeight;
    g.rowGap = kRowGap;
    // The legend flows over as many lines as it needs at this width.
    int lines = 1, x = 0;
    for (const auto &item : legendItems(all, m_selected >= 0, palette())) {
        const int w = kSwatch + 4 + metrics.horizontalAdvance(item.label) + 14;
        if (x > 0 && x + w > g.width)
            ++lines, x = 0;
        x += w;
    }
    const int legendHeight = lines * (metrics.height() + 4);
    const int band = height() - g.top - legendHeight - 2 * kPad;
    g.rows = std::max(1, (band + kRowGap) / (kRowHeight + kRowGap));
    g.legendTop = g.top + g.rows * (kRowHeight + kRowGap) - kRowGap + kPad;

    const double total = double(g.rows) * g.width;
    const auto count = double(all.size());
    const double fileSize = m_file ? double(std::max<quint64>(m_file->header().fileSize, 1)) : 1;
    const auto weight = [&](const Extent &e) {
        return e.kind == Kind::Missing ? std::min(double(e.size()), fileSize) : double(e.size());
    };
    double weights = 0;
    for (const Extent &e : all)
        weights += weight(e);
    const double floor = all.empty() ? 0 : std::min(kMinWidth, total / (2 * count));
    const double share = total - floor * count;
    m_starts.assign(all.size() + 1, 0.0);
    for (std::size_t i = 0; i < all.size(); ++i) {
        const double part = weights > 0 ? weight(all[i]) / weights : 1.0 / count;
        m_starts[i + 1] = m_starts[i] + floor + share * part;
    }
    if (!all.empty())
        m_starts.back() = total; // no rounding gap at the end
    labelSuffixes();
}

QRect LayoutMapView::spanRect(qint64 from, qint64 to, int row) const
{
    const Geometry &g = m_geometry;
    const qint64 rowStart = qint64(row) * g.width;
    return QRect(
        g.left + int(from - rowStart), g.top + row * (g.rowHeight + g.rowGap), int(to - from), g.rowHeight);
}

// Paints [begin, end) of the band, wrapped over rows, in the style of extent `index`; `merged`
// marks a run of sub-pixel extents that `index` only represents (no label then).
void LayoutMapView::paintSpan(
    QPainter &painter, double begin, double end, std::size_t index, bool merged) const
{
    const Geometry &g = m_geometry;
    const Extent &extent = m_extents[index];
    const LayoutMapStyle style = LayoutMapStyle::forKind(extent.kind, index % 2 == 1, palette());
    const qint64 x0 = std::llround(begin);
    const qint64 x1 = std::max(x0 + 1, std::llround(end));
    const qint64 lastRow = std::min<qint64>((x1 - 1) / g.width, g.rows - 1);
    for (qint64 row = x0 / g.width; row <= lastRow; ++row) {
        const qint64 rowStart = row * g.width;
        const QRect rect = spanRect(std::max(x0, rowStart), std::min(x1, rowStart + g.width), int(row));
        style.paint(painter, rect);
        if (extent.kind == Kind::Missing) {
            painter.setPen(QPen(style.patternColor, 1, Qt::DashLine));
            painter.drawRect(rect.adjusted(0, 0, -1, -1));
        }
        if (!merged)
            paintLabel(painter, rect, index, style.fill);
    }
}

// The extent's label inside its rectangle when there is room for a few characters (fitLabel).
void LayoutMapView::paintLabel(
    QPainter &painter, const QRect &rect, std::size_t index, const QColor &background) const
{
    const auto [label, labelFont] = fitLabel(index, rect.width());
    if (label.isEmpty())
        return;
    painter.save();
    painter.setFont(labelFont);
    painter.setPen(background.lightnessF() > 0.6 ? QColor(0x20, 0x20, 0x20) : QColor(Qt::white));
    const int margin = (rect.width() - QFontMetrics(labelFont).horizontalAdvance(label)) >= 8 ? 4 : 2;
    painter.drawText(rect.adjusted(margin, 0, -margin, 0), Qt::AlignVCenter | Qt::AlignLeft, label);
    painter.restore();
}

// A tensor's shortest name suffix that no other labelled block shares (labelSuffixes), so
// neighbouring "…k_proj.weight" and "…v_proj.weight" never look alike; when that does not fit,
// its short form without the segments all labels share ("11.down_proj"), then in a smaller
// font, then its last segment ("down_proj", which the block's place among its neighbours and
// its tooltip complete), and last that segment cut at its end if a few characters remain.
std::pair<QString, QFont> LayoutMapView::fitLabel(std::size_t index, int width) const
{
    if (width < kMinLabelWidth || index >= m_extents.size())
        return {};
    QFont small = font();
    small.setPointSizeF(std::max(6.5, font().pointSizeF() * kSmallFontScale));
    const QFontMetrics normalMetrics(font()), smallMetrics(small);
    const bool named = index < m_labels.size() && !m_labels[index].isEmpty();
    const QString kind = LayoutMapStyle::label(m_extents[index].kind);
    const QString &full = named ? m_labels[index] : kind;
    const QString &shorter = named ? m_shortLabels[index] : kind;
    const QString &last = named ? m_lastSegments[index] : kind;
    const struct {
        const QString &text;
        bool small;
    } tries[] { { full, false }, { shorter, false }, { shorter, true }, { last, false }, { last, true } };
    for (const auto &t : tries) {
        const QFontMetrics &metrics = t.small ? smallMetrics : normalMetrics;
        if (metrics.horizontalAdvance(t.text) <= width - (t.small ? 4 : 8))
            return { t.text, t.small ? small : font() };
    }
    // A role's name differs at its start ("down_proj", "gate_proj"): keep that.
    const QString cut = smallMetrics.elidedText(last, Qt::ElideRight, width - 4);
    if (cut.size() < 4) // "ab…" names nothing
        return {};
    return { cut, small };
}

void LayoutMapView::labelSuffixes() const
{
    m_labels.assign(m_extents.size(), QString());
    std::vector<std::size_t> labelled;
    std::vector<std::string_view> names;
    for (std::size_t i = 0; i < m_extents.size(); ++i) {
        const Extent &e = m_extents[i];
        if (e.tensor < 0 || e.kind == Kind::Overlap || m_starts[i + 1] - m_starts[i] < kMinLabelWidth)
            continue;
        labelled.push_back(i);
        names.push_back(m_file->header().tensors[std::size_t(e.tensor)].name);
    }
    const auto starts = uniqueSuffixStarts(names);
    std::vector<std::string_view> suffixes;
    for (std::size_t k = 0; k < labelled.size(); ++k)
        suffixes.push_back(names[k].substr(starts[k]));
    const auto shortForms = compactLabels(suffixes);
    m_shortLabels.assign(m_extents.size(), QString());
    m_lastSegments.assign(m_extents.size(), QString());
    for (std::size_t k = 0; k < labelled.size(); ++k) {
        m_labels[labelled[k]] = shownName(suffixes[k], 200);
        m_shortLabels[labelled[k]] = shownName(shortForms[k], 200);
        const std::string_view shortForm = shortForms[k];
        const std::size_t dot = shortForm.rfind('.');
        m_lastSegments[labelled[k]]
            = shownName(dot == std::string_view::npos ? shortForm : shortForm.substr(dot + 1), 200);
    }
}

void LayoutMapView::paintEvent(QPaintEvent *)
{
    QPainter painter(this);
    painter.fillRect(rect(), palette().window());
    if (!m_file) {
        painter.setPen(palette().color(QPalette::PlaceholderText));
        painter.drawText(rect(), Qt::AlignCenter, tr("No file"));
        return;
    }
    ensureLayout();
    const Geometry &g = m_geometry;
    painter.setPen(palette().color(QPalette::WindowText));
    painter.drawText(QRectF(kPad, kPad, g.width, g.captionHeight), captionText(), captionOption());
    for (int row = 0; row < g.rows; ++row)
        painter.fillRect(spanRect(qint64(row) * g.width, qint64(row + 1) * g.width, row), palette().base());

    // Extents of a pixel or more are painted as they are; runs of narrower ones become one
    // rectangle in the colour of the most alarming kind among them.
    constexpr std::size_t kNone = std::size_t(-1);
    std::size_t pending = kNone;
    double pendingBegin = 0;
    for (std::size_t i = 0; i < m_extents.size(); ++i) {
        const double a = m_starts[i], b = m_starts[i + 1];
        if (b - a >= 1) {
            if (pending != kNone)
                paintSpan(painter, pendingBegin, a, pending, true);
            pending = kNone;
            paintSpan(painter, a, b, i, false);
            continue;
        }
        if (pending == kNone)
            pending = i, pendingBegin = a;
        else if (LayoutMapStyle::priority(m_extents[i].kind)
            > LayoutMapStyle::priority(m_extents[pending].kind))
            pending = i;
        if (b - pendingBegin >= 1) {
            paintSpan(painter, pendingBegin, b, pending, true);
            pending = kNone;
        }
    }
    if (pending != kNone)
        paintSpan(painter, pendingBegin, m_starts.back(), pending, true);

    // The selection on top, at least 3 px wide so a tiny tensor still shows where it is.
    if (m_selected >= 0) {
        for (std::size_t i = 0; i < m_extents.size(); ++i) {
            const Extent &e = m_extents[i];
            if (e.tensor != m_selected && e.otherTensor != m_selected)
                continue;
            double a = m_starts[i], b = m_starts[i + 1];
            if (b - a < 3)
                a = (a + b) / 2 - 1.5, b = a + 3;
            const qint64 x0 = std::llround(std::max(a, 0.0)), x1 = std::llround(b);
            for (qint64 row = x0 / g.width; row <= std::min<qint64>((x1 - 1) / g.width, g.rows - 1); ++row) {
                const qint64 rowStart = row * g.width;
                const QRect rect
                    = spanRect(std::max(x0, rowStart), std::min(x1, rowStart + g.width), int(row));
                const QColor colour = e.kind == Kind::Tensor ? LayoutMapStyle::selected().fill
                                                             : LayoutMapStyle::selected().fill.darker(130);
                painter.fillRect(rect, colour);
                painter.setPen(QPen(QColor(0x40, 0x20, 0x00), 1));
                painter.drawRect(rect.adjusted(0, 0, -1, -1));
                paintLabel(painter, rect, i, colour);
            }
        }
    }
    paintLegend(painter);
}

void LayoutMapView::paintLegend(QPainter &painter) const
{
    const QFontMetrics metrics = fontMetrics();
    const int lineHeight = metrics.height() + 4;
    int x = 0, y = m_geometry.legendTop;
    for (const auto &item : legendItems(m_extents, m_selected >= 0, palette())) {
        const int w = kSwatch + 4 + metrics.horizontalAdvance(item.label) + 14;
        if (x > 0 && x + w > m_geometry.width)
            x = 0, y += lineHeight;
        const QRect swatch(kPad + x, y + (metrics.height() - kSwatch) / 2, kSwatch, kSwatch);
        item.style.paint(painter, swatch);
        painter.setPen(palette().color(QPalette::Mid));
        painter.drawRect(swatch.adjusted(0, 0, -1, -1));
        painter.setPen(palette().color(QPalette::WindowText));
        painter.drawText(QPoint(kPad + x + kSwatch + 4, y + metrics.ascent()), item.label);
        x += w;
    }
}

int LayoutMapView::captionHeight(const QString &text, int width) const
{
    QTextLayout layout(text, font());
    layout.setTextOption(captionOption());
    qreal height = 0;
    layout.beginLayout();
    for (QTextLine line = layout.createLine(); line.isValid(); line = layout.createLine()) {
        line.setLineWidth(width);
        height += line.height();
    }
    layout.endLayout();
    return std::max(fontMetrics().height(), int(std::ceil(height)));
}

QString LayoutMapView::captionText() const
{
    extents();
    const Header &header = m_file->header();
    int holes = 0, overlaps = 0, missing = 0;
    for (const Extent &e : m_extents) {
        holes += e.kind == Kind::Hole;
        overlaps += e.kind == Kind::Overlap;
        missing += e.kind == Kind::Missing;
    }
    QString text
        = tr("%1 — %2: header %3, %4 tensors")
              .arg(shownName(QFileInfo(toQString(m_file->path())).fileName().toStdString()),
                  sizeText(header.fileSize), sizeText(header.dataStart), countText(header.tensors.size()));
    if (holes)
        text += holes == 1 ? tr(", 1 hole") : tr(", %1 holes").arg(holes);
    if (overlaps)
        text += overlaps == 1 ? tr(", 1 overlap") : tr(", %1 overlaps").arg(overlaps);
    if (missing)
        text += tr(", bytes missing past the end");
    return text;
}

std::optional<std::size_t> LayoutMapView::extentIndexAt(QPoint pos) const
{
    if (!m_file || extents().empty())
        return std::nullopt;
    ensureLayout();
    const Geometry &g = m_geometry;
    const int y = pos.y() - g.top, x = pos.x() - g.left;
    const int pitch = g.rowHeight + g.rowGap;
    if (y < 0 || x < 0 || x >= g.width || y / pitch >= g.rows || y % pitch >= g.rowHeight)
        return std::nullopt;
    // The centre of the pixel, as painting rounds extent edges to the nearest pixel boundary.
    const double along = double(y / pitch) * g.width + x + 0.5;
    if (along >= m_starts.back())
        return std::nullopt;
    const auto it = std::upper_bound(m_starts.begin(), m_starts.end() - 1, along);
    return std::size_t(std::max<std::ptrdiff_t>(0, it - m_starts.begin() - 1));
}

QRect LayoutMapView::extentRect(std::size_t index) const
{
    if (index >= extents().size())
        return {};
    ensureLayout();
    const qint64 x0 = std::llround(m_starts[index]);
    const qint64 x1 = std::max(x0 + 1, std::llround(m_starts[index + 1]));
    const qint64 row = std::min<qint64>(x0 / m_geometry.width, m_geometry.rows - 1);
    return spanRect(x0, std::min(x1, (row + 1) * m_geometry.width), int(row));
}

QString LayoutMapView::extentToolTip(std::size_t index) const
{
    return index < extents().size() ? describeExtent(m_file->header(), m_extents[index]) : QString();
}

QString LayoutMapView::extentLabel(std::size_t index) const
{
    if (index >= extents().size())
        return {};
    ensureLayout();
    return m_labels[index];
}

QString LayoutMapView::paintedLabel(std::size_t index) const
{
    if (index >= extents().size())
        return {};
    ensureLayout();
    return fitLabel(index, extentRect(index).width()).first;
}

bool LayoutMapView::event(QEvent *event)
{
    if (event->type() == QEvent::ToolTip) {
        auto *help = static_cast<QHelpEvent *>(event);
        if (const auto index = extentIndexAt(help->pos()))
            QToolTip::showText(help->globalPos(), extentToolTip(*index), this);
        else
            QToolTip::hideText();
        return true;
    }
    return QWidget::event(event);
}

void LayoutMapView::resizeEvent(QResizeEvent *event)
{
    QWidget::resizeEvent(event);
    m_layoutReady = false;
}

void LayoutMapView::mousePressEvent(QMouseEvent *event)
{
    const auto index
        = event->button() == Qt::LeftButton ? extentIndexAt(event->position().toPoint()) : std::nullopt;
    if (!index || m_extents[*index].tensor < 0)
        return QWidget::mousePressEvent(event);
    const TensorInfo *tensor = &m_file->header().tensors[std::size_t(m_extents[*index].tensor)];
    setSelectedTensor(tensor);
    emit tensorClicked(tensor);
}

void LayoutMapView::mouseMoveEvent(QMouseEvent *event)
{
    const auto index = extentIndexAt(event->position().toPoint());
    setCursor(index && m_extents[*index].tensor >= 0 ? Qt::PointingHandCursor : Qt::ArrowCursor);
    QWidget::mouseMoveEvent(event);
}

QSize LayoutMapView::sizeHint() const
{
    return { 640, 2 * kPad + 3 * fontMetrics().height() + 3 * (kRowHeight + kRowGap) + 16 };
}

QSize LayoutMapView::minimumSizeHint() const
{
    return { 200, 2 * kPad + 2 * fontMetrics().height() + kRowHeight + 16 };
}

} // namespace stb
