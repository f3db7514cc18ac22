#include "core/io/filedigest.h"

#include "core/io/busguard.h"

#include <openssl/evp.h>

#include <memory>

namespace stb {

std::optional<std::string> sha256Hex(const MappedFile &file, std::stop_token stop, const ProgressFn &progress)
{
    std::unique_ptr<EVP_MD_CTX, decltype(&EVP_MD_CTX_free)> context(EVP_MD_CTX_new(), &EVP_MD_CTX_free);
    if (!context || EVP_DigestInit_ex(context.get(), EVP_sha256(), nullptr) != 1)
        return std::nullopt;
    constexpr std::uint64_t kChunk = 8ull << 20;
    file.adviseSequential(0, file.size());
    for (std::uint64_t offset = 0; offset < file.size(); offset += kChunk) {
        if (stop.stop_requested())
            return std::nullopt;
        const auto chunk = file.slice(offset, kChunk);
        const auto residentBefore = file.residentPages(offset, chunk.size());
        bool updated = false;
        if (!runGuarded([&] { updated = EVP_DigestUpdate(context.get(), chunk.data(), chunk.size()) == 1; })
            || !updated)
            return std::nullopt;
        // One pass: keep the page cache for others, and what was cached before as it was.
        file.releaseScanned(offset, chunk.size(), residentBefore);
        if (progress)
            progress(offset + chunk.size(), file.size());
    }
    unsigned char digest[EVP_MAX_MD_SIZE];
    unsigned int length = 0;
    if (EVP_DigestFinal_ex(context.get(), digest, &length) != 1)
        return std::nullopt;
    static const char hex[] = "0123456789abcdef";
    std::string out;
    for (unsigned i = 0; i < length; ++i) {
        out += hex[digest[i] >> 4];
        out += hex[digest[i] & 15];
    }
    return out;
}

} // namespace stb
