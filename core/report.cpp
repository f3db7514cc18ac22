#include "core/report.h"

#include <algorithm>
#include <map>

namespace stb {

namespace {

Json nullIfEmpty(const std::string &s) { return s.empty() ? Json() : Json(s); }

Json warningsJson(const std::vector<Diagnostic> &diagnostics)
{
    auto list = Json::array();
    for (const auto &d : diagnostics) {
        if (!d.isError())
            list.push_back(diagnosticJson(d, false));
    }
    return list;
}

Json metadataJson(const Header &header)
{
    if (!header.hasMetadata)
        return nullptr;
    auto object = Json::object();
    for (const auto &[key, value] : header.metadata)
        object[key] = value;
    return object;
}

} // namespace

Json diagnosticJson(const Diagnostic &d, bool withReference)
{
    Json j = {{"rule", d.rule}};
    if (withReference)
        j["reference"] = nullIfEmpty(d.reference);
    j["message"] = d.message;
    j["offset"] = d.offset;
    j["tensor"] = nullIfEmpty(d.tensor);
    return j;
}

std::uint64_t parameterCount(const TensorInfo &tensor) { return tensor.elementCount().value_or(UINT64_MAX); }

Json fileCheckJson(const SafetensorsFile &file)
{
    const Header &h = file.header();
    Json j;
    j["file"] = file.path();
    j["valid"] = h.valid();
    j["error"] = h.verdict() ? diagnosticJson(*h.verdict()) : Json();
    j["warnings"] = warningsJson(h.diagnostics);
    return j;
}

Json checkpointCheckJson(const Checkpoint &checkpoint)
{
    if (!checkpoint.isSharded())
        return fileCheckJson(*checkpoint.shards().front());
    Json j;
    j["file"] = checkpoint.path();
    j["valid"] = checkpoint.valid();
    const Diagnostic *error = checkpoint.firstError();
    j["error"] = error ? diagnosticJson(*error) : Json();
    auto warnings = warningsJson(checkpoint.diagnostics());
    auto problems = Json::array();
    for (const auto &d : checkpoint.diagnostics()) {
        if (d.isError())
            problems.push_back(diagnosticJson(d));
    }
    j["warnings"] = warnings;
    j["index_problems"] = problems;
    auto shards = Json::array();
    for (std::size_t i = 0; i < checkpoint.shards().size(); ++i) {
        const auto &s = checkpoint.shards()[i];
        if (s)
            shards.push_back(fileCheckJson(*s));
        else
            shards.push_back({{"file", checkpoint.shardNames()[i]}, {"valid", false}, {"error", nullptr},
                              {"warnings", Json::array()}, {"readable", false}});
    }
    j["shards"] = shards;
    return j;
}

Json infoJson(const Checkpoint &checkpoint)
{
    Json j = checkpointCheckJson(checkpoint);
    std::map<std::string_view, std::uint64_t> byDtype;
    std::uint64_t parameters = 0;
    auto tensors = Json::array();

    // File order: shard by shard, each by offset.
    std::vector<const Checkpoint::Tensor *> order;
    order.reserve(checkpoint.tensors().size());
    for (const auto &t : checkpoint.tensors())
        order.push_back(&t);
    std::stable_sort(order.begin(), order.end(), [](const auto *a, const auto *b) {
        if (a->shard != b->shard)
            return a->shard < b->shard;
        if (a->info->begin != b->info->begin)
            return a->info->begin < b->info->begin;
        if (a->info->end != b->info->end)
            return a->info->end < b->info->end;
        return a->info->name < b->info->name;
    });
    for (const auto *t : order) {
        const TensorInfo &info = *t->info;
        const Header &header = checkpoint.fileOf(*t)->header();
        const std::uint64_t count = parameterCount(info);
        parameters = (parameters > UINT64_MAX - count) ? UINT64_MAX : parameters + count;
        auto &slot = byDtype[dtypeName(info.dtype)];
        slot = (slot > UINT64_MAX - count) ? UINT64_MAX : slot + count;
        Json row = {{"name", info.name},
                              {"dtype", dtypeName(info.dtype)},
                              {"shape", info.shape},
                              {"data_offsets", {info.begin, info.end}},
                              {"file_offset", header.fileOffset(info)},
                              {"parameters", count}};
        if (checkpoint.isSharded())
            row["shard"] = checkpoint.shardNames()[t->shard];
        tensors.push_back(std::move(row));
    }
    if (checkpoint.isSharded()) {
        j["file_size"] = checkpoint.totalFileBytes();
        j["header_length"] = nullptr;
        j["data_start"] = nullptr;
        Json metadata = Json::object();
        for (const auto &[key, text] : checkpoint.index()->metadata)
        {
            auto value = Json::parse(text, nullptr, false);
            metadata[key] = value.is_discarded() ? Json(text) : value;
        }
        j["metadata"] = metadata;
    } else {
        const Header &h = checkpoint.shards().front()->header();
        j["file_size"] = h.fileSize;
        j["header_length"] = h.headerLength;
        j["data_start"] = h.dataStart;
        j["metadata"] = metadataJson(h);
    }
    j["tensor_count"] = checkpoint.tensors().size();
    j["parameter_count"] = parameters;
    Json dtypes = Json::object();
    for (const auto &[name, count] : byDtype)
        dtypes[std::string(name)] = count;
    j["parameters_by_dtype"] = dtypes;
    j["tensors"] = std::move(tensors);
    return j;
}

} // namespace stb
