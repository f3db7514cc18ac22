#include "core/io/safetensorsfile.h"

#include "core/io/busguard.h"

#include <algorithm>
#include <vector>

namespace stb {

SafetensorsFile::SafetensorsFile(std::shared_ptr<const MappedFile> mapping, Header header)
    : m_mapping(std::move(mapping))
    , m_header(std::move(header))
{
}

std::shared_ptr<const SafetensorsFile> SafetensorsFile::open(const std::string &path, std::string &error)
{
    auto mapping = MappedFile::open(path, error);
    if (!mapping)
        return nullptr;
    const std::uint64_t size = mapping->size();
    // Copy the length prefix, then the header it announces (at most the reference's limit):
    // parsing a copy keeps a file truncated under us from faulting inside the parser.
    std::vector<std::byte> prefix(static_cast<std::size_t>(std::min<std::uint64_t>(size, 8)));
    if (!guardedCopy(prefix, mapping->slice(0, prefix.size()))) {
        error = "the file changed on disk while it was being read";
        return nullptr;
    }
    if (prefix.size() == 8) {
        std::uint64_t n = 0;
        for (int i = 7; i >= 0; --i)
            n = (n << 8) | std::to_integer<std::uint64_t>(prefix[static_cast<std::size_t>(i)]);
        if (n <= kMaxHeaderLength) {
            const auto want = std::min<std::uint64_t>(size, 8 + n);
            prefix.resize(static_cast<std::size_t>(want));
            if (!guardedCopy(std::span(prefix).subspan(8), mapping->slice(8, want - 8))) {
                error = "the file changed on disk while it was being read";
                return nullptr;
            }
        }
    }
    Header header = parseHeader(prefix, size);
    return std::shared_ptr<const SafetensorsFile>(new SafetensorsFile(std::move(mapping), std::move(header)));
}

std::span<const std::byte> SafetensorsFile::tensorBytes(const TensorInfo &tensor) const
{
    if (tensor.end < tensor.begin)
        return {};
    const std::uint64_t start = m_header.dataStart + tensor.begin;
    if (start < tensor.begin) // overflow
        return {};
    return m_mapping->slice(start, tensor.end - tensor.begin);
}

bool SafetensorsFile::complete(const TensorInfo &tensor) const
{
    return tensor.end >= tensor.begin && tensorBytes(tensor).size() == tensor.end - tensor.begin;
}

bool SafetensorsFile::fullyReadable(const TensorInfo &tensor) const
{
    const auto expected = tensor.expectedBytes();
    return tensor.elementCount() && expected && *expected == tensor.byteLength() && complete(tensor);
}

} // namespace stb
