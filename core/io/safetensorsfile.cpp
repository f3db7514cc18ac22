#include "core/io/safetensorsfile.h"

#include "core/io/busguard.h"

#include <algorithm>
#include <memory>
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
    std::byte lengthBytes[8] = {};
    const std::size_t lengthSize = static_cast<std::size_t>(std::min<std::uint64_t>(size, 8));
    if (!guardedCopy(std::span(lengthBytes, lengthSize), mapping->slice(0, lengthSize))) {
        error = "the file changed on disk while it was being read";
        return nullptr;
    }
    std::uint64_t want = lengthSize;
    if (lengthSize == 8) {
        std::uint64_t n = 0;
        for (int i = 7; i >= 0; --i)
            n = (n << 8) | std::to_integer<std::uint64_t>(lengthBytes[i]);
        if (n <= kMaxHeaderLength)
            want = std::min<std::uint64_t>(size, 8 + n);
    }
    // Not a std::vector: growing one zero-fills it, a pass over the whole header (11 MB for
    // 100,000 tensors, 9% of `check`) that the copy then overwrites.
    const std::unique_ptr<std::byte[]> buffer(new std::byte[static_cast<std::size_t>(want)]);
    const std::span<std::byte> prefix(buffer.get(), static_cast<std::size_t>(want));
    std::copy_n(lengthBytes, lengthSize, prefix.begin());
    if (!guardedCopy(prefix.subspan(lengthSize), mapping->slice(lengthSize, want - lengthSize))) {
        error = "the file changed on disk while it was being read";
        return nullptr;
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
