#include "commands.h"

#include "core/io/filedigest.h"

#include <cstdio>

namespace stb::inspect {

// Prints "HASH  FILE" lines exactly as sha256sum does.
int runSha256(const std::vector<std::string> &paths)
{
    int status = Ok;
    for (const auto &path : paths) {
        std::string error;
        const auto file = MappedFile::open(path, error);
        const auto digest = file ? sha256Hex(*file) : std::nullopt;
        if (!digest) {
            std::fprintf(stderr, "%s: cannot read: %s\n", path.c_str(),
                         file ? "the file changed on disk while it was being read" : error.c_str());
            status = Usage;
            continue;
        }
        std::printf("%s  %s\n", digest->c_str(), path.c_str());
    }
    return status;
}

} // namespace stb::inspect
