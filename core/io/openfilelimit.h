#pragma once

#include <cstdint>

namespace stb {

// Raises this process's soft limit of open files (RLIMIT_NOFILE) to its hard limit and returns
// the new soft limit. Called once at the start of each program: the default soft limit (often
// 1,024) is a relic of select(), which we do not use, and a model of many shards, or a user
// with many tabs, should not fail for it. Shards close their descriptor once mapped, so this is
// headroom, not a requirement. Not thread-safe against other setrlimit callers; errors ignored.
std::uint64_t raiseOpenFileLimit();

} // namespace stb
