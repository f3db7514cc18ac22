#include "ui/compare/comparedetailspane.h"

#include "core/compare/comparereport.h"

#include "ui/common/longtext.h"
#include "ui/common/qtformat.h"
#include "ui/common/statuscolors.h"
#include "ui/compare/comparehistogrampane.h"
#include "ui/compare/comparemodel.h"
#include "ui/document/overviewpane.h"

#include <QCoreApplication>
#include <QHBoxLayout>
#include <QLocale>
#include <QSplitter>
#include <QTimer>
#include <QTabWidget>
#include <QTextBrowser>
#include <QUrl>

#include <algorithm>

using namespace Qt::StringLiterals;

namespace stb {

namespace {

QString row(const QString &label, const QString &value)
{
    return u"<tr><td style='padding-right:16px; color:%1'>%2</td><td>%3</td></tr>"_s.arg(
        toneText(Tone::Muted).name(), label, value);
}

QString number(double value)
{
    return std::isnan(value) ? QCoreApplication::translate("stb::CompareDetailsPane", "undefined")
                             : QLocale().toString(value, 'g', 6);
}

QString swatch(PairStatus status, bool withinTolerance = false)
{
    return CompareModel::swatchHtml(status, withinTolerance) + u"&nbsp;"_s;
}

QString sideText(const Checkpoint::Tensor *tensor)
{
    if (!tensor)
        return toneHtml(Tone::Muted, u"<i>—</i>"_s);
    return u"%1 %2"_s.arg(toQString(dtypeName(tensor->info->dtype)), shapeText(tensor->info->shape));
}

// One side's header totals below a tree node, in the form OverviewPane shows for a group.
void sideTotals(const CompareResult &result, int node, bool sideA, TensorTreeModel::Totals &totals,
    std::vector<TensorTreeModel::DTypeTotals> &byDType)
{
    std::vector<TensorTreeModel::Totals> perDType(kDTypeCount);
    result.tree.names.forEachLeaf(node, [&](std::size_t p) {
        const TensorPair &pair = result.comparison.pairs[p];
        const Checkpoint::Tensor *tensor = sideA ? pair.a : pair.b;
        if (!tensor)
            return;
        auto &d = perDType[static_cast<std::size_t>(tensor->info->dtype)];
        ++d.tensors;
        d.parameters += tensor->info->elementCount().value_or(0);
        d.bytes += tensor->info->byteLength();
        d.dtypeMask |= 1u << static_cast<unsigned>(tensor->info->dtype);
    });
    for (std::size_t i = 0; i < kDTypeCount; ++i) {
        if (!perDType[i].tensors)
            continue;
        totals.tensors += perDType[i].tensors;
        totals.parameters += perDType[i].parameters;
        totals.bytes += perDType[i].bytes;
        totals.dtypeMask |= perDType[i].dtypeMask;
        byDType.push_back({ static_cast<DType>(i), perDType[i] });
    }
    std::stable_sort(byDType.begin(), byDType.end(),
        [](const auto &a, const auto &b) { return a.totals.bytes > b.totals.bytes; });
}

} // namespace

CompareDetailsPane::CompareDetailsPane(QWidget *parent)
    : QWidget(parent)
    , m_metrics(new QTextBrowser(this))
    , m_tabs(new QTabWidget(this))
    , m_histograms(new CompareHistogramPane(m_tabs))
    , m_overviewA(new OverviewPane(this))
    , m_overviewB(new OverviewPane(this))
{
    auto *layout = new QVBoxLayout(this);
    layout->setContentsMargins(0, 0, 0, 0);
    auto *splitter = m_splitter = new QSplitter(Qt::Vertical, this);
    layout->addWidget(splitter);
    m_metrics->setFrameShape(QFrame::NoFrame);
    m_metrics->setOpenLinks(false);
    connect(m_metrics, &QTextBrowser::anchorClicked, this, &CompareDetailsPane::showLongValue);
    splitter->addWidget(m_metrics);
    // Both overviews side by side: the same facts in the same rows, so a change stands out.
    auto *overviews = new QWidget(m_tabs);
    auto *row = new QHBoxLayout(overviews);
    row->setContentsMargins(0, 0, 0, 0);
    row->addWidget(m_overviewA);
    row->addWidget(m_overviewB);
    m_tabs->setDocumentMode(true);
    m_tabs->addTab(m_histograms, tr("Histograms"));
    m_tabs->addTab(overviews, tr("Overview A | B"));
    splitter->addWidget(m_tabs);
    splitter->setStretchFactor(1, 1);
    splitter->setSizes({ 260, 440 });
}

void CompareDetailsPane::setSideBySide(bool sideBySide)
{
    const Qt::Orientation wanted = sideBySide ? Qt::Horizontal : Qt::Vertical;
    if (m_splitter->orientation() == wanted)
        return;
    m_splitter->setOrientation(wanted);
    // Shared out once the splitter has its new length (the window's layout runs after this):
    // the text a little less than the charts.
    QTimer::singleShot(0, this, [this] {
        const int length
            = m_splitter->orientation() == Qt::Horizontal ? m_splitter->width() : m_splitter->height();
        m_splitter->setSizes({ length * 2 / 5, length - length * 2 / 5 });
    });
}

bool CompareDetailsPane::isSideBySide() const
{
    return m_splitter->orientation() == Qt::Horizontal;
}

QString CompareDetailsPane::multiIndexText(std::uint64_t flat, const std::vector<std::uint64_t> &shape)
{
    QStringList parts;
    for (auto it = shape.rbegin(); it != shape.rend(); ++it) {
        const std::uint64_t extent = *it ? *it : 1;
        parts.prepend(countText(flat % extent));
        flat /= extent;
    }
    return u"[%1]"_s.arg(parts.join(u", "_s));
}

void CompareDetailsPane::showPair(const std::shared_ptr<const CompareResult> &result, std::size_t index)
{
    const TensorPair &pair = result->comparison.pairs[index];
    const bool tolerable = result->withinTolerance(pair);
    QString html = u"<h3>%1</h3><p>%2<b>%3</b>%4</p><table cellspacing='0' cellpadding='2'>"_s.arg(
        shownName(pair.name, 400).toHtmlEscaped(), swatch(pair.status, tolerable),
        CompareModel::statusLabel(pair.status), tolerable ? tr(", within tolerance") : QString());
    html += row(tr("A"), sideText(pair.a)) + row(tr("B"), sideText(pair.b));
    if (!pair.readable) // which side, and why: the byte range past the end, the missing shard
        html += row(QString(),
            toneHtml(
                Tone::Bad, toQString(unreadableSidesText(*result->a, *result->b, pair)).toHtmlEscaped()));
    if (const auto &m = pair.metrics) {
        const auto &shape = pair.a->info->shape;
        const std::uint64_t total = pair.a->info->elementCount().value_or(0);
        QString largest;
        if (!m->compared)
            largest = tr("undefined (no element finite on both sides)");
        else if (m->maxAbsDiff > 0)
            largest = tr("%1 at %2 (element %3)")
                          .arg(number(m->maxAbsDiff), multiIndexText(m->argmax, shape), countText(m->argmax));
        else // nothing differs among the finite values: no place to point at
            largest = tr("0 (equal wherever both are finite)");
        html += row(tr("Max |a − b|"), largest);
        html += row(tr("Mean |a − b|"), number(m->meanAbsDiff));
        html += row(tr("Relative L2 ‖a − b‖ / ‖a‖"), number(m->relL2));
        html += row(tr("Cosine similarity"), number(m->cosine));
        html += row(tr("Elements different"),
            tr("%1 of %2 (%3 %)")
                .arg(countText(m->different), countText(total),
                    QLocale().toString(total ? 100.0 * double(m->different) / double(total) : 0.0, 'f', 2)));
        if (result->options.tolerances)
            html += row(tr("Out of tolerance"),
                tr("%1 (|a − b| > %2 + %3 · |b|)")
                    .arg(countText(m->outOfTolerance), number(result->options.atol),
                        number(result->options.rtol)));
        html += row(tr("NaN"), tr("A %1 · B %2").arg(countText(m->nanA), countText(m->nanB)));
        html += row(tr("±Inf"), tr("A %1 · B %2").arg(countText(m->infA), countText(m->infB)));
    } else if (pair.status == PairStatus::Identical && pair.readable) {
        html += row(tr("Differences"), tr("none: the bytes are identical"));
    } else if (!pair.readable) {
        html += row(tr("Differences"), tr("unknown: the values cannot be read"));
    } else if (pair.status == PairStatus::OnlyInA || pair.status == PairStatus::OnlyInB) {
        html += row(tr("Differences"), tr("no counterpart to compare with"));
    } else {
        html += row(tr("Differences"), tr("the shapes differ: values are not compared element by element"));
    }
    html += u"</table>"_s;
    m_metrics->setHtml(html);

    if (pair.a)
        m_overviewA->showTensor(*result->a, *pair.a);
    else if (pair.absentA >= 0)
        m_overviewA->showGroup(tr("A: listed by the index, held by no shard"), {}, {});
    else
        m_overviewA->showGroup(tr("A: no tensor of this name"), {}, {});
    if (pair.b)
        m_overviewB->showTensor(*result->b, *pair.b);
    else if (pair.absentB >= 0)
        m_overviewB->showGroup(tr("B: listed by the index, held by no shard"), {}, {});
    else
        m_overviewB->showGroup(tr("B: no tensor of this name"), {}, {});
    m_histograms->showPair(result, index);
}

void CompareDetailsPane::showCounts(
    const QString &title, const CompareTree::Counts &counts, const QString &extra)
{
    QString html = u"<h3>%1</h3><p>%2</p><table cellspacing='0' cellpadding='2'>"_s.arg(
        title.toHtmlEscaped(), CompareModel::countsText(counts));
    for (std::size_t s = 0; s < kPairStatusCount; ++s) {
        const auto status = static_cast<PairStatus>(s);
        html += row(swatch(status) + CompareModel::statusLabel(status), countText(counts[s]));
        if (status == PairStatus::Changed && counts[CompareTree::kWithinTolerance])
            html += row(swatch(status, true) + tr("within tolerance"),
                countText(counts[CompareTree::kWithinTolerance]));
    }
    m_metrics->setHtml(html + u"</table>"_s + extra);
    m_histograms->clear(tr("Select a tensor to see its values."));
}

void CompareDetailsPane::showGroup(const CompareResult &result, int node)
{
    const QString title = node > 0 ? toQString(result.tree.path(node)) : tr("whole model");
    for (const bool sideA : { true, false }) {
        TensorTreeModel::Totals totals;
        std::vector<TensorTreeModel::DTypeTotals> byDType;
        sideTotals(result, node, sideA, totals, byDType);
        (sideA ? m_overviewA : m_overviewB)
            ->showGroup((sideA ? u"A: "_s : u"B: "_s) + title, totals, byDType);
    }
    if (node > 0)
        showCounts(title, result.tree.countsOf(node), {});
}

void CompareDetailsPane::showWhole(const std::shared_ptr<const CompareResult> &result)
{
    m_wholeResult = result;
    m_longValues.clear();
    // A value of megabytes laid out as rich text froze the window: its start, and a link to all.
    const auto value = [this](const std::string &key, const std::string &text) {
        QString shown = elidedText(text).toHtmlEscaped();
        if (isElided(text)) {
            shown += u" <a href='whole:%1'>%2</a>"_s.arg(m_longValues.size()).arg(tr("show all"));
            m_longValues.emplace_back(elidedText(key, 200), text);
        }
        return shown;
    };
    const MetadataDiff &m = result->comparison.metadata;
    QString extra = u"<h4>%1</h4>"_s.arg(tr("__metadata__"));
    if (m.added.empty() && m.removed.empty() && m.changed.empty())
        extra += tr("<p>No differences.</p>");
    extra += u"<table cellspacing='0' cellpadding='2'>"_s;
    for (const auto &[key, text] : m.added)
        extra += row(tr("added"), u"<code>%1</code>: %2"_s.arg(elidedText(key).toHtmlEscaped(), value(key, text)));
    for (const auto &[key, text] : m.removed)
        extra += row(tr("removed"), u"<code>%1</code>: %2"_s.arg(elidedText(key).toHtmlEscaped(), value(key, text)));
    for (const auto &[key, values] : m.changed)
        extra += row(tr("changed"),
            u"<code>%1</code>: %2 → %3"_s.arg(
                elidedText(key).toHtmlEscaped(), value(key, values.first), value(key, values.second)));
    showGroup(*result, 0);
    showCounts(tr("Whole comparison"), result->tree.countsOf(NameTree::kRoot), extra + u"</table>"_s);
}

void CompareDetailsPane::showLongValue(const QUrl &link)
{
    bool ok = false;
    const qsizetype index = link.toString().section(u':', 1).toLongLong(&ok);
    if (ok && link.scheme() == u"whole"_s && index >= 0 && static_cast<std::size_t>(index) < m_longValues.size())
        showFullText(this, m_longValues[static_cast<std::size_t>(index)].first,
            m_longValues[static_cast<std::size_t>(index)].second);
}

void CompareDetailsPane::showMessage(const QString &text)
{
    m_metrics->setHtml(u"<p>%1</p>"_s.arg(text.toHtmlEscaped()));
    m_histograms->clear(QString());
}

QString CompareDetailsPane::metricsText() const
{
    return m_metrics->toPlainText();
}

} // namespace stb
