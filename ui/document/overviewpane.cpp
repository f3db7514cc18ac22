#include "ui/document/overviewpane.h"

#include "ui/common/qtformat.h"
#include "ui/common/statuscolors.h"

#include <QLocale>
#include <QTextBrowser>
#include <QVBoxLayout>

using namespace Qt::StringLiterals;

namespace stb {

namespace {

QString row(const QString &label, const QString &value)
{
    return u"<tr><td style='padding-right:16px; color:%1'>%2</td><td>%3</td></tr>"_s.arg(
        toneText(Tone::Muted).name(), label, value);
}

QString warning(const QString &text)
{
    return toneHtml(Tone::Bad, text.toHtmlEscaped());
}

// "8 ✓" or "64 ✗ (+16)": whether a reader can use the bytes in place at that alignment.
QString alignmentText(std::uint64_t offset, std::uint64_t alignment)
{
    const std::uint64_t rest = offset % alignment;
    if (rest == 0)
        return u"%1&nbsp;%2"_s.arg(countText(alignment), toneHtml(Tone::Good, u"&#x2713;"_s));
    return u"%1&nbsp;%2&nbsp;(+%3)"_s.arg(
        countText(alignment), toneHtml(Tone::Bad, u"&#x2717;"_s), countText(rest));
}

} // namespace

OverviewPane::OverviewPane(QWidget *parent)
    : QWidget(parent)
    , m_text(new QTextBrowser(this))
{
    auto *layout = new QVBoxLayout(this);
    layout->setContentsMargins(0, 0, 0, 0);
    layout->addWidget(m_text);
    m_text->setFrameShape(QFrame::NoFrame);
    m_text->setOpenLinks(false);
}

void OverviewPane::showTensor(
    const Checkpoint &checkpoint, const Checkpoint::Tensor &tensor, const QuantView *quant)
{
    const TensorInfo &info = *tensor.info;
    const SafetensorsFile *file = checkpoint.fileOf(tensor);
    const DTypeInfo &dtype = dtypeInfo(info.dtype);
    static const char *const kinds[]
        = { "boolean", "unsigned integer", "signed integer", "floating point", "complex" };

    QString html
        = u"<h3>%1</h3><table cellspacing='0' cellpadding='2'>"_s.arg(shownName(info.name, 400).toHtmlEscaped());
    html += row(tr("DType"),
        tr("%1 (%2 bits, %3)")
            .arg(toQString(dtype.name))
            .arg(dtype.bits)
            .arg(QString::fromLatin1(kinds[static_cast<int>(dtype.kind)])));
    html += row(tr("Shape"), shapeText(info.shape) + (info.shape.empty() ? tr(" (scalar)") : QString()));
    const auto index = static_cast<std::size_t>(&tensor - checkpoint.tensors().data());
    if (const std::ptrdiff_t w = quant ? quant->weightOfCodes(index) : -1; w >= 0)
        html += quantizedRows(checkpoint, quant->weights()[static_cast<std::size_t>(w)]);
    else if (const std::ptrdiff_t of = quant ? quant->weightOfCompanion(index) : -1; of >= 0)
        html += row(tr("Companion of"),
            toQString(quant->weights()[static_cast<std::size_t>(of)].name).toHtmlEscaped());
    const auto count = info.elementCount();
    html += row(tr("Elements"), count ? countText(*count) : warning(tr("overflows 64 bits")));
    QString bytes = tr("%1 (%2 bytes)").arg(sizeText(info.byteLength()), countText(info.byteLength()));
    const auto expected = info.expectedBytes();
    if (!expected || *expected != info.byteLength())
        bytes += u"<br>"_s
            + warning(expected ? tr("the dtype and shape call for %1 bytes").arg(countText(*expected))
                               : tr("the dtype and shape do not make a whole number of bytes"));
    html += row(tr("Bytes"), bytes);
    html += row(tr("data_offsets"), u"[%1, %2]"_s.arg(countText(info.begin), countText(info.end)));
    if (file) {
        const std::uint64_t offset = file->header().fileOffset(info);
        html += row(tr("File offset"),
            tr("%1 to %2").arg(offsetText(offset), offsetText(offset + info.byteLength())));
        QStringList alignments;
        if (dtype.bits >= 8)
            alignments << tr("element size %1").arg(alignmentText(offset, dtype.bits / 8));
        for (std::uint64_t a : { 8u, 64u, 4096u })
            alignments << alignmentText(offset, a);
        html += row(tr("Aligned to"), alignments.join(u" &nbsp;·&nbsp; "_s) + tr(" bytes"));
        if (!file->complete(info))
            html += row(QString(), warning(tr("the file ends before the tensor's last byte")));
    }
    html += row(tr("Header entry"), tr("at byte %1").arg(countText(info.headerOffset)));
    html += row(checkpoint.isSharded() ? tr("Shard") : tr("File"),
        toQString(checkpoint.shardNames()[tensor.shard]).toHtmlEscaped());
    html += u"</table>"_s;
    m_text->setHtml(html);
}

void OverviewPane::showGroup(const QString &title, const TensorTreeModel::Totals &totals,
    const std::vector<TensorTreeModel::DTypeTotals> &byDType, const QuantView *quant)
{
    QString html = u"<h3>%1</h3><table cellspacing='0' cellpadding='2'>"_s.arg(title.toHtmlEscaped());
    html += row(tr("Tensors"), countText(totals.tensors));
    html += row(tr("Parameters"), countText(totals.parameters));
    html += row(tr("Tensor data"), tr("%1 (%2 bytes)").arg(sizeText(totals.bytes), countText(totals.bytes)));
    html += u"</table><h4>%1</h4>"_s.arg(tr("By dtype"));
    html += u"<table cellspacing='0' cellpadding='3'><tr><th align='left'>%1</th><th align='right'>%2</th>"
            "<th align='right'>%3</th><th align='right'>%4</th><th align='right'>%5</th></tr>"_s.arg(
                tr("DType"), tr("Tensors"), tr("Parameters"), tr("Size"), tr("Share"));
    const QLocale locale;
    for (const auto &entry : byDType) {
        const double share = totals.bytes ? 100.0 * double(entry.totals.bytes) / double(totals.bytes) : 0.0;
        html += u"<tr><td>%1</td><td align='right'>%2</td><td align='right'>%3</td><td align='right'>%4</td>"
                "<td align='right'>%5&nbsp;%</td></tr>"_s.arg(toQString(dtypeName(entry.dtype)),
                    countText(entry.totals.tensors), countText(entry.totals.parameters),
                    sizeText(entry.totals.bytes), locale.toString(share, 'f', 1));
    }
    html += u"</table>"_s;
    if (quant && !quant->empty())
        html += quantizationSection(*quant);
    else if (quant && quant->config() && !quant->config()->method.empty())
        // config.json names a method none of whose layouts the tensors match: say so, never guess.
        html += u"<h4>%1</h4><p>%2</p>"_s.arg(tr("Quantization"),
            tr("Not recognised: config.json says quant_method “%1”, but no tensor has a layout this browser "
               "reads; values are shown as stored.")
                .arg(shownName(quant->config()->method, 40))
                .toHtmlEscaped());
    m_text->setHtml(html);
}

QString OverviewPane::quantizedRows(const Checkpoint &checkpoint, const QuantizedWeight &w)
{
    QString scheme = tr("%1, %2-bit").arg(toQString(std::string(quantSchemeName(w.scheme)))).arg(w.bits);
    if (w.groupSize)
        scheme += tr(", group %1").arg(countText(w.groupSize));
    QString html = row(tr("Quantized"), scheme.toHtmlEscaped());
    html += row(tr("Weight"), toQString(w.name).toHtmlEscaped());
    html += row(tr("Logical shape"), shapeText(w.logicalShape));
    html += row(tr("Parameters"), tr("%1 (effective)").arg(countText(w.parameters)));
    QStringList companions;
    for (const auto &c : w.companions)
        companions << toQString(checkpoint.tensors()[c.tensor].info->name).toHtmlEscaped();
    html += row(tr("Companions"), companions.join(u"<br>"_s));
    if (!w.decodable)
        html += row(QString(), warning(tr("values stay raw: %1").arg(toQString(w.note))));
    return html;
}

QString OverviewPane::quantizationSection(const QuantView &quant)
{
    const QLocale locale;
    QString html = u"<h4>%1</h4><table cellspacing='0' cellpadding='2'>"_s.arg(tr("Quantization"));
    html += row(tr("Effective parameters"),
        tr("%1 (companions excluded; %2 stored elements)")
            .arg(countText(quant.effectiveParameters()), countText(quant.rawElements())));
    html += row(tr("Bits per weight"), locale.toString(quant.bitsPerWeight().value_or(0), 'f', 2));
    html += u"</table><table cellspacing='0' cellpadding='3'><tr><th align='left'>%1</th><th "
            u"align='right'>%2</th>"
            "<th align='right'>%3</th><th align='right'>%4</th><th align='right'>%5</th><th "
            "align='right'>%6</th>"
            "<th align='right'>%7</th></tr>"_s.arg(tr("Scheme"), tr("Bits"), tr("Group"), tr("Weights"),
                tr("Parameters"), tr("Bits/weight"), tr("Share"));
    const double total = static_cast<double>(quant.effectiveParameters());
    for (const auto &s : quant.schemes()) {
        const double share = total > 0 ? 100.0 * static_cast<double>(s.parameters) / total : 0.0;
        html += u"<tr><td>%1</td><td align='right'>%2</td><td align='right'>%3</td><td align='right'>%4</td>"
                "<td align='right'>%5</td><td align='right'>%6</td><td align='right'>%7&nbsp;%</td></tr>"_s
                    .arg(toQString(std::string(quantSchemeName(s.scheme))), QString::number(s.bits),
                        s.groupSize ? countText(s.groupSize) : u"—"_s, countText(s.weights),
                        countText(s.parameters), locale.toString(s.bitsPerWeight(), 'f', 2),
                        locale.toString(share, 'f', 1));
    }
    return html + u"</table>"_s;
}

QString OverviewPane::plainText() const
{
    return m_text->toPlainText();
}

} // namespace stb
