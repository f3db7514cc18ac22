#include "core/io/headerbytes.h"

#include "core/format/header.h"
#include "core/format/prefault.h"

#include <algorithm>

#include <sys/mman.h>

namespace stb {

namespace {

// Above this, the copy is mapped on its own and prefaulted on huge pages.
constexpr std::size_t kMapAbove = 1 << 20;

} // namespace

HeaderBytes::~HeaderBytes()
{
    if (m_mapped)
        ::munmap(m_mapped, m_size);
}

// Not a std::vector: growing one zero-fills it, a pass over the whole header (11 MB for 100,000
// tensors, 9% of `check`) that the copy then overwrites. A large one is mapped on its own and
// prefaulted on huge pages: touched page by page, an 11 MB header cost 2,700 page faults, each
// expensive on a virtual machine; faulted in as 4 KiB pages (MAP_POPULATE) the copy still took
// ~30 ms of CPU, on 2 MiB pages ~13 ms (alternated runs of a C copy of that header).
void HeaderBytes::allocate(std::size_t size)
{
    m_size = size;
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

bool HeaderBytes::read(const MappedFile &file, std::string &error)
{
    const std::uint64_t size = file.size();
    // The length prefix, then the header it announces (at most the reference's limit).
    std::byte lengthBytes[8] = {};
    const std::size_t lengthSize = static_cast<std::size_t>(std::min<std::uint64_t>(size, 8));
    std::uint64_t want = lengthSize;
    if (file.read(0, std::span(lengthBytes, lengthSize)) != lengthSize) {
        error = "the file changed on disk while it was being read";
        return false;
    }
    if (lengthSize == 8) {
        std::uint64_t n = 0;
        for (int i = 7; i >= 0; --i)
            n = (n << 8) | std::to_integer<std::uint64_t>(lengthBytes[i]);
        if (n <= kMaxHeaderLength)
            want = std::min<std::uint64_t>(size, 8 + n);
    }
    allocate(static_cast<std::size_t>(want));
    const std::span<std::byte> prefix(data(), m_size);
    std::copy_n(lengthBytes, lengthSize, prefix.begin());
    if (file.read(lengthSize, prefix.subspan(lengthSize)) != m_size - lengthSize) {
        error = "the file changed on disk while it was being read";
        return false;
    }
    return true;
}

} // namespace stb
