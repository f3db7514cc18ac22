#pragma once

#include <string>

namespace stb {

// What a path given for output names now, and so how bytes must reach it. Whoever names a link
// means the file it points to; whoever names a device, a FIFO or a socket (/dev/null, a named
// pipe, /dev/stdout) means to send the bytes there: a regular file renamed over it would destroy
// it (as root, /dev/full itself).
struct OutputTarget {
    enum class Kind {
        Replace, // a regular file or a new name: written beside it, then renamed over it
        Stream, // an existing device, FIFO or socket: opened as it is and written in order
        Refuse, // a folder, a link loop, a link into a missing folder: `error` says why
    };
    Kind kind = Kind::Refuse;
    // Replace: the file to create or replace, its links followed; Stream: the path to open.
    std::string path;
    // Stream through a descriptor's link in /proc (/dev/stdout, /dev/fd/N): that descriptor's
    // open file, which may be a regular file the shell opened with > or >>, written at its end.
    bool append = false;
    std::string error; // Refuse: "cannot write <path>: <reason>"
};

// Follows the links `path`'s last component leads through (up to 40, the kernel's limit; the
// folders on the way are the kernel's business) and classifies what they end at: lstat, readlink
// and statfs only, nothing is opened or created. A name that cannot be looked up (missing
// folder, name too long) is Replace, for the creation to fail with the system's reason, as for a
// new file. A dangling link is Replace of the file it points to, or Refuse when that file's
// folder does not exist. Thread-safe. What the path names may change before it is opened.
OutputTarget outputTarget(const std::string &path);

// The folder holding a path's last component: "." for a bare name, "/" for one in the root.
std::string folderOf(const std::string &path);

} // namespace stb
