#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <memory>
#include <span>
#include <type_traits>

namespace stb {

// A mapped file that is truncated while we hold it raises SIGBUS when a vanished page is
// touched. Reads of mapped bytes go through these guards so that such a read fails (returns
// false) instead of ending the program. The first call installs a process-wide SIGBUS handler
// that only handles faults inside a guarded region on the faulting thread; any other SIGBUS
// keeps its default action.

// Copies `source` into `target` (same size); false if the source vanished midway.
bool guardedCopy(std::span<std::byte> target, std::span<const std::byte> source);

// Whether two equally long byte ranges are equal (memcmp); nullopt if either vanished midway.
std::optional<bool> guardedEqual(std::span<const std::byte> a, std::span<const std::byte> b);

// Calls fn(context); false if a SIGBUS interrupted it. fn is abandoned midway by a long jump,
// so it must not own resources or hold locks: plain loops over bytes and plain-old-data only.
bool runGuarded(void (*fn)(void *context), void *context);

// Calls fn() (a lambda capturing what it reads and writes by reference) under the guard, on the
// same terms: false if a SIGBUS interrupted it; it must own nothing and hold no lock.
template<typename Fn>
bool runGuarded(Fn &&fn)
{
    using Callable = std::remove_reference_t<Fn>;
    return runGuarded([](void *context) { (*static_cast<Callable *>(context))(); },
                      const_cast<void *>(static_cast<const void *>(std::addressof(fn))));
}

} // namespace stb
