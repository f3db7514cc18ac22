#pragma once

#include <string_view>

namespace stb {

// Whether serde_json, as the reference builds it, refuses this (grammatically valid) JSON number
// because the double it computes is infinite. See jsonnumber.cpp for why that is not simply
// "the correctly rounded value overflows".
bool serdeNumberOverflows(std::string_view token);

} // namespace stb
