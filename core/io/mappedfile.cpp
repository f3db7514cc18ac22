#include "core/io/mappedfile.h"

#include <cerrno>
#include <cstring>
#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

namespace stb {

std::shared_ptr<const MappedFile> MappedFile::open(const std::string &path, std::string &error)
{
    // O_NONBLOCK: opening a FIFO must not wait for a writer (it is refused below as not a
    // regular file); the flag changes nothing for regular files.
    const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC | O_NONBLOCK);
    if (fd < 0) {
        error = std::strerror(errno);
        return nullptr;
    }
    struct stat st;
    if (::fstat(fd, &st) != 0) {
        error = std::strerror(errno);
        ::close(fd);
        return nullptr;
    }
    if (S_ISDIR(st.st_mode)) {
        error = "it is a directory";
        ::close(fd);
        return nullptr;
    }
    if (!S_ISREG(st.st_mode)) {
        error = "it is not a regular file";
        ::close(fd);
        return nullptr;
    }
    std::shared_ptr<MappedFile> file(new MappedFile);
    file->m_path = path;
    file->m_fd = fd;
    file->m_size = static_cast<std::uint64_t>(st.st_size);
    if (file->m_size > 0) {
        void *data = ::mmap(nullptr, file->m_size, PROT_READ, MAP_SHARED, fd, 0);
        if (data == MAP_FAILED) {
            error = std::string("cannot map it: ") + std::strerror(errno);
            return nullptr;
        }
        file->m_data = static_cast<const std::byte *>(data);
    }
    return file;
}

MappedFile::~MappedFile()
{
    if (m_data)
        ::munmap(const_cast<std::byte *>(m_data), m_size);
    if (m_fd >= 0)
        ::close(m_fd);
}

std::span<const std::byte> MappedFile::slice(std::uint64_t offset, std::uint64_t length) const
{
    if (offset >= m_size)
        return {};
    const std::uint64_t available = m_size - offset;
    return {m_data + offset, static_cast<std::size_t>(length < available ? length : available)};
}

std::size_t MappedFile::read(std::uint64_t offset, std::span<std::byte> out) const
{
    std::size_t done = 0;
    while (done < out.size() && m_fd >= 0) {
        const ssize_t n = ::pread(m_fd, out.data() + done, out.size() - done, static_cast<off_t>(offset + done));
        if (n < 0 && errno == EINTR)
            continue;
        if (n <= 0)
            break;
        done += static_cast<std::size_t>(n);
    }
    return done;
}

std::int64_t MappedFile::currentSizeOnDisk() const
{
    struct stat st;
    if (::stat(m_path.c_str(), &st) != 0)
        return -1;
    return static_cast<std::int64_t>(st.st_size);
}

void MappedFile::adviseSequential(std::uint64_t offset, std::uint64_t length) const
{
    const auto region = slice(offset, length);
    if (region.empty())
        return;
    const long page = ::sysconf(_SC_PAGESIZE);
    const auto start = reinterpret_cast<std::uintptr_t>(region.data()) & ~static_cast<std::uintptr_t>(page - 1);
    const auto end = reinterpret_cast<std::uintptr_t>(region.data()) + region.size();
    ::madvise(reinterpret_cast<void *>(start), end - start, MADV_SEQUENTIAL);
}

} // namespace stb
