#include "core/io/busguard.h"

#include <csetjmp>
#include <csignal>
#include <cstdint>
#include <cstring>
#include <mutex>

#include <sys/mman.h>
#include <unistd.h>

namespace stb {

namespace {

thread_local sigjmp_buf *t_jump = nullptr;
// readZerosWhereVanished's region on this thread, and whether a page of it was zeroed.
thread_local const std::byte *t_zerosFrom = nullptr;
thread_local const std::byte *t_zerosTo = nullptr;
thread_local bool t_zeroed = false;
std::uintptr_t g_pageMask = ~std::uintptr_t(4095); // set on install (sysconf is not signal-safe)
struct sigaction g_previous;

// A page of zeros over the vanished page holding `address`, when it lies in this thread's region.
bool zeroVanishedPage(const void *address)
{
    const auto *byte = static_cast<const std::byte *>(address);
    if (!t_zerosFrom || byte < t_zerosFrom || byte >= t_zerosTo)
        return false;
    void *page = reinterpret_cast<void *>(reinterpret_cast<std::uintptr_t>(address) & g_pageMask);
    if (::mmap(page, ~g_pageMask + 1, PROT_READ, MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED, -1, 0) == MAP_FAILED)
        return false;
    t_zeroed = true;
    return true;
}

void onSigbus(int signal, siginfo_t *info, void *context)
{
    if (zeroVanishedPage(info->si_addr))
        return; // the read is retried and finds zeros
    if (sigjmp_buf *jump = t_jump) {
        t_jump = nullptr;
        siglongjmp(*jump, 1);
    }
    // Not ours: behave as if we had never been installed.
    if (g_previous.sa_flags & SA_SIGINFO) {
        if (g_previous.sa_sigaction) {
            g_previous.sa_sigaction(signal, info, context);
            return;
        }
    } else if (g_previous.sa_handler != SIG_DFL && g_previous.sa_handler != SIG_IGN) {
        g_previous.sa_handler(signal);
        return;
    }
    ::signal(SIGBUS, SIG_DFL);
    ::raise(SIGBUS);
}

void installHandler()
{
    static std::once_flag once;
    std::call_once(once, [] {
        if (const long page = ::sysconf(_SC_PAGESIZE); page > 0)
            g_pageMask = ~(static_cast<std::uintptr_t>(page) - 1);
        struct sigaction action;
        std::memset(&action, 0, sizeof action);
        action.sa_sigaction = onSigbus;
        action.sa_flags = SA_SIGINFO | SA_NODEFER;
        sigemptyset(&action.sa_mask);
        sigaction(SIGBUS, &action, &g_previous);
    });
}

} // namespace

bool runGuarded(void (*fn)(void *context), void *context)
{
    installHandler();
    sigjmp_buf jump;
    sigjmp_buf *outer = t_jump;
    if (sigsetjmp(jump, 1) != 0) {
        t_jump = outer;
        return false;
    }
    t_jump = &jump;
    fn(context);
    t_jump = outer;
    return true;
}

bool readZerosWhereVanished(std::span<const std::byte> region, void (*fn)(void *context), void *context)
{
    installHandler();
    const std::byte *const outerFrom = t_zerosFrom, *const outerTo = t_zerosTo;
    const bool outerZeroed = t_zeroed;
    t_zerosFrom = region.data();
    t_zerosTo = region.data() + region.size();
    t_zeroed = false;
    fn(context);
    const bool intact = !t_zeroed;
    t_zerosFrom = outerFrom;
    t_zerosTo = outerTo;
    t_zeroed = outerZeroed || !intact;
    return intact;
}

bool guardedCopy(std::span<std::byte> target, std::span<const std::byte> source)
{
    if (source.size() != target.size())
        return false;
    if (source.empty())
        return true;
    return runGuarded([&] { std::memcpy(target.data(), source.data(), source.size()); });
}

} // namespace stb

namespace stb {

std::optional<bool> guardedEqual(std::span<const std::byte> a, std::span<const std::byte> b)
{
    if (a.size() != b.size())
        return false;
    if (a.empty())
        return true;
    bool equal = false;
    if (!runGuarded([&] { equal = std::memcmp(a.data(), b.data(), a.size()) == 0; }))
        return std::nullopt;
    return equal;
}

} // namespace stb
