#include "core/io/mappedfile.h"

#include "core/io/busguard.h"

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <cstring>
#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/syscall.h>
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
    file->m_device = static_cast<std::uint64_t>(st.st_dev);
    file->m_inode = static_cast<std::uint64_t>(st.st_ino);
    file->m_size = static_cast<std::uint64_t>(st.st_size);
    if (file->m_size > 0) {
        void *data = ::mmap(nullptr, file->m_size, PROT_READ, MAP_SHARED, fd, 0);
        if (data == MAP_FAILED) {
            error = std::string("cannot map it: ") + std::strerror(errno);
            ::close(fd);
            return nullptr;
        }
        file->m_data = static_cast<const std::byte *>(data);
    }
    ::close(fd); // the mapping keeps the file; a descriptor per shard would hit the limit
    return file;
}

MappedFile::~MappedFile()
{
    if (m_data)
        ::munmap(const_cast<std::byte *>(m_data), m_size);
}

std::span<const std::byte> MappedFile::slice(std::uint64_t offset, std::uint64_t length) const
{
    if (offset >= m_size)
        return {};
    const std::uint64_t available = m_size - offset;
    return { m_data + offset, static_cast<std::size_t>(length < available ? length : available) };
}

int MappedFile::openMappedFile() const
{
    const int fd = ::open(m_path.c_str(), O_RDONLY | O_CLOEXEC | O_NONBLOCK);
    struct stat st;
    if (fd >= 0
        && (::fstat(fd, &st) != 0 || static_cast<std::uint64_t>(st.st_dev) != m_device
            || static_cast<std::uint64_t>(st.st_ino) != m_inode)) {
        ::close(fd);
        return -1;
    }
    return fd;
}

std::size_t MappedFile::read(std::uint64_t offset, std::span<std::byte> out) const
{
    const int fd = openMappedFile();
    if (fd < 0) {
        // Not the mapped file any more (or no descriptor to spare): the mapping still is.
        const auto source = slice(offset, out.size());
        return guardedCopy(out.first(source.size()), source) ? source.size() : 0;
    }
    std::size_t done = 0;
    while (done < out.size()) {
        const ssize_t n
            = ::pread(fd, out.data() + done, out.size() - done, static_cast<off_t>(offset + done));
        if (n < 0 && errno == EINTR)
            continue;
        if (n <= 0)
            break;
        done += static_cast<std::size_t>(n);
    }
    ::close(fd);
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
    const auto start
        = reinterpret_cast<std::uintptr_t>(region.data()) & ~static_cast<std::uintptr_t>(page - 1);
    const auto end = reinterpret_cast<std::uintptr_t>(region.data()) + region.size();
    ::madvise(reinterpret_cast<void *>(start), end - start, MADV_SEQUENTIAL);
}

// cachestat(2), Linux 6.5: its number and structures, which Debian 12's headers (for 6.1) lack.
namespace {
constexpr long kCachestatSyscall = 451; // the same on every architecture (the unified table)
struct CachestatRange {
    std::uint64_t offset, length;
};
struct Cachestat {
    std::uint64_t cached, dirty, writeback, evicted, recentlyEvicted;
};
} // namespace

bool MappedFile::allCached(std::uint64_t offset, std::uint64_t length) const
{
#if defined(__linux__)
    static std::atomic<bool> unsupported { false };
    if (unsupported.load(std::memory_order_relaxed))
        return false;
    const int fd = openMappedFile();
    if (fd < 0)
        return false;
    CachestatRange range { offset, length };
    Cachestat stat {};
    const long result = ::syscall(kCachestatSyscall, fd, &range, &stat, 0);
    const int failure = result == 0 ? 0 : errno;
    ::close(fd);
    if (failure == ENOSYS)
        unsupported.store(true, std::memory_order_relaxed);
    const std::uint64_t page = static_cast<std::uint64_t>(::sysconf(_SC_PAGESIZE));
    const std::uint64_t end = std::min(offset + length, m_size);
    const std::uint64_t pages = (end + page - 1) / page - offset / page;
    return result == 0 && stat.cached >= pages;
#else
    (void)offset, (void)length;
    return false;
#endif
}

std::vector<unsigned char> MappedFile::residentPages(std::uint64_t offset, std::uint64_t length) const
{
    if (offset >= m_size || length == 0)
        return {};
    length = std::min(length, m_size - offset);
    const std::uint64_t page = static_cast<std::uint64_t>(::sysconf(_SC_PAGESIZE));
    const std::uint64_t begin = offset / page * page;
    std::vector<unsigned char> resident((offset + length - begin + page - 1) / page);
    if (allCached(begin, offset + length - begin)) {
        std::fill(resident.begin(), resident.end(), 1);
        return resident;
    }
    if (::mincore(const_cast<std::byte *>(m_data) + begin, offset + length - begin, resident.data()) != 0)
        return {};
    return resident;
}

void MappedFile::releaseScanned(std::uint64_t offset, std::uint64_t length,
                                std::span<const unsigned char> residentBefore) const
{
    if (offset >= m_size)
        return;
    length = std::min(length, m_size - offset);
    // Whole pages inside the range only: a page shared with a neighbouring range still in use
    // is left to the scan that finishes it.
    const std::uint64_t page = static_cast<std::uint64_t>(::sysconf(_SC_PAGESIZE));
    const std::uint64_t begin = (offset + page - 1) / page * page;
    const std::uint64_t end = offset + length == m_size ? m_size : (offset + length) / page * page;
    if (end <= begin)
        return;
    // Runs of pages that were not resident before the scan (all of them without a snapshot).
    const std::uint64_t firstPage = offset / page; // residentBefore[0]
    auto wasResident = [&](std::uint64_t at) {
        const std::uint64_t k = at / page - firstPage;
        return k < residentBefore.size() && (residentBefore[k] & 1);
    };
    int fd = -1;
    bool opened = false;
    for (std::uint64_t at = begin; at < end;) {
        if (wasResident(at)) {
            at += page;
            continue;
        }
        std::uint64_t runEnd = at;
        while (runEnd < end && !wasResident(runEnd))
            runEnd = std::min(end, runEnd + page);
        ::madvise(const_cast<std::byte *>(m_data) + at, runEnd - at, MADV_DONTNEED);
        if (!opened) {
            fd = openMappedFile();
            opened = true;
        }
        if (fd >= 0)
            ::posix_fadvise(fd, static_cast<off_t>(at), static_cast<off_t>(runEnd - at), POSIX_FADV_DONTNEED);
        at = runEnd;
    }
    if (fd >= 0)
        ::close(fd);
}

} // namespace stb
