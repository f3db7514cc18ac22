#include "ui/document/metadatapane.h"

#include "ui/common/elideatend.h"
#include "ui/common/longtext.h"
#include "ui/common/qtformat.h"

#include <QAction>
#include <QHeaderView>
#include <QTreeWidget>
#include <QVBoxLayout>

#include "core/format/jsonreader.h"

#include <nlohmann/json.hpp>

#include <algorithm>
#include <array>
#include <cstdlib>
#include <vector>

using namespace Qt::StringLiterals;

namespace stb {

namespace {

constexpr int kMaxDepth = 32; // deeper JSON is shown as text, not unfolded
constexpr qsizetype kMaxTipChars = 4000; // tooltips of huge values stay readable
// Larger JSON values are shown as text: their tree would be millions of rows.
constexpr std::size_t kMaxUnfoldBytes = 1 << 20;
constexpr int kLongTextRole = Qt::UserRole + 1; // index into m_long

QTreeWidgetItem *addItem(QTreeWidgetItem *parent, const QString &key, const QString &value)
{
    auto *item = new QTreeWidgetItem(parent, { key, value });
    item->setToolTip(0, key);
    item->setToolTip(1, value.size() > kMaxTipChars ? value.left(kMaxTipChars) + u'…' : value);
    return item;
}

} // namespace

MetadataPane::MetadataPane(QWidget *parent)
    : QWidget(parent)
    , m_tree(new QTreeWidget(this))
{
    auto *layout = new QVBoxLayout(this);
    layout->setContentsMargins(0, 0, 0, 0);
    layout->addWidget(m_tree);
    m_tree->setFrameShape(QFrame::NoFrame);
    m_tree->setHeaderLabels({ tr("Key"), tr("Value") });
    m_tree->setUniformRowHeights(true);
    m_tree->setAlternatingRowColors(true);
    m_tree->header()->setSectionResizeMode(0, QHeaderView::Interactive);
    m_tree->header()->resizeSection(0, 260);
    // A path keeps its file name in sight, a size its bytes' end; the tooltip has it all.
    m_tree->setTextElideMode(Qt::ElideMiddle);
    // Keys from their start: shard names differ early ("model-00001-of-…"), not in the middle
    // where the values (paths) are cut.
    m_tree->setItemDelegateForColumn(0, new ElideAtEndDelegate(m_tree));
    m_tree->setContextMenuPolicy(Qt::ActionsContextMenu);
    auto *whole = new QAction(tr("Show Whole Value"), m_tree);
    m_tree->addAction(whole);
    connect(whole, &QAction::triggered, this, [this] { showWhole(m_tree->currentItem()); });
    connect(m_tree, &QTreeWidget::itemActivated, this, [this](QTreeWidgetItem *item) { showWhole(item); });
    connect(m_tree, &QTreeWidget::currentItemChanged, this,
        [this, whole](QTreeWidgetItem *item) { whole->setEnabled(fullValue(item).has_value()); });
    whole->setEnabled(false);
}

std::optional<std::string_view> MetadataPane::fullValue(const QTreeWidgetItem *item) const
{
    if (!item)
        return std::nullopt;
    bool ok = false;
    const int index = item->data(1, kLongTextRole).toInt(&ok);
    if (!ok || index < 0 || static_cast<std::size_t>(index) >= m_long.size())
        return std::nullopt;
    return m_long[static_cast<std::size_t>(index)];
}

void MetadataPane::showWhole(QTreeWidgetItem *item)
{
    if (const auto text = fullValue(item))
        showFullText(this, item->text(0), *text);
}

QTreeWidgetItem *MetadataPane::addText(QTreeWidgetItem *parent, const QString &key, std::string_view value)
{
    auto *item = addItem(parent, key, elidedText(value));
    if (isElided(value)) {
        item->setData(1, kLongTextRole, static_cast<int>(m_long.size()));
        m_long.push_back(value);
    }
    return item;
}

// Unfolds objects and arrays into child items; scalars become their JSON text.
void MetadataPane::addJson(QTreeWidgetItem *parent, const QString &key, const nlohmann::json &value, int depth)
{
    if (!value.is_structured() || depth >= kMaxDepth) {
        m_owned.push_back(value.is_string() ? value.get<std::string>() : value.dump());
        addText(parent, key, m_owned.back());
        return;
    }
    const QString summary = value.is_object()
        ? u"{%1}"_s.arg(countNoun(value.size(), tr("key"), tr("keys")))
        : u"[%1]"_s.arg(countNoun(value.size(), tr("item"), tr("items")));
    auto *item = addItem(parent, key, summary);
    if (value.is_object()) {
        for (const auto &[k, v] : value.items())
            addJson(item, elidedText(k), v, depth + 1);
    } else {
        int index = 0;
        for (const auto &v : value)
            addJson(item, QString::number(index++), v, depth + 1);
    }
}

QTreeWidgetItem *MetadataPane::section(const QString &title)
{
    auto *item = new QTreeWidgetItem(m_tree, { title });
    QFont font = item->font(0);
    font.setBold(true);
    item->setFont(0, font);
    item->setFirstColumnSpanned(true);
    item->setExpanded(true);
    return item;
}

void MetadataPane::addValue(QTreeWidgetItem *parent, const QString &key, const std::string &value)
{
    // Values are strings by the format; many tools store JSON inside them (configs, quantisation).
    // Only text our depth-limited reader accepts goes to nlohmann's parser, whose DOM would
    // otherwise recurse through a value nested a million levels deep.
    if (value.size() <= kMaxUnfoldBytes && isJsonContainerText(value)) {
        const auto json = nlohmann::json::parse(value, nullptr, false);
        if (!json.is_discarded()) {
            addJson(parent, key, json, 0);
            return;
        }
    }
    addText(parent, key, value);
}

void MetadataPane::showFile(const Checkpoint &checkpoint, std::size_t shard)
{
    m_tree->clear();
    m_long.clear();
    m_owned.clear();
    const SafetensorsFile *file
        = shard < checkpoint.shards().size() ? checkpoint.shards()[shard].get() : nullptr;

    auto *fileSection = section(
        checkpoint.isSharded() ? tr("Shard %1").arg(elidedText(checkpoint.shardNames()[shard])) : tr("File"));
    if (!file) {
        addItem(fileSection, tr("Status"), tr("this shard could not be read"));
    } else {
        const Header &header = file->header();
        addText(fileSection, tr("Path"), file->path());
        // A link is followed wherever it leads (Hugging Face's cache links into blobs/): say where.
        if (shard < checkpoint.shardTargets().size() && !checkpoint.shardTargets()[shard].empty())
            addText(fileSection, tr("Resolves to"), checkpoint.shardTargets()[shard]);
        addItem(fileSection, tr("File size"),
            tr("%1 (%2 bytes)").arg(sizeText(header.fileSize), countText(header.fileSize)));
        addItem(fileSection, tr("Header length"),
            tr("%1 bytes (data starts at byte %2)")
                .arg(countText(header.headerLength), countText(header.dataStart)));
        addItem(fileSection, tr("Tensors"), countText(header.tensors.size()));
        std::array<std::uint64_t, kDTypeCount> parameters {};
        std::array<bool, kDTypeCount> present {};
        std::uint64_t total = 0;
        for (const auto &t : header.tensors) {
            const auto count = t.elementCount().value_or(0);
            parameters[static_cast<std::size_t>(t.dtype)] += count;
            present[static_cast<std::size_t>(t.dtype)] = true;
            total += count;
        }
        auto *byDType = addItem(fileSection, tr("Parameters"), countText(total));
        for (std::size_t i = 0; i < kDTypeCount; ++i) {
            if (present[i])
                addItem(byDType, toQString(dtypeName(static_cast<DType>(i))), countText(parameters[i]));
        }
        byDType->setExpanded(true);

        auto *metadata = section(u"__metadata__"_s);
        if (!header.hasMetadata)
            addItem(metadata, tr("(none)"), QString());
        for (const auto &[key, value] : header.metadata)
            addValue(metadata, elidedText(key), value);

        QList<QTreeWidgetItem *> warnings;
        for (const auto &d : header.diagnostics) {
            if (!d.isError())
                warnings << new QTreeWidgetItem(QStringList { toQString(d.id()), toQString(d.message) });
        }
        if (!warnings.isEmpty())
            section(tr("Warnings"))->addChildren(warnings);
    }

    if (const ShardIndex *index = checkpoint.index()) {
        auto *indexSection = section(tr("Index"));
        addText(indexSection, tr("Path"), checkpoint.path());
        // The whole model's shards, each with its size and tensor count.
        auto *shards = addItem(indexSection, tr("Shards"), countText(checkpoint.shards().size()));
        std::vector<std::size_t> tensors(checkpoint.shards().size(), 0);
        for (const Checkpoint::Tensor &tensor : checkpoint.tensors()) {
            if (tensor.shard < tensors.size())
                ++tensors[tensor.shard];
        }
        for (std::size_t s = 0; s < checkpoint.shards().size(); ++s) {
            const auto &file = checkpoint.shards()[s];
            addItem(shards, elidedText(checkpoint.shardNames()[s]),
                file ? tr("%1, %2").arg(
                    sizeText(file->mapping().size()), countNoun(tensors[s], tr("tensor"), tr("tensors")))
                     : tr("could not be read"));
        }
        shards->setExpanded(checkpoint.shards().size() <= 20);
        addItem(indexSection, tr("Tensors listed"), countText(index->weightMap.size()));
        for (const auto &[key, value] : index->metadata) {
            // total_size is a byte count: say so, with digit groups.
            const bool digits = !value.empty() && value.size() <= 20
                && std::all_of(value.begin(), value.end(), [](char c) { return c >= '0' && c <= '9'; });
            if (key == "total_size" && digits) {
                const std::uint64_t bytes = std::strtoull(value.c_str(), nullptr, 10);
                addItem(indexSection, elidedText(key),
                    tr("%1 (%2 bytes)").arg(sizeText(bytes), countText(bytes)));
                continue;
            }
            addValue(indexSection, elidedText(key), value); // JSON text: objects unfold, strings show bare
        }
    }
    m_keysWidth = static_cast<QAbstractItemView *>(m_tree)->sizeHintForColumn(0) + 12; // protected in QTreeView
    fitKeyColumn();
}

// The keys are mostly short words, the values paths and sizes: the key column is as wide as its
// keys but at most 2/5 of the pane (at 1024 px a fixed 260 px left "15.0 GiB (16,060,556…"; a
// shard's long name is cut in the middle instead, whole in its tooltip and at 1600 px).
void MetadataPane::fitKeyColumn()
{
    const int most = std::max(120, width() * 2 / 5);
    m_tree->header()->resizeSection(0, std::clamp(m_keysWidth, 120, most));
}

void MetadataPane::resizeEvent(QResizeEvent *event)
{
    QWidget::resizeEvent(event);
    fitKeyColumn();
}

} // namespace stb
