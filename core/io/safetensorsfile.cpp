#include "core/io/safetensorsfile.h"

#include "core/io/headerbytes.h"

#include <memory>

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
    Header header;
    if (!parseHeaderInPlace(*mapping, error, [&](auto bytes) { header = parseHeader(bytes, mapping->size()); }))
        return nullptr;
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
