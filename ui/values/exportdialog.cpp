#include "ui/values/exportdialog.h"

#include "core/io/scannedpages.h"
#include "core/quant/dequantexport.h"
#include "core/values/csvexport.h"
#include "core/values/npyexport.h"
#include "core/values/slicespec.h"
#include "ui/common/qtformat.h"

#include <QCheckBox>
#include <QComboBox>
#include <QDialogButtonBox>
#include <QDir>
#include <QFileDialog>
#include <QFileInfo>
#include <QFormLayout>
#include <QHBoxLayout>
#include <QLabel>
#include <QLineEdit>
#include <QProgressBar>
#include <QPushButton>
#include <QRadioButton>
#include <QSpinBox>
#include <QToolButton>
#include <QVBoxLayout>

using namespace Qt::StringLiterals;

namespace stb {

namespace {

constexpr int kMaxFileStem = 80; // a hostile 2,000-character name makes a short file name

// A file name from a tensor name: letters, digits, '.', '_' and '-' kept, the rest '_'.
QString fileStem(const std::string &name)
{
    QString stem = toQString(name).left(kMaxFileStem);
    for (QChar &c : stem) {
        if (!(c.isLetterOrNumber() && c.unicode() < 128) && c != u'.' && c != u'_' && c != u'-')
            c = u'_';
    }
    while (stem.startsWith(u'.'))
        stem.remove(0, 1);
    return stem.isEmpty() ? u"tensor"_s : stem;
}

} // namespace

ExportDialog::ExportDialog(std::shared_ptr<const Checkpoint> checkpoint, const Checkpoint::Tensor &tensor,
    std::optional<StridedView> plane, QWidget *parent, std::optional<DequantizedTensor> dequantized, bool raw)
    : QDialog(parent)
    , m_checkpoint(std::move(checkpoint))
    , m_tensor(tensor)
    , m_givenPlane(plane)
    , m_dequantized(std::move(dequantized))
    , m_givenRaw(raw)
    , m_format(new QComboBox(this))
    , m_raw(new QCheckBox(tr("Raw codes instead of float32 values"), this))
    , m_conversion(new QLabel(this))
    , m_planeScope(new QRadioButton(this))
    , m_wholeScope(new QRadioButton(tr("Whole tensor %1").arg(shapeText(tensor.info->shape)), this))
    , m_sliceScope(new QRadioButton(tr("Slice:"), this))
    , m_slice(new QLineEdit(this))
    , m_csvLimit(new QSpinBox(this))
    , m_target(new QLineEdit(this))
    , m_message(new QLabel(this))
    , m_progress(new QProgressBar(this))
    , m_buttons(new QDialogButtonBox(QDialogButtonBox::Cancel, this))
    , m_export(m_buttons->addButton(tr("Export"), QDialogButtonBox::AcceptRole))
{
    m_raw->setChecked(raw && m_dequantized);
    if (m_dequantized)
        m_raw->setText(tr("Raw codes (the stored %1 tensor) instead of dequantized float32")
                           .arg(toQString(dtypeName(tensor.info->dtype))));
    m_plane = plane ? *plane : defaultPlane();
    const auto &shape = shownShape();
    // The title and every label bound the name: a hostile one must not lay out unbounded.
    setWindowTitle(tr("Export %1").arg(shownName(tensor.info->name)));

    auto *form = new QFormLayout;
    form->setFieldGrowthPolicy(QFormLayout::AllNonFixedFieldsGrow);
    auto *name = new QLabel(tr("%1  %2 %3")
                                .arg(shownName(tensor.info->name), toQString(dtypeName(tensor.info->dtype)),
                                    shapeText(tensor.info->shape))
            + (m_dequantized
                    ? tr(" — %1 %2-bit weight %3")
                          .arg(toQString(std::string(quantSchemeName(m_dequantized->weight->scheme))))
                          .arg(m_dequantized->weight->bits)
                          .arg(shapeText(m_dequantized->weight->logicalShape))
                    : QString()),
        this);
    name->setSizePolicy(QSizePolicy::Ignored, QSizePolicy::Preferred);
    name->setToolTip(shownName(tensor.info->name, 400));
    form->addRow(tr("Tensor:"), name);

    m_format->addItem(tr("NumPy array (.npy)"), QVariant::fromValue(int(Format::Npy)));
    m_format->addItem(tr("CSV text (.csv, 1-D or 2-D)"), QVariant::fromValue(int(Format::Csv)));
    form->addRow(tr("Format:"), m_format);
    const bool narrow = npyEncoding(tensor.info->dtype, false).converted;
    m_raw->setEnabled(narrow || m_dequantized);
    m_raw->setToolTip(m_dequantized
            ? tr("A quantized weight: by default its dequantized values as float32 in its "
                 "logical shape; raw codes write the stored tensor")
            : narrow ? tr("NumPy has no %1: by default each value is written as the float32 "
                          "it equals; raw codes keep the bit patterns as unsigned integers")
                           .arg(toQString(dtypeName(tensor.info->dtype)))
                     : tr("NumPy has this dtype: its bytes are written as they are"));
    form->addRow(QString(), m_raw);
    m_conversion->setWordWrap(true);
    form->addRow(QString(), m_conversion);

    auto *scopes = new QVBoxLayout;
    m_planeScope->setText(tr("Plane shown in Values: %1").arg(planeDescription()));
    m_planeScope->setVisible(shape.size() >= 3); // fewer axes: the plane is the whole tensor
    scopes->addWidget(m_planeScope);
    scopes->addWidget(m_wholeScope);
    auto *sliceRow = new QHBoxLayout;
    sliceRow->addWidget(m_sliceScope);
    m_slice->setPlaceholderText(tr("NumPy style, e.g. 0, :, 5:10"));
    m_slice->setMaxLength(int(kMaxSliceSpecLength));
    sliceRow->addWidget(m_slice, 1);
    scopes->addLayout(sliceRow);
    form->addRow(tr("Values:"), scopes);
    (shape.size() >= 3 ? m_planeScope : m_wholeScope)->setChecked(true);

    m_csvLimit->setRange(1, int(kMaxCsvElements));
    m_csvLimit->setSingleStep(100000);
    m_csvLimit->setGroupSeparatorShown(true);
    m_csvLimit->setSuffix(tr(" values"));
    m_csvLimit->setValue(kDefaultCsvLimit);
    m_csvLimit->setToolTip(tr("Larger CSV exports are refused, never cut short (.npy has no limit)"));
    form->addRow(tr("CSV limit:"), m_csvLimit);

    auto *targetRow = new QHBoxLayout;
    auto *browse = new QToolButton(this);
    browse->setText(tr("Browse…"));
    targetRow->addWidget(m_target, 1);
    targetRow->addWidget(browse);
    form->addRow(tr("Save as:"), targetRow);
    const QString folder = QFileInfo(toQString(m_checkpoint->path())).absolutePath();
    m_target->setText(QDir(folder).filePath(fileStem(tensor.info->name) + u".npy"_s));

    auto *layout = new QVBoxLayout(this);
    layout->addLayout(form);
    m_message->setWordWrap(true);
    m_message->setTextInteractionFlags(Qt::TextSelectableByMouse);
    layout->addWidget(m_message);
    m_progress->setRange(0, 1000);
    m_progress->hide();
    layout->addWidget(m_progress);
    layout->addWidget(m_buttons);
    setMinimumWidth(480);

    connect(m_format, &QComboBox::currentIndexChanged, this, [this] {
        // Keep the extension in step with the format.
        QString path = m_target->text();
        const QString suffix = m_format->currentIndex() == int(Format::Csv) ? u".csv"_s : u".npy"_s;
        if (path.endsWith(u".npy"_s) || path.endsWith(u".csv"_s))
            path.chop(4);
        m_target->setText(path + suffix);
        updateChoices();
    });
    for (QAbstractButton *button :
        { static_cast<QAbstractButton *>(m_raw), static_cast<QAbstractButton *>(m_planeScope),
            static_cast<QAbstractButton *>(m_wholeScope), static_cast<QAbstractButton *>(m_sliceScope) })
        connect(button, &QAbstractButton::toggled, this, &ExportDialog::updateChoices);
    connect(m_slice, &QLineEdit::textEdited, this, [this] {
        m_sliceScope->setChecked(true);
        updateChoices();
    });
    connect(m_csvLimit, &QSpinBox::valueChanged, this, &ExportDialog::updateChoices);
    connect(browse, &QToolButton::clicked, this, &ExportDialog::browse);
    connect(m_export, &QPushButton::clicked, this, &ExportDialog::startExport);
    connect(m_buttons, &QDialogButtonBox::rejected, this, &ExportDialog::reject);
    connect(&m_job, &JobTrackerBase::progressChanged, m_progress, &QProgressBar::setValue);
    updateChoices();
}

ExportDialog::~ExportDialog() = default;

bool ExportDialog::dequantizing() const
{
    return m_dequantized && !m_raw->isChecked();
}

const std::vector<std::uint64_t> &ExportDialog::shownShape() const
{
    return dequantizing() ? m_dequantized->weight->logicalShape : m_tensor.info->shape;
}

StridedView ExportDialog::defaultPlane() const
{
    const auto &shape = shownShape();
    std::string error;
    return shape.size() < 3
        ? wholeView(shape)
        : planeView(shape, shape.size() - 2, shape.size() - 1, {}, error).value_or(wholeView(shape));
}

QString ExportDialog::planeDescription() const
{
    // The plane as a NumPy index: fixed axes by their index, shown axes as ':'.
    const auto &shape = shownShape();
    const std::vector<std::uint64_t> fixed = unravelIndex(m_plane.base, shape);
    QStringList parts;
    for (std::size_t k = 0; k < shape.size(); ++k) {
        bool shown = false;
        for (const ViewAxis &axis : m_plane.axes)
            shown = shown || axis.sourceAxis == k;
        parts << (shown ? u":"_s : QString::number(fixed[k]));
    }
    QString text = u"[%1]"_s.arg(parts.join(u", "_s));
    if (m_plane.axes.size() == 2 && m_plane.axes[0].sourceAxis > m_plane.axes[1].sourceAxis)
        text += tr(" transposed");
    return text;
}

std::optional<StridedView> ExportDialog::chosenView(QString &why) const
{
    std::optional<StridedView> view;
    if (m_planeScope->isChecked()) {
        view = m_plane;
    } else if (m_wholeScope->isChecked()) {
        view = wholeView(shownShape());
    } else {
        std::string error;
        view = parseSliceSpec(m_slice->text().toStdString(), shownShape(), error);
        if (!view) {
            why = tr("The slice is not valid: %1").arg(toQString(error));
            return std::nullopt;
        }
    }
    if (m_format->currentIndex() == int(Format::Csv)) {
        if (view->axes.size() > 2) {
            why = tr("CSV holds a 1-D or 2-D slice; this one has %1 axes: export the plane or a slice, "
                     "or choose .npy")
                      .arg(view->axes.size());
            return std::nullopt;
        }
        if (view->elementCount() > std::uint64_t(m_csvLimit->value())) {
            why = tr("This slice has %1 values, more than the CSV limit of %2: raise the limit (at most %3) "
                     "or choose .npy. Nothing is cut short.")
                      .arg(countText(view->elementCount()), countText(std::uint64_t(m_csvLimit->value())),
                          countText(kMaxCsvElements));
            return std::nullopt;
        }
    }
    return view;
}

void ExportDialog::updateChoices()
{
    const bool csv = m_format->currentIndex() == int(Format::Csv);
    m_raw->setEnabled(m_dequantized || (!csv && npyEncoding(m_tensor.info->dtype, false).converted));
    m_csvLimit->setEnabled(csv);
    if (m_dequantized) {
        // The scopes name the shape of the reading chosen: the plane the Values pane showed when it
        // showed this reading, else the default plane of that shape.
        const bool raw = m_raw->isChecked();
        m_plane = m_givenPlane && raw == m_givenRaw ? *m_givenPlane : defaultPlane();
        const auto &shape = shownShape();
        m_wholeScope->setText(tr("Whole %1 %2").arg(raw ? tr("tensor") : tr("weight"), shapeText(shape)));
        m_planeScope->setText(tr("Plane shown in Values: %1").arg(planeDescription()));
        m_planeScope->setVisible(shape.size() >= 3);
        if (shape.size() < 3 && m_planeScope->isChecked())
            m_wholeScope->setChecked(true);
    }
    m_conversion->setText(conversionText());
    m_conversion->setVisible(!m_conversion->text().isEmpty());
    QString why;
    const auto view = chosenView(why);
    m_message->setText(view ? tr("%1 values").arg(countText(view->elementCount())) : why);
}

QString ExportDialog::conversionText() const
{
    const DType dtype = m_tensor.info->dtype;
    if (m_format->currentIndex() == int(Format::Csv))
        return dequantizing()
            ? tr("Dequantized values as text: float32 in the shortest form that reads back exactly, nan/inf "
                 "by name (tick Raw codes for the stored codes).")
            : tr("Values as text: floats in the shortest form that reads back exactly, nan/inf by name.");
    if (dequantizing()) {
        const QuantizedWeight &w = *m_dequantized->weight;
        return tr("The %1 %2-bit codes of %3 are dequantized and written as float32 values in the weight's "
                  "logical shape %4 (tick Raw codes for the stored tensor).")
            .arg(toQString(std::string(quantSchemeName(w.scheme))))
            .arg(w.bits)
            .arg(shownName(m_tensor.info->name), shapeText(w.logicalShape));
    }
    const NpyEncoding encoding = npyEncoding(dtype, m_raw->isEnabled() && m_raw->isChecked());
    if (encoding.note.empty())
        return {};
    QString text = toQString(encoding.note);
    if (encoding.converted)
        text += tr(": every %1 value is exactly a float32, NaN and ±Inf included.")
                    .arg(toQString(dtypeName(dtype)));
    else
        text += tr(": numpy sees integers; decode them yourself.");
    return text;
}

void ExportDialog::browse()
{
    const bool csv = m_format->currentIndex() == int(Format::Csv);
    const QString path = QFileDialog::getSaveFileName(this, tr("Export To"), m_target->text(),
        csv ? tr("CSV files (*.csv);;All files (*)") : tr("NumPy arrays (*.npy);;All files (*)"));
    if (!path.isEmpty())
        m_target->setText(path);
}

bool ExportDialog::startExport()
{
    if (m_job.isRunning())
        return false;
    QString why;
    const auto view = chosenView(why);
    if (!view) {
        fail(why);
        return false;
    }
    const QString target = m_target->text().trimmed();
    if (target.isEmpty()) {
        fail(tr("Choose a file to write"));
        return false;
    }
    const auto file = m_checkpoint->shards()[m_tensor.shard];
    const TensorInfo *info = m_tensor.info;
    const bool csv = m_format->currentIndex() == int(Format::Csv);
    const bool raw = m_raw->isEnabled() && m_raw->isChecked();
    const std::string out = QFile::encodeName(target).toStdString();
    // The Dequantizer points into the mappings, which the checkpoint held by the job keeps alive.
    const std::shared_ptr<const Dequantizer> dequantizer
        = dequantizing() ? m_dequantized->dequantizer : nullptr;
    m_message->setText(tr("Writing %1 values…").arg(countText(view->elementCount())));
    m_progress->setValue(0);
    m_progress->show();
    m_export->setEnabled(false);
    m_job.start(
        [checkpoint = m_checkpoint, dequantizer, file, info, view = *view, csv, raw, out](
            std::stop_token stop, const JobProgress &progress) {
            std::string error;
            const ScannedPages pages(file->mapping(), file->tensorBytes(*info)); // cached before stays
            const bool ok = dequantizer
                ? (csv ? exportDequantizedCsv(out, file->path(), *dequantizer, view, error, stop, progress)
                       : exportDequantizedNpy(out, file->path(), *dequantizer, view, error, stop, progress))
                : csv ? exportCsv(
                      out, file->path(), info->dtype, file->tensorBytes(*info), view, error, stop, progress)
                      : exportNpy(out, file->path(), info->dtype, file->tensorBytes(*info), view, raw, error,
                          stop, progress);
            pages.release();
            return std::optional<std::string>(ok ? std::string() : (error.empty() ? "failed" : error));
        },
        [this, target](std::optional<std::string> error) {
            m_progress->hide();
            m_export->setEnabled(true);
            if (!error || !error->empty()) {
                fail(error ? toQString(*error) : tr("The export failed"));
                return;
            }
            emit exported(target);
            accept();
        });
    return true;
}

void ExportDialog::fail(const QString &reason)
{
    m_message->setText(reason);
    emit failed(reason);
}

void ExportDialog::reject()
{
    // Cancel stops a running write (core removes its temporary file); a second Cancel closes.
    if (m_job.isRunning()) {
        m_job.cancel();
        m_progress->hide();
        m_export->setEnabled(true);
        m_message->setText(tr("Cancelled: nothing was written"));
        return;
    }
    QDialog::reject();
}

void ExportDialog::setFormat(Format format)
{
    m_format->setCurrentIndex(int(format));
}

void ExportDialog::setScope(Scope scope)
{
    (scope == Scope::Plane          ? m_planeScope
            : scope == Scope::Whole ? m_wholeScope
                                    : m_sliceScope)
        ->setChecked(true);
}

void ExportDialog::setSliceText(const QString &spec)
{
    m_slice->setText(spec);
    updateChoices();
}

void ExportDialog::setRaw(bool raw)
{
    m_raw->setChecked(raw);
}

void ExportDialog::setCsvLimit(int values)
{
    m_csvLimit->setValue(values);
}

void ExportDialog::setTarget(const QString &path)
{
    m_target->setText(path);
}

QString ExportDialog::target() const
{
    return m_target->text();
}

QString ExportDialog::messageText() const
{
    return m_message->text();
}

} // namespace stb
