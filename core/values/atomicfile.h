#pragma once

#include <cstddef>
#include <string>

namespace stb {

// A file written whole or not at all: the bytes go to a temporary file beside the target (same
// folder, so the final rename is atomic) that commit() renames over it; a failure, or the object
// going away uncommitted, removes the temporary. Errors name the file and the system's reason.
//
// What the target names decides (outputtarget.h): a link is followed and the file it points to
// replaced (or created), the link kept; a folder is refused; an existing device, FIFO or socket
// (/dev/null, a named pipe, /dev/stdout) is opened as it is and the bytes stream to it in order,
// with no temporary and no rename. What was streamed cannot be taken back: there a failure
// leaves what was written. Opening a FIFO waits for its reader, as any writer of one does.
class AtomicFile {
public:
    AtomicFile() = default;
    AtomicFile(const AtomicFile &) = delete;
    AtomicFile &operator=(const AtomicFile &) = delete;
    ~AtomicFile() { discard(); }

    // Refuses a target that is `protectedPath` (same device and inode: links are caught).
    bool open(const std::string &target, const std::string &protectedPath, std::string &error);
    bool write(const void *data, std::size_t size, std::string &error);
    // Flushes to disk and renames into place; false (and nothing left behind) on failure. A
    // stream is closed (no flush: pipes and devices have nothing to sync).
    bool commit(std::string &error);
    void discard();

private:
    bool fail(const std::string &what, std::string &error);

    std::string m_target; // as given, for messages
    std::string m_final; // what the temporary is renamed to: m_target with its links followed
    std::string m_temporary; // empty when streaming
    int m_fd = -1;
};

} // namespace stb
