#pragma once

#include <QComboBox>

#include <cstddef>

namespace stb {

class Checkpoint;

// Which shard of a sharded model the file panes (Layout, Hex, Metadata) show: one entry per
// shard, "model-00001-of-00004.safetensors — 4.6 GiB, 98 tensors". Selecting a tensor moves it
// to that tensor's shard (setShard, no signal); picking an entry emits shardPicked.
class ShardPicker : public QComboBox {
    Q_OBJECT

public:
    explicit ShardPicker(const Checkpoint &checkpoint, QWidget *parent = nullptr);

    void setShard(std::size_t shard);
    std::size_t shard() const { return std::size_t(std::max(0, currentIndex())); }

signals:
    void shardPicked(std::size_t shard);
};

} // namespace stb
