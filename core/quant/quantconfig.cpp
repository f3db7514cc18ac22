#include "core/quant/quantconfig.h"

#include <nlohmann/json.hpp>

#include <cstdio>
#include <filesystem>
#include <limits>
#include <memory>

namespace stb {

namespace {

constexpr std::size_t kMaxConfigBytes = 4u << 20;
constexpr int kMaxDepth = 64;

} // namespace

bool jsonShallowEnough(std::string_view text, int maxDepth)
{
    int depth = 0;
    bool inString = false;
    for (std::size_t i = 0; i < text.size(); ++i) {
        const char c = text[i];
        if (inString) {
            if (c == '\\')
                ++i;
            else if (c == '"')
                inString = false;
        } else if (c == '"') {
            inString = true;
        } else if (c == '{' || c == '[') {
            if (++depth > maxDepth)
                return false;
        } else if (c == '}' || c == ']') {
            --depth;
        }
    }
    return true;
}

namespace {

// Every value is type-checked before it is read: nlohmann's get<>() and value() throw on a
// mistyped field ("load_in_8bit": "U32", found by fuzz_quantconfig), which would end the program.

// An integer field that fits T, else nullopt (-1 for "bits" does not become 4,294,967,295).
template<typename T> std::optional<T> numberAt(const nlohmann::json &object, const char *key)
{
    const auto it = object.find(key);
    if (it == object.end() || !it->is_number_integer())
        return std::nullopt;
    if (it->is_number_unsigned()) {
        const auto value = it->get<std::uint64_t>();
        if (value > static_cast<std::uint64_t>(std::numeric_limits<T>::max()))
            return std::nullopt;
        return static_cast<T>(value);
    }
    const auto value = it->get<std::int64_t>();
    if (value < static_cast<std::int64_t>(std::numeric_limits<T>::min()))
        return std::nullopt;
    return static_cast<T>(value);
}

bool trueAt(const nlohmann::json &object, const char *key)
{
    const auto it = object.find(key);
    return it != object.end() && it->is_boolean() && it->get<bool>();
}

std::string stringAt(const nlohmann::json &object, const char *key)
{
    const auto it = object.find(key);
    return it != object.end() && it->is_string() ? it->get<std::string>() : std::string();
}

} // namespace

std::optional<QuantConfig> parseQuantConfig(std::string_view json, std::string &error)
{
    error.clear();
    if (!jsonShallowEnough(json, kMaxDepth)) {
        error = "config.json nests deeper than " + std::to_string(kMaxDepth) + " levels";
        return std::nullopt;
    }
    const auto root = nlohmann::json::parse(json.begin(), json.end(), nullptr, false);
    if (root.is_discarded()) {
        error = "config.json is not valid JSON";
        return std::nullopt;
    }
    if (!root.is_object() || !root.contains("quantization_config")
        || !root["quantization_config"].is_object())
        return std::nullopt;
    const auto &q = root["quantization_config"];
    QuantConfig config;
    config.method = stringAt(q, "quant_method");
    config.bits = numberAt<unsigned>(q, "bits");
    config.groupSize = numberAt<std::int64_t>(q, "group_size");
    std::string checkpointFormat = stringAt(q, "checkpoint_format");
    if (checkpointFormat.empty())
        checkpointFormat = stringAt(q, "format");
    config.gptqStoredZeros = checkpointFormat == "gptq_v2" || checkpointFormat == "gptq_p";
    config.gptqPlanar = checkpointFormat == "gptq_p";
    config.format = stringAt(q, "format");
    config.bnb4bitType = stringAt(q, "bnb_4bit_quant_type");
    config.bnb8bit = trueAt(q, "load_in_8bit");
    if (const auto it = q.find("weight_block_size"); it != q.end() && it->is_array() && it->size() == 2
        && (*it)[0].is_number_unsigned() && (*it)[1].is_number_unsigned()) {
        config.blockSize
            = std::array<std::uint64_t, 2> { (*it)[0].get<std::uint64_t>(), (*it)[1].get<std::uint64_t>() };
    }
    // compressed-tensors: the first config group's weight arguments.
    if (const auto groups = q.find("config_groups"); groups != q.end() && groups->is_object()) {
        for (const auto &[name, group] : groups->items()) {
            if (!group.is_object() || !group.contains("weights") || !group["weights"].is_object())
                continue;
            const auto &w = group["weights"];
            if (!config.bits)
                config.bits = numberAt<unsigned>(w, "num_bits");
            if (!config.groupSize)
                config.groupSize = numberAt<std::int64_t>(w, "group_size");
            if (!config.blockSize) {
                if (const auto it = w.find("block_structure"); it != w.end() && it->is_array()
                    && it->size() == 2 && (*it)[0].is_number_unsigned() && (*it)[1].is_number_unsigned()) {
                    config.blockSize = std::array<std::uint64_t, 2> { (*it)[0].get<std::uint64_t>(),
                        (*it)[1].get<std::uint64_t>() };
                }
            }
            break;
        }
    }
    return config;
}

std::optional<QuantConfig> loadQuantConfig(const std::string &checkpointPath, std::string &error)
{
    error.clear();
    namespace fs = std::filesystem;
    std::error_code ec;
    const fs::path config = fs::path(checkpointPath).parent_path() / "config.json";
    if (!fs::is_regular_file(config, ec))
        return std::nullopt;
    const auto size = fs::file_size(config, ec);
    if (ec || size > kMaxConfigBytes) {
        error = "config.json is larger than 4 MiB: not read";
        return std::nullopt;
    }
    std::unique_ptr<std::FILE, int (*)(std::FILE *)> file(std::fopen(config.c_str(), "rb"), &std::fclose);
    if (!file) {
        error = "config.json cannot be opened";
        return std::nullopt;
    }
    std::string text(static_cast<std::size_t>(size), '\0');
    text.resize(std::fread(text.data(), 1, text.size(), file.get()));
    return parseQuantConfig(text, error);
}

} // namespace stb
