#include "command.h"

#include "core/io/filedigest.h"

#include <cstdio>

namespace stb::inspect {

namespace {

// Prints "HASH  FILE" lines exactly as sha256sum does.
int runSha256(const Invocation &invocation)
{
    int status = Ok;
    for (const auto &path : invocation.files()) {
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
