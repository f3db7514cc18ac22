#include "core/values/outputtarget.h"

#include "core/text/textformat.h"

#include <cerrno>
#include <cstring>
#include <vector>

#include <sys/stat.h>
#include <unistd.h>
#if defined(__linux__)
#include <linux/magic.h>
#include <sys/vfs.h>
#endif

namespace stb {

namespace {

constexpr int kMaxLinks = 40; // Linux's MAXSYMLINKS: a longer chain is a loop

OutputTarget replace(const std::string &file)
{
    return { OutputTarget::Kind::Replace, file, false, {} };
}

OutputTarget stream(const std::string &file, bool append)
{
    return { OutputTarget::Kind::Stream, file, append, {} };
}

OutputTarget refuse(const std::string &path, const std::string &reason)
{
    return { OutputTarget::Kind::Refuse, {}, false, "cannot write " + printable(path) + ": " + reason };
}

// A link in procfs (/proc/self/fd/1, where /dev/stdout leads) stands for an open file, which
// need not have a path (a pipe, a deleted file): its text is no path to follow.
bool inProcfs(const std::string &path)
{
#if defined(__linux__)
    struct statfs fs { };
    return ::statfs(folderOf(path).c_str(), &fs) == 0 && fs.f_type == PROC_SUPER_MAGIC;
#else
    (void)path;
    return false;
#endif
}

bool readLink(const std::string &link, std::string &text)
{
    std::vector<char> buffer(256);
    for (;;) {
        const ssize_t n = ::readlink(link.c_str(), buffer.data(), buffer.size());
        if (n < 0)
            return false;
        if (std::size_t(n) < buffer.size()) {
            text.assign(buffer.data(), std::size_t(n));
            return true;
        }
        buffer.resize(buffer.size() * 2);
    }
}

} // namespace

std::string folderOf(const std::string &path)
{
    const auto slash = path.find_last_of('/');
    return slash == std::string::npos ? std::string(".")
        : slash == 0                  ? std::string("/")
                                      : path.substr(0, slash);
}

OutputTarget outputTarget(const std::string &path)
{
    std::string at = path;
    struct stat st { };
    for (int links = 0;; ++links) {
        if (::lstat(at.c_str(), &st) != 0) {
            if (links == 0 || errno != ENOENT)
                return links == 0 ? replace(at) : refuse(path, std::strerror(errno));
            struct stat folder { };
            if (::stat(folderOf(at).c_str(), &folder) != 0 || !S_ISDIR(folder.st_mode))
                return refuse(path, "it links to " + printable(at) + ", whose folder does not exist");
            return replace(at); // a dangling link: its file is created
        }
        if (!S_ISLNK(st.st_mode))
            break;
        if (links == kMaxLinks)
            return refuse(path, std::strerror(ELOOP));
        if (inProcfs(at)) {
            // The kernel follows it to the open file; what that is decides.
            if (::stat(at.c_str(), &st) != 0)
                return refuse(path, std::strerror(errno));
            if (S_ISDIR(st.st_mode))
                return refuse(path, std::strerror(EISDIR));
            return stream(at, true);
        }
        std::string text;
        if (!readLink(at, text))
            return refuse(path, std::strerror(errno));
        const std::string folder = folderOf(at);
        at = text.starts_with('/') ? text : (folder == "/" ? "" : folder) + "/" + text;
    }
    if (S_ISREG(st.st_mode))
        return replace(at);
    if (S_ISDIR(st.st_mode))
        return refuse(path, std::strerror(EISDIR));
    return stream(at, false);
}

} // namespace stb
