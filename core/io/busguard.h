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

// Calls fn(context) while a read of `region` (bytes of a mapped file) that meets a vanished page
// reads zeros instead: the handler maps a page of zeros over it, in this process only, and fn
// carries on. Returns false when that happened: the file was truncated under fn, whose result is
// then to be thrown away. Unlike runGuarded, fn is never abandoned midway, so it may allocate
// and own resources (a parser reading a header in place). Faults outside `region` are handled
// as without this call. The region's pages that were zeroed stay zeros in the mapping: use it for
// bytes that are not read again once found changed.
bool readZerosWhereVanished(std::span<const std::byte> region, void (*fn)(void *context), void *context);

template<typename Fn>
bool readZerosWhereVanished(std::span<const std::byte> region, Fn &&fn)
{
    using Callable = std::remove_reference_t<Fn>;
    return readZerosWhereVanished(region, [](void *context) { (*static_cast<Callable *>(context))(); },
                                  const_cast<void *>(static_cast<const void *>(std::addressof(fn))));
}

} // namespace stb
