#pragma once

#include <string_view>

namespace stb {

// Orders names the way people read them: runs of digits compare as numbers, so "layers.2"
// comes before "layers.10" ("007" and "7" are equal as numbers; the shorter spelling first).
// Other bytes compare as unsigned bytes. A strict weak order, usable with std::sort.
int naturalCompare(std::string_view a, std::string_view b);
inline bool naturalLess(std::string_view a, std::string_view b)
{
    return naturalCompare(a, b) < 0;
}

} // namespace stb
