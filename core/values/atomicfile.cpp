#include "core/values/atomicfile.h"

#include "core/text/textformat.h"
#include "core/values/outputtarget.h"

#include <atomic>
#include <cerrno>
#include <cstring>

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

namespace stb {

namespace {

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
    const OutputTarget where = outputTarget(target);
    if (where.kind == OutputTarget::Kind::Refuse) {
        error = where.error;
        return false;
    }
    if (where.kind == OutputTarget::Kind::Stream) {
        // No O_TRUNC: a device or FIFO has nothing to cut, and a file behind /dev/stdout is the
        // shell's to truncate (>) or keep (>>).
        m_fd = ::open(where.path.c_str(), O_WRONLY | O_NOCTTY | O_CLOEXEC | (where.append ? O_APPEND : 0));
        if (m_fd < 0) {
            error = "cannot write " + printable(target) + ": " + std::strerror(errno);
            return false;
        }
        m_target = target;
        return true;
    }
    static std::atomic<unsigned> counter { 0 };
    for (int attempt = 0; attempt < 100 && m_fd < 0; ++attempt) {
        m_temporary = where.path + ".partial-" + std::to_string(::getpid()) + "-" + std::to_string(counter++);
        m_fd = ::open(m_temporary.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0666);
        if (m_fd < 0 && errno != EEXIST)
            break;
    }
    if (m_fd < 0) {
        const int reason = errno;
        m_temporary.clear();
        error = "cannot create a file in " + printable(folderOf(where.path)) + ": " + std::strerror(reason);
        return false;
    }
    m_target = target;
    m_final = where.path;
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
    if (m_temporary.empty()) { // a stream
        const int fd = m_fd;
        m_fd = -1;
        if (::close(fd) != 0) {
            error = "cannot write " + printable(m_target) + ": " + std::strerror(errno);
            return false;
        }
        return true;
    }
    if (::fsync(m_fd) != 0)
        return fail("cannot write ", error);
    const int fd = m_fd;
    m_fd = -1;
    if (::close(fd) != 0 || ::rename(m_temporary.c_str(), m_final.c_str()) != 0) {
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
