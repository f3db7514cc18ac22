#pragma once

// The bytes parseHeader reads, copied out of a file.
#include "core/io/mappedfile.h"

#include <cstddef>
#include <memory>
#include <span>
#include <string>

namespace stb {

// A file's first min(size, 8 + N) bytes, N being the header length its first 8 bytes announce
// (only those 8 when N is over the reference's limit): what parseHeader and checkHeader take.
// Parsing a copy keeps a file truncated under us from faulting inside the parser.
class HeaderBytes {
public:
    HeaderBytes() = default;
    ~HeaderBytes();
    HeaderBytes(const HeaderBytes &) = delete;
    HeaderBytes &operator=(const HeaderBytes &) = delete;

    // Copies them from `file` (with pread: the mapping's pages are not touched, so they do not
    // stay resident beside the copy). False and a reason when the file changed while it was read.
    bool read(const MappedFile &file, std::string &error);
    std::span<const std::byte> bytes() const { return { data(), m_size }; }

private:
    void allocate(std::size_t size);
    std::byte *data() const { return m_mapped ? m_mapped : m_owned.get(); }

    std::size_t m_size = 0;
    std::byte *m_mapped = nullptr;
    std::unique_ptr<std::byte[]> m_owned;
};

} // namespace stb
