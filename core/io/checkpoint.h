#pragma once

#include "core/format/diagnostic.h"
#include "core/concurrency/parallel.h"
#include "core/io/safetensorsfile.h"
#include "core/format/shardindex.h"

#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

namespace stb {

// One model: a single .safetensors file, or the shards of a `*.safetensors.index.json` seen as
// one list of tensors. Immutable and shared (background jobs hold it).
class Checkpoint {
public:
    struct Tensor {
        const TensorInfo *info; // owned by shards()[shard]'s header
        std::size_t shard;
    };
    // A tensor the index lists (by the weight_map entry that counts) that no opened shard holds:
    // its shard is missing, refused or unreadable, or does not have it. It has no entry in
    // tensors(), and no dtype or shape; reports name it as unreadable rather than forget it.
    struct AbsentTensor {
        std::string_view name; // in index()->names
        std::uint32_t indexShard = 0; // into index()->shards
    };

    // nullptr and a reason when the path cannot be read at all. An index is recognised by its
    // name ending in ".index.json"; its shards are opened from the index's folder. Broken shards
    // and inconsistencies between index and shards do not stop opening: see diagnostics().
    // `progress` counts shards opened (an index only; a single file is one step).
    static std::shared_ptr<const Checkpoint> open(
        const std::string &path, std::string &error, const ProgressFn &progress = {});
    static bool isIndexPath(const std::string &path);

    const std::string &path() const { return m_path; }
    bool isSharded() const { return m_sharded; }
    // One entry per shard file (one for a single file); nullptr where a shard could not be read.
    const std::vector<std::shared_ptr<const SafetensorsFile>> &shards() const { return m_shards; }
    const std::vector<std::string> &shardNames() const { return m_shardNames; }
    // Per shard: the resolved path when the shard is a symbolic link (followed, wherever it
    // points), else empty.
    const std::vector<std::string> &shardTargets() const { return m_shardTargets; }
    const std::vector<Tensor> &tensors() const { return m_tensors; }
    // Index problems and index-vs-shard inconsistencies (empty for a single file). Each shard's
    // own header diagnostics are in shards()[i]->header().
    const DiagnosticList &diagnostics() const { return m_diagnostics; }
    const ShardIndex *index() const { return m_sharded ? &m_index : nullptr; }

    // Valid when every shard is valid and the index agrees with the shards.
    bool valid() const;
    // The first problem: an index problem, else the first invalid shard's verdict; nullptr if valid.
    const Diagnostic *firstError() const;
    // Index problems (those past the 10,000 kept included) plus invalid or unreadable shards.
    std::size_t problemCount() const;
    std::uint64_t totalTensorBytes() const;
    std::uint64_t totalFileBytes() const;
    const SafetensorsFile *fileOf(const Tensor &tensor) const { return m_shards[tensor.shard].get(); }
    // Listed by the index, held by no shard; in index file order. Empty for a single file.
    const std::vector<AbsentTensor> &absentTensors() const { return m_absent; }
    // Why an absent tensor cannot be read: "shard \"x\" cannot be read: No such file or
    // directory", "shard name \"../x\" is refused", "shard \"x\" does not hold it".
    std::string absentReason(const AbsentTensor &tensor) const;

private:
    Checkpoint() = default;
    // Name -> shard that holds it.
    using TensorLocations = std::unordered_map<std::string_view, std::size_t>;
    // The weight_map entries that count (the last of each name), as entry numbers sorted by
    // name, and per entry whether it is one of them: 4 bytes and a bit an entry, where a hash
    // map of names cost some 60.
    struct IndexListing {
        std::vector<std::uint32_t> byName;
        std::vector<bool> counts;
    };

    void openShards(const std::string &folder, const ProgressFn &progress);
    // The index against its shards (not to be confused with the value audit, core/audit):
    // tensors in two shards, listed twice, missing, in the wrong shard, unlisted; total_size.
    void checkIndexConsistency();
    TensorLocations collectShardTensors(); // also fills m_tensors
    IndexListing readWeightMap();
    void checkListedTensors(const IndexListing &listed, const TensorLocations &foundIn);
    void checkUnlistedTensors(const IndexListing &listed);
    void checkTotalSize();

    std::string m_path;
    bool m_sharded = false;
    ShardIndex m_index;
    std::vector<std::shared_ptr<const SafetensorsFile>> m_shards;
    std::vector<std::string> m_shardNames;
    std::vector<std::string> m_shardTargets;
    std::vector<std::size_t> m_shardOfIndexShard; // ShardIndex::shards -> m_shards (npos: refused)
    std::vector<std::string> m_shardErrors; // per ShardIndex::shards: why it could not be opened
    std::vector<Tensor> m_tensors;
    std::vector<AbsentTensor> m_absent;
    DiagnosticList m_diagnostics;
};

} // namespace stb
