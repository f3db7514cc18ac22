#include "core/io/busguard.h"

#include <csetjmp>
#include <csignal>
#include <cstring>
#include <mutex>

namespace stb {

namespace {

thread_local sigjmp_buf *t_jump = nullptr;
struct sigaction g_previous;

void onSigbus(int signal, siginfo_t *info, void *context)
{
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
