#include "command.h"
#include "progressline.h"

#include "core/io/filedigest.h"
#include "core/text/textformat.h"

#include <cstdio>
#include <functional>
#include <unistd.h>

namespace stb::inspect {

namespace {

// The name as sha256sum (coreutils 9) writes it: a backslash, newline or carriage return makes
// the line start with '\' and those three are written \\, \n and \r; `sha256sum -c` reads that
// back. On a terminal, a name needing any escape (controls, invalid UTF-8, '\\', '"': escape.h)
// is written as printable() gives it, marked the same way: the raw bytes would act on the
// terminal, and nobody checks against a screen. Returns the marker ("" or "\\") and the name.
std::pair<std::string, std::string> sha256sumName(const std::string &path, bool terminal)
{
    if (terminal) {
        std::string shown = printable(path);
        return {shown == path ? "" : "\\", std::move(shown)};
    }
    if (path.find_first_of("\\\n\r") == std::string::npos)
        return {"", path};
    std::string name;
    for (char c : path) {
        switch (c) {
        case '\\':
            name += "\\\\";
            break;
        case '\n':
            name += "\\n";
            break;
        case '\r':
            name += "\\r";
            break;
        default:
            name += c;
        }
    }
    return {"\\", name};
}

// Prints "HASH  FILE" lines exactly as sha256sum does (so `sha256sum -c` accepts them).
int runSha256(const Invocation &invocation)
{
    const bool terminal = ::isatty(STDOUT_FILENO) == 1;
    if (std::string why; !sha256Available(why)) {
        std::fprintf(stderr, "safetensors-inspect sha256: %s\n", why.c_str());
        return Usage;
    }
    int status = Ok;
    for (const auto &path : invocation.files()) {
        std::string error;
        const auto file = MappedFile::open(path, error);
        std::optional<std::string> digest;
        if (file) {
            ProgressLine progress("hashing " + path);
            digest = sha256Hex(*file, {}, std::ref(progress));
        }
        if (!digest) {
            std::fprintf(stderr, "%s: cannot read: %s\n", printable(path).c_str(),
                         file ? "the file changed on disk while it was being read" : error.c_str());
            status = Usage;
            continue;
        }
        const auto [marker, name] = sha256sumName(path, terminal);
        std::printf("%s%s  %s\n", marker.c_str(), digest->c_str(), name.c_str());
    }
    return status;
}

} // namespace

extern const Command kSha256Command{
    .name = "sha256",
    .operands = "FILE...",
    .minFiles = 1,
    .maxFiles = Command::kUnbounded,
    .summary = "SHA-256 of each file, as sha256sum prints it (the Hub's LFS id)",
    .help = "Prints \"HASH  FILE\" for each whole FILE, exactly as sha256sum does: the identifier under\n"
            "which the Hugging Face Hub stores the file with Git LFS.\n\n"
            "Exit status: 0 every file hashed, 2 usage error or a path that cannot be read.",
    .options = {},
    .run = runSha256,
};

} // namespace stb::inspect
