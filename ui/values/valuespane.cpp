#include "ui/values/valuespane.h"

#include "core/io/scannedpages.h"
#include "core/quant/quantbadge.h"
#include "core/values/stridedview.h"
#include "ui/common/panetitle.h"
#include "ui/common/qtformat.h"
#include "ui/values/planeselector.h"
#include "ui/values/valuetablemodel.h"

#include <QAction>
#include <QApplication>
#include <QCheckBox>
#include <QClipboard>
#include <QFontDatabase>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QItemSelectionModel>
#include <QLabel>
#include <QLineEdit>
#include <QMenu>
#include <QProgressBar>
#include <QSpinBox>
#include <QTableView>
#include <QToolButton>
#include <QVBoxLayout>

using namespace Qt::StringLiterals;

namespace stb {

ValuesPane::ValuesPane(std::shared_ptr<const Checkpoint> checkpoint, QWidget *parent)
    : QWidget(parent)
    , m_checkpoint(std::move(checkpoint))
    , m_title(new PaneTitle(this))
    , m_raw(new QCheckBox(tr("Raw codes"), this))
    , m_plane(new PlaneSelector(this))
    , m_precision(new QSpinBox(this))
    , m_goTo(new QLineEdit(this))
    , m_locateButton(new QToolButton(this))
    , m_progress(new QProgressBar(this))
    , m_message(new QLabel(this))
    , m_table(new QTableView(this))
    , m_model(new ValueTableModel(this))
{
    auto *layout = new QVBoxLayout(this);
    layout->setContentsMargins(8, 6, 8, 6);
    // The title on a line of its own: beside the controls a 1024 px window left it "mod…96]".
    layout->addWidget(m_title);
    auto *top = new QHBoxLayout;
    m_raw->setToolTip(tr("A quantized weight's stored codes instead of its dequantized values"));
    m_raw->hide();
    top->addWidget(m_raw);
    top->addWidget(new QLabel(tr("Digits:"), this));
    m_precision->setRange(0, 17);
    m_precision->setSpecialValueText(tr("shortest"));
    m_precision->setToolTip(
        tr("Significant digits; \"shortest\" prints each value exactly as it reads back"));
    top->addWidget(m_precision);
    m_goTo->setPlaceholderText(tr("Go to index (1234 or 3, 17)"));
    m_goTo->setClearButtonEnabled(true);
    top->addWidget(m_goTo);
    m_locateButton->setText(tr("Locate"));
    m_locateButton->setPopupMode(QToolButton::InstantPopup);
    auto *menu = new QMenu(m_locateButton);
    addLocateActions(menu, [this](LocateTarget target) { locate(target); });
    menu->addSeparator();
    menu->addAction(tr("Show Selected Element in Hex"), this, &ValuesPane::showCurrentInHex);
    m_locateButton->setMenu(menu);
    top->addWidget(m_locateButton);
    m_progress->setRange(0, 1000);
    m_progress->setMaximumWidth(120);
    m_progress->hide();
    top->addWidget(m_progress);
    top->addStretch(1);
    layout->addLayout(top);
    layout->addWidget(m_plane);
    m_message->setWordWrap(true);
    m_message->hide();
    layout->addWidget(m_message);

    m_table->setModel(m_model);
    m_table->setFont(QFontDatabase::systemFont(QFontDatabase::FixedFont));
    // Fixed sections keep the headers O(1) however many rows the tensor has.
    for (QHeaderView *header : { m_table->horizontalHeader(), m_table->verticalHeader() })
        header->setSectionResizeMode(QHeaderView::Fixed);
    m_table->horizontalHeader()->setDefaultSectionSize(110);
    m_table->verticalHeader()->setDefaultSectionSize(m_table->fontMetrics().height() + 6);
    m_table->setContextMenuPolicy(Qt::CustomContextMenu);
    layout->addWidget(m_table, 1);

    auto *copy = new QAction(tr("Copy"), m_table);
    copy->setShortcut(QKeySequence::Copy);
    copy->setShortcutContext(Qt::WidgetWithChildrenShortcut);
    m_table->addAction(copy);
    connect(copy, &QAction::triggered, this, &ValuesPane::copySelection);
    connect(m_table, &QWidget::customContextMenuRequested, this, &ValuesPane::showContextMenu);
    connect(m_precision, &QSpinBox::valueChanged, m_model, &ValueTableModel::setPrecision);
    connect(m_plane, &PlaneSelector::planeChanged, this, &ValuesPane::applyPlane);
    connect(m_goTo, &QLineEdit::returnPressed, this, [this] { goToText(m_goTo->text()); });
    connect(&m_locate, &JobTrackerBase::progressChanged, m_progress, &QProgressBar::setValue);
    connect(m_raw, &QCheckBox::toggled, this, &ValuesPane::reload);
    showTensor(nullptr);
}

ValuesPane::~ValuesPane() = default;

void ValuesPane::showTensor(const Checkpoint::Tensor *tensor)
{
    if (tensor == m_tensor && tensor)
        return;
    m_tensor = tensor;
    reload();
}

void ValuesPane::setQuantView(std::shared_ptr<const QuantView> view)
{
    m_quant = std::move(view);
    reload();
}

void ValuesPane::reload()
{
    const Checkpoint::Tensor *tensor = m_tensor;
    m_locate.cancel();
    m_progress->hide();
    setMessage({});
    const SafetensorsFile *file = tensor ? m_checkpoint->fileOf(*tensor) : nullptr;
    const bool readable = file && file->fullyReadable(*tensor->info);
    m_locateButton->setEnabled(readable);
    m_goTo->setEnabled(readable);
    // A recognised, decodable quantized weight: its dequantized values unless raw codes are asked for.
    const auto tensorIndex = tensor ? static_cast<std::size_t>(tensor - m_checkpoint->tensors().data()) : 0;
    const auto dequantized
        = readable && m_quant ? dequantizedTensor(*m_checkpoint, *m_quant, tensorIndex) : std::nullopt;
    m_raw->setVisible(dequantized.has_value());
    m_dequantized = m_raw->isChecked() ? std::nullopt : dequantized;
    if (!readable) {
        m_title->setTitle(tensor
                ? tr("%1: the tensor's bytes are not in the file").arg(shownName(tensor->info->name))
                : tr("Select a tensor to see its values"));
        m_plane->setShape({});
        m_plane->hide();
        m_model->clear();
        return;
    }
    if (dequantized) {
        const QuantizedWeight &w = *dequantized->weight;
        const QString badge = toQString(quantBadge(w));
        m_title->setTitle(m_dequantized
                ? tr("%1 — dequantized %2 %3").arg(shownName(w.name), badge, shapeText(w.logicalShape))
                : tr("%1 — raw %2 codes, %3 %4")
                      .arg(shownName(tensor->info->name), badge, toQString(dtypeName(tensor->info->dtype)),
                          shapeText(tensor->info->shape)));
    } else {
        m_title->setTitle(tr("%1  %2 %3")
                              .arg(shownName(tensor->info->name), toQString(dtypeName(tensor->info->dtype)),
                                  shapeText(tensor->info->shape)));
    }
    m_plane->setShape(m_dequantized ? m_dequantized->weight->logicalShape : tensor->info->shape);
    applyPlane();
}

void ValuesPane::applyPlane()
{
    if (!m_tensor)
        return;
    if (m_dequantized)
        m_model->setDequantizedPlane(m_checkpoint, m_dequantized->dequantizer, m_tensor->info,
            m_dequantized->weight->logicalShape, m_plane->view());
    else
        m_model->setPlane(m_checkpoint->shards()[m_tensor->shard], m_tensor->info, m_plane->view());
}

std::uint64_t ValuesPane::shownElements() const
{
    if (!m_tensor)
        return 0;
    return m_dequantized ? m_dequantized->dequantizer->elements()
                         : m_tensor->info->elementCount().value_or(0);
}

bool ValuesPane::goToElement(std::uint64_t flat)
{
    if (!m_tensor || flat >= shownElements())
        return false;
    const std::vector<std::uint64_t> index = unravelIndex(flat, m_model->shape());
    m_plane->setFixedFrom(index);
    const QModelIndex cell = m_model->indexOfElement(flat);
    if (!cell.isValid())
        return false;
    m_table->setCurrentIndex(cell);
    m_table->selectionModel()->select(cell, QItemSelectionModel::ClearAndSelect);
    m_table->scrollTo(cell, QAbstractItemView::PositionAtCenter);
    return true;
}

bool ValuesPane::goToText(const QString &text)
{
    if (!m_tensor)
        return false;
    const QStringList parts = text.split(u',', Qt::SkipEmptyParts);
    const auto &shape = m_model->shape();
    std::vector<std::uint64_t> index;
    for (const QString &part : parts) {
        bool ok = false;
        index.push_back(part.trimmed().toULongLong(&ok));
        if (!ok) {
            setMessage(tr("\"%1\" is not an index: give a flat index (1234) or one index per axis (3, 17)")
                           .arg(text.left(40)));
            return false;
        }
    }
    std::uint64_t flat = 0;
    if (index.size() == 1 && shape.size() != 1) {
        flat = index[0];
    } else if (index.size() == shape.size() && !shape.empty()) {
        for (std::size_t k = 0; k < shape.size(); ++k) {
            if (index[k] >= shape[k]) {
                setMessage(
                    tr("Index %1 is out of range for axis %2 of size %3").arg(index[k]).arg(k).arg(shape[k]));
                return false;
            }
            flat = flat * shape[k] + index[k];
        }
    } else {
        setMessage(tr("Give a flat index or %1 indices, one per axis").arg(shape.size()));
        return false;
    }
    if (!goToElement(flat)) {
        setMessage(tr("Element %1 is out of range (the tensor has %2)")
                       .arg(countText(flat), countText(shownElements())));
        return false;
    }
    setMessage({});
    return true;
}

void ValuesPane::locate(LocateTarget target)
{
    if (!m_tensor)
        return;
    const QPair<const TensorInfo *, bool> key { m_tensor->info, m_dequantized.has_value() };
    if (const auto cached = m_located.constFind(key); cached != m_located.constEnd()) {
        goToLocated(target, *cached);
        return;
    }
    const auto file = m_checkpoint->shards()[m_tensor->shard];
    const TensorInfo *info = m_tensor->info;
    m_progress->setValue(0);
    m_progress->show();
    setMessage(m_dequantized ? tr("Scanning %1 dequantized values…").arg(countText(shownElements()))
                             : tr("Scanning %1 elements…").arg(countText(shownElements())));
    const auto done = [this, key, target](std::optional<LocateResult> result) {
        m_progress->hide();
        if (!result) {
            setMessage(tr("The tensor could not be read (the file changed on disk)"));
            emit located(false);
            return;
        }
        m_located.insert(key, *result);
        goToLocated(target, *result);
    };
    if (m_dequantized) {
        // The Dequantizer points into the mappings, which the checkpoint it holds keeps alive.
        m_locate.start(
            [checkpoint = m_checkpoint, dequantizer = m_dequantized->dequantizer](
                std::stop_token stop, const JobProgress &progress) {
                return locateDequantized(*dequantizer, std::move(stop), progress);
            },
            done);
        return;
    }
    m_locate.start(
        [file, info](std::stop_token stop, const JobProgress &progress) {
            const ScannedPages pages(file->mapping(), file->tensorBytes(*info)); // cached before stays
            auto result = locateValues(
                info->dtype, file->tensorBytes(*info), info->elementCount().value_or(0), stop, progress);
            pages.release();
            return result;
        },
        done);
}

void ValuesPane::goToLocated(LocateTarget target, const LocateResult &result)
{
    const std::optional<LocatedValue> *found = nullptr;
    QString what;
    switch (target) {
    case LocateTarget::FirstNaN:
        found = &result.firstNaN, what = tr("First NaN");
        break;
    case LocateTarget::FirstInf:
        // The earlier of the two infinities.
        found = !result.firstNegInf
                || (result.firstPosInf && result.firstPosInf->index < result.firstNegInf->index)
            ? &result.firstPosInf
            : &result.firstNegInf;
        what = tr("First infinity");
        break;
    case LocateTarget::Min:
        found = &result.min, what = tr("Minimum");
        break;
    case LocateTarget::Max:
        found = &result.max, what = tr("Maximum");
        break;
    case LocateTarget::AbsMax:
        found = &result.absMax, what = tr("Largest |x|");
        break;
    }
    if (!found || !*found) {
        setMessage(tr("The tensor has no %1").arg(locateTargetNoun(target)));
        emit located(false);
        return;
    }
    const std::uint64_t flat = (*found)->index;
    QStringList index;
    for (std::uint64_t i : unravelIndex(flat, m_model->shape()))
        index << QString::number(i);
    // NaN and infinities are what was asked for: only a finite value is worth printing, and as
    // its cell shows it (17 digits of a BF16 value's double are binary noise).
    const QString value = target == LocateTarget::FirstNaN || target == LocateTarget::FirstInf
        ? QString()
        : u" "_s + m_model->cellText((*found)->value);
    setMessage(tr("%1%2 at [%3], flat index %4").arg(what, value, index.join(u", "_s), countText(flat)));
    goToElement(flat);
    emit located(true);
}

QString ValuesPane::selectionText() const
{
    const QModelIndexList cells = m_table->selectionModel()->selectedIndexes();
    if (cells.isEmpty())
        return {};
    int top = INT_MAX, left = INT_MAX, bottom = -1, right = -1;
    for (const QModelIndex &cell : cells) {
        top = std::min(top, cell.row()), bottom = std::max(bottom, cell.row());
        left = std::min(left, cell.column()), right = std::max(right, cell.column());
    }
    QString text;
    for (int r = top; r <= bottom; ++r) {
        for (int c = left; c <= right; ++c) {
            text += m_model->data(m_model->index(r, c)).toString();
            text += c < right ? u'\t' : u'\n';
        }
    }
    return text;
}

void ValuesPane::copySelection()
{
    // selectedIndexes() lists every cell: a selection of a whole huge tensor is refused first.
    const QItemSelection selection = m_table->selectionModel()->selection();
    qint64 cells = 0;
    for (const QItemSelectionRange &range : selection)
        cells += qint64(range.width()) * range.height();
    if (cells > kMaxCopyCells) {
        setMessage(tr("%1 cells selected: copy takes at most %2 (export the tensor instead)")
                       .arg(countText(std::uint64_t(cells)), countText(kMaxCopyCells)));
        return;
    }
    QApplication::clipboard()->setText(selectionText());
}

std::optional<ValuesPane::CellBytes> ValuesPane::byteOf(const QModelIndex &cell) const
{
    if (!cell.isValid() || !m_tensor)
        return std::nullopt;
    const auto flat = cell.data(ValueTableModel::FlatIndexRole).toULongLong();
    const SafetensorsFile *file = m_checkpoint->fileOf(*m_tensor);
    const std::uint64_t start = file->header().dataStart + m_tensor->info->begin;
    if (!m_dequantized)
        return CellBytes { start + flat * dtypeBits(m_tensor->info->dtype) / 8, {} };
    // A dequantized value: the byte(s) of its code in the codes tensor, which it may share.
    const CodeBytes code = m_dequantized->dequantizer->codeBytes(flat);
    QString note = code.length == 1
        ? tr("Its %1-bit code is bits %2–%3 of this byte")
              .arg(code.bits)
              .arg(code.shift)
              .arg(code.shift + std::min(code.bits, 8 - code.shift) - 1)
        : tr("Its %1-bit code starts at bit %2 of this byte and runs over %3 bytes")
              .arg(code.bits)
              .arg(code.shift)
              .arg(code.length);
    if (code.continues)
        note += tr(", then into the next packed word");
    if (code.sharing > 1)
        note += tr("; %1 values share %2")
                    .arg(code.sharing)
                    .arg(code.length == 1 ? tr("the byte") : tr("these bytes"));
    return CellBytes { start + code.offset, note + u'.' };
}

bool ValuesPane::showCurrentInHex()
{
    const auto bytes = byteOf(m_table->currentIndex());
    if (!bytes) {
        setMessage(tr("Select an element first (Locate or Go to selects one)"));
        return false;
    }
    emit byteRequested(bytes->offset, int(m_tensor->shard), bytes->note);
    return true;
}

void ValuesPane::showContextMenu(const QPoint &position)
{
    QMenu menu(this);
    menu.addAction(tr("Copy"), this, &ValuesPane::copySelection);
    if (const auto bytes = byteOf(m_table->indexAt(position))) {
        menu.addAction(m_dequantized ? tr("Show Code in Hex") : tr("Show in Hex"), this,
            [this, bytes = *bytes] { emit byteRequested(bytes.offset, int(m_tensor->shard), bytes.note); });
    }
    menu.exec(m_table->viewport()->mapToGlobal(position));
}

void ValuesPane::setMessage(const QString &text)
{
    m_message->setText(text);
    m_message->setVisible(!text.isEmpty());
}

QString ValuesPane::messageText() const
{
    return m_message->text();
}

} // namespace stb
