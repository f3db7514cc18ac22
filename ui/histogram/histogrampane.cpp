#include "ui/histogram/histogrampane.h"

#include "core/audit/auditreport.h"
#include "core/quant/quantanalyzer.h"
#include "core/stats/tensoranalyzer.h"
#include "core/text/textformat.h"
#include "ui/charts/histogramchart.h"
#include "ui/common/panetitle.h"
#include "ui/common/qtformat.h"
#include "ui/common/statuscolors.h"

#include <QCheckBox>
#include <QComboBox>
#include <QFontDatabase>
#include <QGridLayout>
#include <QLabel>
#include <QLocale>
#include <QMenu>
#include <QProgressBar>
#include <QSettings>
#include <QStackedWidget>
#include <QToolButton>

#include <cmath>

using namespace Qt::StringLiterals;

namespace stb {

namespace {

const auto kBinsKey = u"histogram/bins"_s;
const auto kLogKey = u"histogram/log"_s;
constexpr unsigned kBinChoices[] = { 10, 32, 64, 128, 256, 1000 };
constexpr unsigned kDefaultBins = 64;

QString valueText(double value)
{
    return std::isnan(value) ? QObject::tr("— (no finite values)") : QLocale().toString(value, 'g', 7);
}

} // namespace

HistogramPane::HistogramPane(std::shared_ptr<const Checkpoint> checkpoint, QWidget *parent)
    : QWidget(parent)
    , m_checkpoint(std::move(checkpoint))
    , m_title(new PaneTitle(this))
    , m_bins(new QComboBox(this))
    , m_log(new QCheckBox(tr("Log scale"), this))
    , m_raw(new QCheckBox(tr("Raw codes"), this))
    , m_locate(new QToolButton(this))
    , m_progress(new QProgressBar(this))
    , m_stack(new QStackedWidget(this))
    , m_message(new QLabel(this))
    , m_chart(new HistogramChart(this))
    , m_note(new QLabel(this))
{
    auto *layout = new QVBoxLayout(this);
    layout->setContentsMargins(8, 6, 8, 6);
    auto *top = new QHBoxLayout;
    top->addWidget(m_title, 1);
    top->addWidget(m_progress);
    top->addWidget(new QLabel(tr("Bins:"), this));
    top->addWidget(m_bins);
    top->addWidget(m_log);
    top->addWidget(m_raw);
    // The same entries as the Values pane's Locate, which does the scan and shows the element.
    m_locate->setText(tr("Locate"));
    m_locate->setToolTip(
        tr("Show the first NaN or Inf, the minimum, the maximum or the largest |x| in Values"));
    m_locate->setPopupMode(QToolButton::InstantPopup);
    auto *locateMenu = new QMenu(m_locate);
    addLocateActions(locateMenu, [this](LocateTarget target) { emit locateRequested(target); });
    m_locate->setMenu(locateMenu);
    m_locate->setEnabled(false);
    top->addWidget(m_locate);
    layout->addLayout(top);
    layout->addWidget(m_stack, 1);

    m_progress->setRange(0, 1000);
    m_progress->setMaximumWidth(160);
    m_progress->setTextVisible(false);
    m_progress->hide();
    for (unsigned bins : kBinChoices)
        m_bins->addItem(QLocale().toString(bins), bins);
    m_bins->setToolTip(tr("Number of equal-width bins between the smallest and largest finite value (at most: "
                          "integers and floats of 16 bits or fewer get no more bins than values in their range)"));
    m_log->setToolTip(tr("Logarithmic counts: rare values (outliers, stray NaN neighbours) stay visible"));
    m_raw->setToolTip(tr("A quantized weight's stored codes instead of its dequantized values"));
    m_raw->hide();
    const QSettings settings;
    const int saved = m_bins->findData(settings.value(kBinsKey, kDefaultBins).toUInt());
    m_bins->setCurrentIndex(saved >= 0 ? saved : m_bins->findData(kDefaultBins));
    m_log->setChecked(settings.value(kLogKey, false).toBool());
    m_chart->setLogarithmic(m_log->isChecked());

    m_message->setAlignment(Qt::AlignCenter);
    m_message->setWordWrap(true);
    m_message->setMargin(24);
    m_message->setEnabled(false);
    m_stack->addWidget(m_message);
    // Statistics under the chart, not beside it: the pane shares the window with the tree, and
    // a narrow chart elides its axis labels.
    auto *content = new QWidget(m_stack);
    auto *column = new QVBoxLayout(content);
    column->setContentsMargins(0, 0, 0, 0);
    column->addWidget(m_chart, 1);
    column->addWidget(m_note);
    column->addWidget(createStatistics());
    m_note->setWordWrap(true);
    m_note->hide();
    m_stack->addWidget(content);
    showMessage(tr("Select a tensor to see the histogram of its values and their statistics."));

    connect(m_bins, &QComboBox::currentIndexChanged, this, [this] {
        QSettings().setValue(kBinsKey, bins());
        refresh();
    });
    connect(m_log, &QCheckBox::toggled, this, [this](bool on) {
        QSettings().setValue(kLogKey, on);
        m_chart->setLogarithmic(on);
    });
    connect(m_raw, &QCheckBox::toggled, this, [this] { refresh(); });
    connect(&m_job, &JobTrackerBase::progressChanged, m_progress, &QProgressBar::setValue);
}

QWidget *HistogramPane::createStatistics()
{
    auto *panel = new QWidget(this);
    auto *grid = new QGridLayout(panel);
    grid->setContentsMargins(4, 4, 4, 0);
    grid->setHorizontalSpacing(10);
    grid->setVerticalSpacing(2);
    const QString labels[StatisticCount] = { tr("Elements"), tr("NaN"), tr("+Inf"), tr("−Inf"), tr("Zeros"),
        tr("Min"), tr("Max"), tr("Mean"), tr("Std dev"), tr("|max|"), tr("Outliers (>6σ)"), tr("Digest") };
    // Counts in the left pair of columns, values in the right one, the digest across the bottom.
    const int rows = Min;
    for (int i = 0; i < StatisticCount; ++i) {
        m_values[i] = new QLabel(panel);
        m_values[i]->setTextFormat(Qt::PlainText);
        m_values[i]->setTextInteractionFlags(Qt::TextSelectableByMouse);
        auto *label = new QLabel(labels[i], panel);
        label->setAlignment(Qt::AlignRight | Qt::AlignVCenter);
        label->setForegroundRole(QPalette::PlaceholderText);
        const int row = i == Outliers ? rows : i == Digest ? rows + 1 : i < Min ? i : i - Min;
        const int col = i < Min || i == Outliers || i == Digest ? 0 : 2;
        grid->addWidget(label, row, col);
        grid->addWidget(m_values[i], row, col + 1, 1, i == Digest ? 3 : 1);
    }
    grid->setColumnStretch(1, 1);
    grid->setColumnStretch(3, 1);
    m_values[Digest]->setFont(QFontDatabase::systemFont(QFontDatabase::FixedFont));
    m_values[Digest]->setToolTip(tr("XXH3-128 of the tensor's bytes: equal digests, equal bytes"));
    m_values[Std]->setToolTip(tr("Population standard deviation of the finite values"));
    return panel;
}

void HistogramPane::showTensor(const Checkpoint::Tensor *tensor)
{
    m_tensor = tensor;
    const SafetensorsFile *file = tensor ? m_checkpoint->fileOf(*tensor) : nullptr;
    m_locate->setEnabled(file && file->fullyReadable(*tensor->info));
    refresh();
}

void HistogramPane::setQuantView(std::shared_ptr<const QuantView> view)
{
    m_quant = std::move(view);
    refresh();
}

void HistogramPane::setStale(bool stale)
{
    m_stale = stale;
    if (stale && isComputing())
        refresh(); // stops the scan and says why
}

void HistogramPane::setBins(unsigned bins)
{
    if (const int index = m_bins->findData(bins); index >= 0)
        m_bins->setCurrentIndex(index);
}

unsigned HistogramPane::bins() const
{
    return m_bins->currentData().toUInt();
}

void HistogramPane::setLogarithmic(bool logarithmic)
{
    m_log->setChecked(logarithmic);
}

bool HistogramPane::isLogarithmic() const
{
    return m_log->isChecked();
}

void HistogramPane::refresh()
{
    cancelJob();
    m_resume = false;
    m_shown = false;
    if (!m_tensor) {
        m_title->setTitle({});
        showMessage(tr("Select a tensor to see the histogram of its values and their statistics."));
        return;
    }
    const TensorInfo &info = *m_tensor->info;
    // A recognised, decodable quantized weight: its dequantized values unless raw codes are asked for.
    m_dequantizer.reset();
    const auto tensorIndex = static_cast<std::size_t>(m_tensor - m_checkpoint->tensors().data());
    const std::ptrdiff_t weight = m_quant ? m_quant->weightOfCodes(tensorIndex) : -1;
    std::string reason;
    const auto dequantizer = weight >= 0
        ? Dequantizer::make(*m_checkpoint, m_quant->weights()[static_cast<std::size_t>(weight)], reason)
        : std::nullopt;
    m_raw->setVisible(dequantizer.has_value());
    QString title = shownName(info.name);
    if (dequantizer) {
        const QuantizedWeight &w = m_quant->weights()[static_cast<std::size_t>(weight)];
        m_scheme = tr("%1 %2-bit").arg(toQString(std::string(quantSchemeName(w.scheme)))).arg(w.bits);
        if (!m_raw->isChecked()) {
            m_dequantizer = dequantizer;
            title = tr("%1 — dequantized %2 %3")
                        .arg(shownName(w.name), m_scheme, toQString(formatShape(w.logicalShape)));
        } else {
            title = tr("%1 — raw %2 codes").arg(shownName(info.name), m_scheme);
        }
    }
    m_title->setTitle(title);
    if (const TensorAnalysis *cached = m_cache.find(&info, bins(), showsDequantized())) {
        showAnalysis(*cached);
        return;
    }
    const SafetensorsFile *file = m_checkpoint->fileOf(*m_tensor);
    if (!file || !file->fullyReadable(info)) {
        showMessage(tr("The bytes of %1 are not all in the file (it is broken or cut short), so its values "
                       "cannot be scanned.")
                        .arg(shownName(info.name)));
        return;
    }
    if (m_stale) {
        showMessage(tr("The file changed on disk after it was opened: reload it to scan this tensor."));
        return;
    }
    startJob();
}

void HistogramPane::startJob()
{
    // The file is held by its shared_ptr, so its header (and `info`) and its mapping outlive the
    // scan even if the document closes meanwhile.
    const auto file = m_checkpoint->shards()[m_tensor->shard];
    const TensorInfo *info = m_tensor->info;
    const unsigned bins = this->bins();
    m_progress->setValue(0);
    m_progress->show();
    showMessage(tr("Scanning %1…").arg(shownName(info->name)));
    const auto done
        = [this, info, bins, dequantized = showsDequantized()](std::optional<TensorAnalysis> result) {
              m_progress->hide();
              if (!result) {
                  showMessage(tr("The bytes of %1 could not be read: the file changed on disk.")
                                  .arg(shownName(info->name)));
                  return;
              }
              m_cache.insert(info, bins, *result, dequantized);
              showAnalysis(*result);
          };
    if (m_dequantizer) {
        // The Dequantizer points into the mappings, which the checkpoint it holds keeps alive.
        m_job.start(
            [checkpoint = m_checkpoint, dequantizer = *m_dequantizer, bins](
                std::stop_token stop, const JobProgress &progress) {
                return analyzeQuantized(dequantizer, AnalysisOptions { bins, 0 }, std::move(stop), progress);
            },
            done);
        return;
    }
    m_job.start(
        [file, info, bins](std::stop_token stop, const JobProgress &progress) {
            return analyzeTensor(info->dtype, file->tensorBytes(*info), info->elementCount().value_or(0),
                AnalysisOptions { bins, 0 }, stop, progress);
        },
        done);
}

void HistogramPane::cancelJob()
{
    if (!isComputing())
        return;
    m_job.cancel(); // whatever the running scan still reports is dropped
    m_progress->hide();
}

void HistogramPane::showAnalysis(const TensorAnalysis &analysis)
{
    m_analysis = analysis;
    m_shown = true;
    const TensorStats &s = analysis.stats;
    const QLocale locale;
    m_values[Elements]->setText(tr("%1 (%2 finite)").arg(countText(s.count), countText(s.finite)));
    const std::uint64_t counts[] = { s.nan, s.posInf, s.negInf, s.zeros };
    for (int i = NaNs; i <= Zeros; ++i) {
        const std::uint64_t n = counts[i - NaNs];
        const bool bad = n && i != Zeros;
        m_values[i]->setText(countText(n));
        m_values[i]->setStyleSheet(
            bad ? u"color: %1; font-weight: bold;"_s.arg(toneText(Tone::Bad, palette()).name()) : QString());
    }
    const double values[] = { s.min, s.max, s.mean, s.std, s.absMax };
    for (int i = Min; i <= AbsMax; ++i) {
        m_values[i]->setText(valueText(values[i - Min]));
        m_values[i]->setToolTip(toQString(formatValue(values[i - Min]))); // every digit, for copying
    }
    m_values[Outliers]->setText(countText(analysis.outliers));
    m_values[Digest]->setText(analysis.digest ? toQString(analysis.digest->hex()) : QString());

    m_chart->setHistogram(analysis.histogram);
    if (analysis.histogram.empty()) {
        m_note->setText(s.finite ? tr("All %1 finite values equal %2: there is no spread to draw.")
                                       .arg(countText(s.finite), valueText(s.min))
                                 : tr("No finite values: there is nothing to draw."));
        m_note->show();
    } else if (const auto drawn = analysis.histogram.counts.size(); drawn < bins()) {
        // Integers and narrow floats are binned on their grid (core/stats/binlayout.h).
        m_note->setText(tr("%1 of %2 bins: each bin spans whole steps of these values' grid, so none falls "
                           "between two values and stays empty.")
                            .arg(countText(drawn), countText(bins())));
        m_note->show();
    } else {
        m_note->hide();
    }
    m_stack->setCurrentIndex(1);
    emit analysisShown();
}

void HistogramPane::showMessage(const QString &text)
{
    m_message->setText(text);
    m_stack->setCurrentIndex(0);
    m_chart->clear();
}

QString HistogramPane::statisticText(Statistic statistic) const
{
    return m_shown ? m_values[statistic]->text() : QString();
}

QString HistogramPane::messageText() const
{
    return m_stack->currentIndex() == 0 ? m_message->text()
        : !m_note->isHidden()           ? m_note->text()
                                        : QString();
}

void HistogramPane::showEvent(QShowEvent *event)
{
    QWidget::showEvent(event);
    if (m_resume)
        refresh();
}

// Hidden mid-scan (another tab, another document): stop reading and pick up again when shown.
void HistogramPane::hideEvent(QHideEvent *event)
{
    QWidget::hideEvent(event);
    if (isComputing()) {
        cancelJob();
        m_resume = true;
    }
}

} // namespace stb
