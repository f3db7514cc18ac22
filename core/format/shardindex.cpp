#include "core/format/shardindex.h"

#include "core/text/textformat.h"
#include "core/format/jsonreader.h"

#include <unordered_map>

namespace stb {

namespace {

Diagnostic indexError(std::string message, std::uint64_t offset, std::string_view tensor = {})
{
    return diagnose(Rule::IndexJson, std::move(message), offset, tensor);
}

} // namespace

bool isPlainShardName(std::string_view name)
{
    if (name.empty() || name == "." || name == "..")
        return false;
    if (name.find_first_of(std::string_view("/\\\0", 3)) != std::string_view::npos)
        return false;
    // Without a separator ".." can only be a whole component when it is the whole name (above):
    // "model..safetensors" is a plain name. Any ':' is refused, not only a well-formed URL
    // scheme ("file:", "https:"): no shard name that transformers writes holds one, and it
    // would mean a drive or stream on other systems.
    return name.find(':') == std::string_view::npos;
}

ShardIndex parseShardIndex(std::string_view json)
{
    ShardIndex index;
    if (const auto bad = findInvalidUtf8(json); bad != std::string_view::npos) {
        index.diagnostics.add(indexError("the index is not valid UTF-8", bad));
        return index;
    }
    JsonReader reader(json);
    if (reader.peek() != JsonReader::Kind::Object) {
        index.diagnostics.add(indexError("the index is not a JSON object", reader.position()));
        return index;
    }
    reader.beginObject();
    std::string key;
    bool sawWeightMap = false;
    while (reader.nextKey(key)) {
        if (key == "weight_map") {
            sawWeightMap = true;
            if (reader.peek() != JsonReader::Kind::Object) {
                index.diagnostics.add(indexError("weight_map is not an object", reader.position()));
                reader.skipValue();
                continue;
            }
            reader.beginObject();
            std::string tensor, shard;
            // Shard names repeat on every entry: each distinct one is stored once.
            std::unordered_map<std::string, std::uint32_t> shardNumbers;
            while (true) {
                const std::size_t pos = reader.position();
                if (!reader.nextKey(tensor))
                    break;
                if (reader.peek() != JsonReader::Kind::String) {
                    index.diagnostics.add(indexError(
                        "weight_map entry " + quotedName(tensor) + " is not a file name string",
                        reader.position(), tensor));
                    reader.skipValue();
                    continue;
                }
                reader.readString(shard);
                const auto [number, added]
                    = shardNumbers.try_emplace(shard, static_cast<std::uint32_t>(index.shards.size()));
                if (added)
                    index.shards.push_back(shard);
                index.weightMap.push_back({json.find('"', pos), index.names.size(),
                                           static_cast<std::uint32_t>(tensor.size()), number->second});
                index.names += tensor;
            }
        } else if (key == "metadata") {
            if (reader.peek() != JsonReader::Kind::Object) {
                index.diagnostics.add(indexError("metadata is not an object", reader.position()));
                reader.skipValue();
                continue;
            }
            reader.beginObject();
            std::string name;
            while (reader.nextKey(name)) {
                const auto kind = reader.peek();
                const std::size_t start = reader.position();
                if (name == "total_size" && kind == JsonReader::Kind::Number) {
                    JsonReader::Number number;
                    if (reader.readNumber(number) && number.type == JsonReader::Number::Type::Unsigned)
                        index.totalSize = number.value;
                    else if (!reader.failed())
                        index.diagnostics.add(indexError(
                            "metadata.total_size is not a non-negative integer", start));
                } else {
                    reader.skipValue();
                }
                index.metadata.emplace_back(name, std::string(json.substr(start, reader.position() - start)));
            }
        } else {
            reader.skipValue();
        }
    }
    index.weightMap.shrink_to_fit();
    index.names.shrink_to_fit();
    reader.atEnd();
    if (reader.failed())
        index.diagnostics.add(indexError("index JSON: " + reader.error(), reader.errorPosition()));
    else if (!sawWeightMap)
        index.diagnostics.add(indexError("the index has no weight_map", 0));
    return index;
}

} // namespace stb
