// libFuzzer entry for the format library alone (it links only stformat): any bytes, seen as a
// whole file, must parse without a crash, a hang, a read outside the input or unbounded memory;
// checkHeader must find what parseHeader finds; the JSON reader and the shard-index parser must
// also survive them alone.
#include "core/format/header.h"
#include "core/format/headercheck.h"
#include "core/format/jsonreader.h"
#include "core/format/shardindex.h"
#include "core/format/utf8.h"

#include <cstddef>
#include <cstdint>
#include <span>
#include <string_view>

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t *data, std::size_t size)
{
    const auto bytes = std::as_bytes(std::span(data, size));
    const stb::Header header = stb::parseHeader(bytes);
    // Invariants a viewer relies on.
    if (header.valid()) {
        for (const auto &t : header.tensors) {
            if (t.end < t.begin || header.dataStart + t.end > header.fileSize)
                __builtin_trap();
        }
    }
    if (header.dataStart > header.fileSize)
        __builtin_trap();
    // `check` reads the same header without the tensor list: it must find the same.
    const stb::HeaderCheck check = stb::checkHeader(bytes, bytes.size());
    if (check.tensorCount != header.tensors.size() || check.diagnostics.total() != header.diagnostics.total())
        __builtin_trap();
    for (std::size_t i = 0; i < header.diagnostics.size(); ++i) {
        const auto &a = header.diagnostics[i];
        const auto &b = check.diagnostics[i];
        if (a.rule != b.rule || a.message != b.message || a.offset != b.offset || a.tensor != b.tensor)
            __builtin_trap();
    }

    const std::string_view text(reinterpret_cast<const char *>(data), size);
    if (stb::findInvalidUtf8(text) == std::string_view::npos) {
        stb::JsonReader reader(text);
        if (reader.skipValue())
            reader.atEnd();
        (void)stb::parseShardIndex(text);
    }
    return 0;
}
