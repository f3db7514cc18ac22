// libFuzzer entry: any bytes, seen as a whole file, must parse without a crash, a hang, a read
// outside the input or unbounded memory; the JSON reader must also survive them alone.
#include "core/fileextents.h"
#include "core/header.h"
#include "core/tensoranalyzer.h"
#include "core/jsonreader.h"
#include "core/shardindex.h"

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

    // What the GUI computes from any file: the extent map, and statistics of readable tensors.
    const auto extents = stb::fileExtents(header, bytes.first(static_cast<std::size_t>(header.dataStart)));
    std::uint64_t covered = 0;
    for (const auto &extent : extents) {
        if (extent.end < extent.begin)
            __builtin_trap();
        if (extent.end <= header.fileSize)
            covered = extent.end;
    }
    (void)covered;
    for (const auto &t : header.tensors) {
        const auto count = t.elementCount();
        const auto expected = t.expectedBytes();
        if (!count || !expected || *expected != t.byteLength() || header.dataStart + t.end > header.fileSize
            || t.end < t.begin)
            continue;
        stb::AnalysisOptions options;
        options.threads = 1;
        options.bins = 7;
        const auto analysis = stb::analyzeTensor(t.dtype, bytes.subspan(header.dataStart + t.begin, *expected), *count,
                                                 options);
        if (!analysis || analysis->stats.count != *count)
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
