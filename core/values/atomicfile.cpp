#include "core/values/atomicfile.h"

#include "core/text/textformat.h"

#include <atomic>
#include <cerrno>
#include <cstring>

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

namespace stb {

namespace {

std::string folderOf(const std::string &path)
{
    const auto slash = path.find_last_of('/');
    return slash == std::string::npos ? std::string(".")
        : slash == 0                  ? std::string("/")
                                      : path.substr(0, slash);
}

bool sameFile(const std::string &a, const std::string &b)
{
    struct stat sa {
    }, sb {};
    return ::stat(a.c_str(), &sa) == 0 && ::stat(b.c_str(), &sb) == 0 && sa.st_dev == sb.st_dev
        && sa.st_ino == sb.st_ino;
}

} // namespace

bool AtomicFile::open(const std::string &target, const std::string &protectedPath, std::string &error)
{
    discard();
    if (!protectedPath.empty() && sameFile(target, protectedPath)) {
        error = "refusing to write over the source file " + printable(protectedPath);
        return false;
    }
    static std::atomic<unsigned> counter { 0 };
    for (int attempt = 0; attempt < 100 && m_fd < 0; ++attempt) {
        m_temporary = target + ".partial-" + std::to_string(::getpid()) + "-" + std::to_string(counter++);
        m_fd = ::open(m_temporary.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0666);
        if (m_fd < 0 && errno != EEXIST)
            break;
    }
    if (m_fd < 0) {
        error = "cannot create a file in " + printable(folderOf(target)) + ": " + std::strerror(errno);
        return false;
    }
    m_target = target;
    return true;
}

bool AtomicFile::write(const void *data, std::size_t size, std::string &error)
{
    const auto *p = static_cast<const char *>(data);
    while (size > 0) {
        const ssize_t written = ::write(m_fd, p, size);
        if (written < 0 && errno == EINTR)
            continue;
        if (written <= 0)
            return fail("cannot write ", error);
        p += written;
        size -= static_cast<std::size_t>(written);
    }
    return true;
}

bool AtomicFile::commit(std::string &error)
{
    if (::fsync(m_fd) != 0)
        return fail("cannot write ", error);
    const int fd = m_fd;
    m_fd = -1;
    if (::close(fd) != 0 || ::rename(m_temporary.c_str(), m_target.c_str()) != 0) {
        error = "cannot write " + printable(m_target) + ": " + std::strerror(errno);
        ::unlink(m_temporary.c_str());
        m_temporary.clear();
        return false;
    }
    m_temporary.clear();
    return true;
}

void AtomicFile::discard()
{
    if (m_fd >= 0)
        ::close(m_fd);
    m_fd = -1;
    if (!m_temporary.empty())
        ::unlink(m_temporary.c_str());
    m_temporary.clear();
}

bool AtomicFile::fail(const std::string &what, std::string &error)
{
    error = what + printable(m_target) + ": " + std::strerror(errno);
    discard();
    return false;
}

} // namespace stb
