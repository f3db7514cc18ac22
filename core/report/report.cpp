#include "core/report/report.h"

#include "core/format/headercheck.h"

#include "core/text/escape.h"

#include "core/format/writer.h"

#include <algorithm>
#include <map>

namespace stb {

namespace {

Json nullIfEmpty(const std::string &s)
{
    return s.empty() ? Json() : Json(s);
}

Json warningsJson(const DiagnosticList &diagnostics)
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

std::string jsonText(const Json &json, int indent)
{
    std::string text = json.dump(indent, ' ', false, nlohmann::json::error_handler_t::replace);
    escapeJsonControls(text); // DEL, C1 and bidi controls too, as \uXXXX (escape.h)
    return text;
}

Json diagnosticJson(const Diagnostic &d, bool withReference)
{
    Json j = { { "rule", std::string(d.id()) } };
    if (withReference)
        j["reference"] = d.reference().empty() ? Json() : Json(std::string(d.reference()));
    j["message"] = d.message;
    j["offset"] = d.offset;
    j["tensor"] = nullIfEmpty(d.tensor);
    return j;
}

Json quantWarningJson(const QuantWarning &w)
{
    return { { "rule", std::string(w.id()) }, { "message", w.message }, { "offset", w.offset },
        { "tensor", nullIfEmpty(w.tensor) } };
}

std::uint64_t parameterCount(const TensorInfo &tensor)
{
    return tensor.elementCount().value_or(UINT64_MAX);
}

Json fileCheckJson(const SafetensorsFile &file)
{
    return fileCheckJson(file.path(), file.header().diagnostics);
}

Json fileCheckJson(const std::string &path, const DiagnosticList &diagnostics)
{
    const Diagnostic *error = firstError(diagnostics);
    Json j;
    j["file"] = path;
    j["valid"] = error == nullptr;
    j["error"] = error ? diagnosticJson(*error) : Json();
    j["warnings"] = warningsJson(diagnostics);
    j["diagnostic_count"] = diagnostics.total();
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
    j["diagnostic_count"] = checkpoint.diagnostics().total();
    auto shards = Json::array();
    for (std::size_t i = 0; i < checkpoint.shards().size(); ++i) {
        const auto &s = checkpoint.shards()[i];
        if (s) {
            shards.push_back(fileCheckJson(*s));
            if (!checkpoint.shardTargets()[i].empty())
                shards.back()["resolved_path"] = checkpoint.shardTargets()[i];
        } else
            shards.push_back({{"file", checkpoint.shardNames()[i]}, {"valid", false}, {"error", nullptr},
                              {"warnings", Json::array()}, {"diagnostic_count", 0}, {"readable", false}});
    }
    j["shards"] = shards;
    return j;
}

CheckpointSummary summarize(const Checkpoint &checkpoint)
{
    CheckpointSummary summary;
    std::map<std::string_view, std::uint64_t> byDtype;
    summary.fileOrder.reserve(checkpoint.tensors().size());
    for (const auto &t : checkpoint.tensors()) {
        summary.fileOrder.push_back(&t);
        const std::uint64_t count = parameterCount(*t.info);
        summary.parameters
            = summary.parameters > UINT64_MAX - count ? UINT64_MAX : summary.parameters + count;
        auto &slot = byDtype[dtypeName(t.info->dtype)];
        slot = slot > UINT64_MAX - count ? UINT64_MAX : slot + count;
    }
    std::stable_sort(summary.fileOrder.begin(), summary.fileOrder.end(), [](const auto *a, const auto *b) {
        if (a->shard != b->shard)
            return a->shard < b->shard;
        if (a->info->begin != b->info->begin)
            return a->info->begin < b->info->begin;
        if (a->info->end != b->info->end)
            return a->info->end < b->info->end;
        return a->info->name < b->info->name;
    });
    summary.parametersByDtype.assign(byDtype.begin(), byDtype.end());
    return summary;
}

Json quantizationJson(const Checkpoint &checkpoint, const QuantView &view)
{
    const auto group = [](std::uint64_t g) { return g ? Json(g) : Json(); };
    Json schemes = Json::array();
    for (const auto &s : view.schemes())
        schemes.push_back({ { "scheme", quantSchemeName(s.scheme) }, { "bits", s.bits },
            { "group_size", group(s.groupSize) }, { "weights", s.weights }, { "parameters", s.parameters },
            { "bytes", s.bytes } });
    Json weights = Json::array();
    for (const auto &w : view.weights()) {
        Json companions = Json::array();
        for (const auto &c : w.companions)
            companions.push_back(checkpoint.tensors()[c.tensor].info->name);
        weights.push_back({ { "name", w.name }, { "scheme", quantSchemeName(w.scheme) }, { "bits", w.bits },
            { "group_size", group(w.groupSize) }, { "logical_shape", w.logicalShape },
            { "parameters", w.parameters }, { "companions", std::move(companions) } });
    }
    const auto bits = view.empty() ? std::nullopt : view.bitsPerWeight();
    return { { "schemes", std::move(schemes) }, { "effective_parameters", view.effectiveParameters() },
        { "bits_per_weight", bits ? Json(*bits) : Json() }, { "weights", std::move(weights) } };
}

std::string infoJsonText(
    const Checkpoint &checkpoint, const CheckpointSummary &summary, const QuantView &quant)
{
    Json j = checkpointCheckJson(checkpoint);
    for (const auto &d : quant.warnings())
        j["warnings"].push_back(quantWarningJson(d));
    if (checkpoint.isSharded()) {
        j["file_size"] = checkpoint.totalFileBytes();
        j["header_length"] = nullptr;
        j["data_start"] = nullptr;
        Json metadata = Json::object();
        for (const auto &[key, text] : checkpoint.index()->metadata) {
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
    j["parameter_count"] = summary.parameters;
    Json dtypes = Json::object();
    for (const auto &[name, count] : summary.parametersByDtype)
        dtypes[std::string(name)] = count;
    j["parameters_by_dtype"] = dtypes;
    j["quantization"] = quantizationJson(checkpoint, quant);

    std::string out = jsonText(j);
    out.pop_back(); // the closing brace: the table follows
    out += ",\"tensors\":[";
    out.reserve(out.size() + summary.fileOrder.size() * 160);
    bool first = true;
    for (const auto *t : summary.fileOrder) {
        const TensorInfo &info = *t->info;
        if (!first)
            out += ',';
        first = false;
        out += "{\"name\":";
        out += escapeJsonString(info.name);
        out += ",\"dtype\":\"";
        out += dtypeName(info.dtype);
        out += "\",\"shape\":[";
        for (std::size_t d = 0; d < info.shape.size(); ++d) {
            if (d)
                out += ',';
            out += std::to_string(info.shape[d]);
        }
        out += "],\"data_offsets\":[" + std::to_string(info.begin) + ',' + std::to_string(info.end);
        out += "],\"file_offset\":" + std::to_string(checkpoint.fileOf(*t)->header().fileOffset(info));
        out += ",\"parameters\":" + std::to_string(parameterCount(info));
        if (checkpoint.isSharded()) {
            out += ",\"shard\":";
            out += jsonText(Json(checkpoint.shardNames()[t->shard]));
        }
        out += '}';
    }
    out += "]}";
    return out;
}

} // namespace stb
