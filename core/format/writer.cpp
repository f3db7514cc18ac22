#include "core/format/writer.h"

#include "core/format/tensorinfo.h"
#include "core/text/textformat.h"

#include <algorithm>
#include <cstdio>
#include <memory>
#include <set>

namespace stb {

std::string jsonQuote(std::string_view text)
{
    static const char hex[] = "0123456789abcdef";
    std::string out;
    out.reserve(text.size() + 2);
    out += '"';
    for (char c : text) {
        const auto u = static_cast<unsigned char>(c);
        switch (c) {
        case '"': out += "\\\""; break;
        case '\\': out += "\\\\"; break;
        case '\b': out += "\\b"; break;
        case '\f': out += "\\f"; break;
        case '\n': out += "\\n"; break;
        case '\r': out += "\\r"; break;
        case '\t': out += "\\t"; break;
        default:
            if (u < 0x20) {
                out += "\\u00";
                out += hex[u >> 4];
                out += hex[u & 15];
            } else {
                out += c;
            }
        }
    }
    out += '"';
    return out;
}

bool planFile(std::span<const TensorSpec> specs, const Metadata &metadata, FileLayout &layout,
              std::string &error)
{
    layout = {};
    layout.order.resize(specs.size());
    for (std::size_t i = 0; i < specs.size(); ++i)
        layout.order[i] = i;
    std::sort(layout.order.begin(), layout.order.end(), [&](std::size_t a, std::size_t b) {
        if (specs[a].dtype != specs[b].dtype)
            return specs[a].dtype > specs[b].dtype;
        return specs[a].name < specs[b].name;
    });
    std::set<std::string_view> names;
    for (const auto &s : specs) {
        if (!names.insert(s.name).second) {
            error = "tensor name written twice: " + s.name;
            return false;
        }
    }

    std::string json = "{";
    if (!metadata.empty()) {
        auto sorted = metadata;
        std::sort(sorted.begin(), sorted.end());
        json += "\"__metadata__\":{";
        for (std::size_t i = 0; i < sorted.size(); ++i) {
            if (i)
                json += ',';
            json += jsonQuote(sorted[i].first) + ':' + jsonQuote(sorted[i].second);
        }
        json += '}';
    }
    layout.begins.assign(specs.size(), 0);
    std::uint64_t offset = 0;
    bool first = metadata.empty();
    for (std::size_t idx : layout.order) {
        const TensorSpec &s = specs[idx];
        TensorInfo info;
        info.dtype = s.dtype;
        info.shape = s.shape;
        const auto bytes = info.expectedBytes();
        if (!bytes) {
            error = "tensor " + s.name + ": shape and dtype do not make a whole number of bytes";
            return false;
        }
        layout.begins[idx] = offset;
        if (!first)
            json += ',';
        first = false;
        json += jsonQuote(s.name);
        json += ":{\"dtype\":\"";
        json += dtypeName(s.dtype);
        json += "\",\"shape\":[";
        for (std::size_t d = 0; d < s.shape.size(); ++d) {
            if (d)
                json += ',';
            json += std::to_string(s.shape[d]);
        }
        json += "],\"data_offsets\":[";
        json += std::to_string(offset) + ',' + std::to_string(offset + *bytes) + "]}";
        offset += *bytes;
    }
    json += '}';
    json.append((8 - json.size() % 8) % 8, ' ');
    layout.dataSize = offset;
    layout.prefix.resize(8 + json.size());
    std::uint64_t n = json.size();
    for (int i = 0; i < 8; ++i)
        layout.prefix[static_cast<std::size_t>(i)] = static_cast<std::byte>((n >> (8 * i)) & 0xFF);
    std::copy(reinterpret_cast<const std::byte *>(json.data()),
              reinterpret_cast<const std::byte *>(json.data()) + json.size(), layout.prefix.begin() + 8);
    return true;
}

bool writeFile(const std::string &path, std::span<const TensorSpec> specs, const Metadata &metadata,
               const std::function<void(std::size_t, std::span<std::byte>)> &fill, std::string &error)
{
    FileLayout layout;
    if (!planFile(specs, metadata, layout, error))
        return false;
    std::unique_ptr<FILE, int (*)(FILE *)> file(std::fopen(path.c_str(), "wb"), &std::fclose);
    if (!file) {
        error = "cannot create " + printable(path);
        return false;
    }
    bool ok = std::fwrite(layout.prefix.data(), 1, layout.prefix.size(), file.get()) == layout.prefix.size();
    std::vector<std::byte> buffer;
    for (std::size_t idx : layout.order) {
        TensorInfo info;
        info.dtype = specs[idx].dtype;
        info.shape = specs[idx].shape;
        buffer.resize(static_cast<std::size_t>(*info.expectedBytes()));
        fill(idx, buffer);
        if (!buffer.empty()) // an empty vector's data() may be null, which fwrite must not get
            ok = ok && std::fwrite(buffer.data(), 1, buffer.size(), file.get()) == buffer.size();
    }
    if (std::fclose(file.release()) != 0 || !ok) {
        error = "cannot write " + printable(path);
        return false;
    }
    return true;
}

bool writeFile(const std::string &path, std::span<const TensorSpec> specs,
               std::span<const std::vector<std::byte>> data, const Metadata &metadata, std::string &error)
{
    for (std::size_t i = 0; i < specs.size(); ++i) {
        TensorInfo info;
        info.dtype = specs[i].dtype;
        info.shape = specs[i].shape;
        if (i >= data.size() || info.expectedBytes() != data[i].size()) {
            error = "tensor " + specs[i].name + ": data size does not match dtype and shape";
            return false;
        }
    }
    return writeFile(
        path, specs, metadata,
        [&](std::size_t i, std::span<std::byte> out) { std::copy(data[i].begin(), data[i].end(), out.begin()); },
        error);
}

std::vector<std::byte> serialize(std::span<const TensorSpec> specs,
                                 std::span<const std::vector<std::byte>> data, const Metadata &metadata)
{
    FileLayout layout;
    std::string error;
    if (!planFile(specs, metadata, layout, error))
        return {};
    std::vector<std::byte> out = layout.prefix;
    for (std::size_t idx : layout.order)
        out.insert(out.end(), data[idx].begin(), data[idx].end());
    return out;
}

} // namespace stb
