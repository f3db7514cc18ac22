#pragma once

#include "core/io/checkpoint.h"

#include <QWidget>

#include <nlohmann/json_fwd.hpp>

#include <deque>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

class QTreeWidget;
class QTreeWidgetItem;

namespace stb {

// One file's summary: size, header length, tensors, parameters by dtype, its `__metadata__`
// pairs (values that hold JSON unfold as a tree), its warnings; for a sharded model also the
// index's metadata. Values longer than kShownTextBytes show their start and how much more there
// is (a 50 MB value drawn in a row froze the window); double-clicking such a row, or its
// "Show Whole Value" action, opens the whole of it (longtext.h).
class MetadataPane : public QWidget {
    Q_OBJECT
public:
    explicit MetadataPane(QWidget *parent = nullptr);

    // Shows shard `shard` of the checkpoint (0 for a single file). Long values are kept as views
    // into `checkpoint`, which the caller keeps alive while it is shown (CheckpointView does).
    void showFile(const Checkpoint &checkpoint, std::size_t shard);
    QTreeWidget *tree() const { return m_tree; }
    // The whole text behind `item`'s value when the row shows it cut short, else nullopt.
    std::optional<std::string_view> fullValue(const QTreeWidgetItem *item) const;

protected:
    void resizeEvent(QResizeEvent *event) override;

private:
    void fitKeyColumn();
    QTreeWidgetItem *section(const QString &title);
    void addValue(QTreeWidgetItem *parent, const QString &key, const std::string &value);
    QTreeWidgetItem *addText(QTreeWidgetItem *parent, const QString &key, std::string_view value);
    void addJson(QTreeWidgetItem *parent, const QString &key, const nlohmann::json &value, int depth);
    void showWhole(QTreeWidgetItem *item);

    QTreeWidget *m_tree;
    std::vector<std::string_view> m_long; // the whole text of each row shown cut short
    std::deque<std::string> m_owned;      // texts m_long points to that the checkpoint does not hold
    int m_keysWidth = 260; // what the keys shown need
};

} // namespace stb
