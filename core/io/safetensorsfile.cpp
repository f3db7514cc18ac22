#include "core/io/safetensorsfile.h"

#include "core/format/prefault.h"
#include "core/io/busguard.h"

#include <algorithm>
#include <memory>
#include <vector>

#include <sys/mman.h>

namespace stb {

namespace {

// Room for the copy of a header. Not a std::vector: growing one zero-fills it, a pass over the
// whole header (11 MB for 100,000 tensors, 9% of `check`) that the copy then overwrites. A
// large one is mapped on its own and prefaulted on huge pages: touched page by page, an 11 MB
// header cost 2,700 page faults, each expensive on a virtual machine; faulted in as 4 KiB pages
// (MAP_POPULATE) the copy still took ~30 ms of CPU, on 2 MiB pages ~13 ms (alternated runs of a
// C copy of that header).
class HeaderCopy {
public:
    explicit HeaderCopy(std::size_t size)
        : m_size(size)
    {
        if (size >= kMapAbove) {
            void *p = ::mmap(nullptr, size, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
            if (p != MAP_FAILED) {
                prefaultForWriting(p, size);
                m_mapped = static_cast<std::byte *>(p);
                return;
            }
        }
        m_owned.reset(new std::byte[size]);
    }
    ~HeaderCopy()
    {
        if (m_mapped)
            ::munmap(m_mapped, m_size);
    }
    HeaderCopy(const HeaderCopy &) = delete;
    HeaderCopy &operator=(const HeaderCopy &) = delete;
    std::byte *data() const { return m_mapped ? m_mapped : m_owned.get(); }

private:
    static constexpr std::size_t kMapAbove = 1 << 20;
    std::size_t m_size;
    std::byte *m_mapped = nullptr;
    std::unique_ptr<std::byte[]> m_owned;
};

} // namespace

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
    const HeaderCopy buffer(static_cast<std::size_t>(want));
    const std::span<std::byte> prefix(buffer.data(), static_cast<std::size_t>(want));
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
