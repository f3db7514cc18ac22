#pragma once

#include "core/format/diagnostic.h"

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace stb {

// The `model.safetensors.index.json` of a sharded checkpoint (a transformers convention):
// {"metadata": {"total_size": BYTES, ...}, "weight_map": {tensor: shard file name}}.
struct ShardIndex {
    // One weight_map entry. Its tensor name lives in `names` and its shard name in `shards`, so
    // an index of millions of entries costs 24 bytes an entry plus the names' bytes, not two
    // strings (and two allocations) an entry.
    struct Entry {
        std::uint64_t offset = 0;    // byte offset of the entry in the index file
        std::uint64_t nameStart = 0; // the tensor name: names[nameStart, nameStart + nameLength)
        std::uint32_t nameLength = 0;
        std::uint32_t shard = 0; // index into shards
    };
    std::vector<Entry> weightMap;                              // in file order, repeats kept
    std::string names;                                         // every entry's tensor name, end to end
    std::vector<std::string> shards;                           // distinct shard names, first mention first
    std::vector<std::pair<std::string, std::string>> metadata; // key -> value as JSON text
    std::optional<std::uint64_t> totalSize;
    DiagnosticList diagnostics;                                // Rule::IndexJson errors

    std::string_view tensor(const Entry &entry) const
    {
        return std::string_view(names).substr(entry.nameStart, entry.nameLength);
    }
    const std::string &shard(const Entry &entry) const { return shards[entry.shard]; }
};

// Parses index JSON (pure; no I/O). Problems are Rule::IndexJson errors.
ShardIndex parseShardIndex(std::string_view json);

// True when a shard name from an index is a plain file name next to the index: not empty, no
// path separator, not "." or "..", no URL scheme, no NUL. Anything else is refused, never
// followed. Without a separator ".." can only be the whole name, so "model..safetensors" (a
// name Hugging Face tools do write) is plain.
bool isPlainShardName(std::string_view name);

} // namespace stb
