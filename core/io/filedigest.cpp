#include "core/io/filedigest.h"

#include "core/io/busguard.h"

#include <openssl/evp.h>

#include <dlfcn.h>

#include <memory>

namespace stb {

namespace {

// libcrypto is opened on the first digest rather than linked: loading it (4.5 MB, some 18,000
// relocations) cost every run of safetensors-inspect 3–4 ms of CPU, a tenth of `check` of a
// 100,000-tensor header, and every start of the browser as much, for a command and a dialog
// that few runs use. Only the declarations of <openssl/evp.h> are used, to type the symbols.
// OpenSSL 3 keeps this soname for its whole 3.x series; the package depends on it by name.
constexpr const char *kCryptoLibrary = "libcrypto.so.3";

struct Crypto {
    decltype(&EVP_MD_CTX_new) newContext = nullptr;
    decltype(&EVP_MD_CTX_free) freeContext = nullptr;
    decltype(&EVP_sha256) sha256 = nullptr;
    decltype(&EVP_DigestInit_ex) init = nullptr;
    decltype(&EVP_DigestUpdate) update = nullptr;
    decltype(&EVP_DigestFinal_ex) final = nullptr;
    std::string error; // empty when every symbol was found
};

template<typename F> bool bind(void *library, const char *name, F &into, std::string &error)
{
    into = reinterpret_cast<F>(::dlsym(library, name));
    if (!into && error.empty())
        error = std::string(kCryptoLibrary) + " has no " + name;
    return into != nullptr;
}

Crypto load()
{
    Crypto crypto;
    // Never closed: the functions are used for the life of the process.
    void *library = ::dlopen(kCryptoLibrary, RTLD_NOW | RTLD_LOCAL);
    if (!library) {
        const char *why = ::dlerror();
        crypto.error = std::string("cannot load ") + kCryptoLibrary + " (OpenSSL 3, Debian's libssl3): "
            + (why ? why : "unknown error");
        return crypto;
    }
    bind(library, "EVP_MD_CTX_new", crypto.newContext, crypto.error);
    bind(library, "EVP_MD_CTX_free", crypto.freeContext, crypto.error);
    bind(library, "EVP_sha256", crypto.sha256, crypto.error);
    bind(library, "EVP_DigestInit_ex", crypto.init, crypto.error);
    bind(library, "EVP_DigestUpdate", crypto.update, crypto.error);
    bind(library, "EVP_DigestFinal_ex", crypto.final, crypto.error);
    return crypto;
}

const Crypto &crypto()
{
    static const Crypto loaded = load(); // thread-safe, once
    return loaded;
}

} // namespace

bool sha256Available(std::string &error)
{
    error = crypto().error;
    return error.empty();
}

std::optional<std::string> sha256Hex(const MappedFile &file, std::stop_token stop, const ProgressFn &progress)
{
    const Crypto &c = crypto();
    if (!c.error.empty())
        return std::nullopt;
    std::unique_ptr<EVP_MD_CTX, decltype(c.freeContext)> context(c.newContext(), c.freeContext);
    if (!context || c.init(context.get(), c.sha256(), nullptr) != 1)
        return std::nullopt;
    constexpr std::uint64_t kChunk = 8ull << 20;
    file.adviseSequential(0, file.size());
    for (std::uint64_t offset = 0; offset < file.size(); offset += kChunk) {
        if (stop.stop_requested())
            return std::nullopt;
        const auto chunk = file.slice(offset, kChunk);
        const auto residentBefore = file.residentPages(offset, chunk.size());
        bool updated = false;
        if (!runGuarded([&] { updated = c.update(context.get(), chunk.data(), chunk.size()) == 1; })
            || !updated)
            return std::nullopt;
        // One pass: keep the page cache for others, and what was cached before as it was.
        file.releaseScanned(offset, chunk.size(), residentBefore);
        if (progress)
            progress(offset + chunk.size(), file.size());
    }
    unsigned char digest[EVP_MAX_MD_SIZE];
    unsigned int length = 0;
    if (c.final(context.get(), digest, &length) != 1)
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
