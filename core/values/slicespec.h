#pragma once

#include "core/values/stridedview.h"

#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>

namespace stb {

inline constexpr std::size_t kMaxSliceSpecLength = 1024;

// A NumPy-style basic index applied to a tensor of `shape`: comma-separated entries, one per
// axis from the first, each an integer (the axis is dropped; negative counts from the end), a
// slice `start:stop` or `start:stop:step` (any part may be omitted; out-of-range bounds clamp as
// NumPy does; steps are positive), or one `...` standing for as many `:` as needed. Axes not
// named are taken whole; an empty spec is the whole tensor. Spaces around entries are allowed.
// nullopt and a message naming the character position when the spec is malformed, longer than
// kMaxSliceSpecLength, names more axes than the tensor has or an index out of range.
std::optional<StridedView> parseSliceSpec(
    std::string_view spec, std::span<const std::uint64_t> shape, std::string &error);

} // namespace stb
