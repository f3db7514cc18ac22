#pragma once

#include <cstddef>
#include <string>

namespace stb {

// A file written whole or not at all: the bytes go to a temporary file beside the target (same
// folder, so the final rename is atomic) that commit() renames over it; a failure, or the object
// going away uncommitted, removes the temporary. Errors name the file and the system's reason.
class AtomicFile {
public:
    AtomicFile() = default;
    AtomicFile(const AtomicFile &) = delete;
    AtomicFile &operator=(const AtomicFile &) = delete;
    ~AtomicFile() { discard(); }

    // Refuses a target that is `protectedPath` (same device and inode: links are caught).
    bool open(const std::string &target, const std::string &protectedPath, std::string &error);
    bool write(const void *data, std::size_t size, std::string &error);
    // Flushes to disk and renames into place; false (and nothing left behind) on failure.
    bool commit(std::string &error);
    void discard();

private:
    bool fail(const std::string &what, std::string &error);

    std::string m_target, m_temporary;
    int m_fd = -1;
};

} // namespace stb
