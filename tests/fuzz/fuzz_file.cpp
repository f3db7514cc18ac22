// libFuzzer entry for what the browser computes from any file once its header is parsed: the
// extent map, and the statistics of every tensor whose bytes are in the input.
#include "core/format/header.h"
#include "core/io/fileextents.h"
#include "core/stats/tensoranalyzer.h"

#include <cstddef>
#include <cstdint>
#include <span>

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t *data, std::size_t size)
{
    const auto bytes = std::as_bytes(std::span(data, size));
    const stb::Header header = stb::parseHeader(bytes);
    if (header.dataStart > header.fileSize)
        __builtin_trap();

    const auto extents = stb::fileExtents(header, bytes.first(static_cast<std::size_t>(header.dataStart)));
    for (const auto &extent : extents) {
        if (extent.end < extent.begin)
            __builtin_trap();
    }
    for (const auto &t : header.tensors) {
        const auto count = t.elementCount();
        const auto expected = t.expectedBytes();
        // Checked arithmetic: offsets near 2^64 must not wrap into "in the file".
        std::uint64_t absoluteEnd = 0;
        if (!count || !expected || t.end < t.begin || *expected != t.byteLength()
            || __builtin_add_overflow(header.dataStart, t.end, &absoluteEnd) || absoluteEnd > header.fileSize)
            continue;
        stb::AnalysisOptions options;
        options.threads = 1;
        options.bins = 7;
        const auto analysis = stb::analyzeTensor(t.dtype, bytes.subspan(header.dataStart + t.begin, *expected), *count,
                                                 options);
        if (!analysis || analysis->stats.count != *count)
            __builtin_trap();
    }
    return 0;
}
