#include "core/io/readability.h"

#include "core/text/textformat.h"

#include <algorithm>
#include <cstdint>

namespace stb {

std::string unreadableReason(const Checkpoint &checkpoint, const Checkpoint::Tensor &tensor)
{
    const SafetensorsFile *file = checkpoint.fileOf(tensor);
    if (!file)
        return "its shard cannot be read";
    const TensorInfo &info = *tensor.info;
    if (file->fullyReadable(info))
        return {};
    const auto expected = info.expectedBytes();
    if (!info.elementCount() || !expected)
        return "its shape and dtype call for more bytes than a file can hold";
    if (info.end < info.begin)
        return "its data_offsets end before they begin";
    if (*expected != info.byteLength())
        return "its shape and dtype call for " + formatCount(*expected) + " bytes but data_offsets span "
            + formatCount(info.byteLength());
    const Header &header = file->header();
    // A broken header may claim offsets past 2^64: saturate rather than wrap.
    const std::uint64_t begin
        = info.begin > UINT64_MAX - header.dataStart ? UINT64_MAX : header.fileOffset(info);
    const std::uint64_t length = info.byteLength();
    const std::uint64_t end = begin > UINT64_MAX - length ? UINT64_MAX : begin + length;
    const std::string where = checkpoint.isSharded()
        ? "shard " + quotedName(checkpoint.shardNames()[tensor.shard]) + " ("
        : std::string("the file (file is ");
    return "bytes " + formatCount(std::max(begin, header.fileSize)) + "\u2013" + formatCount(end)
        + " lie past the end of " + where + formatCount(header.fileSize) + " bytes)";
}

} // namespace stb
