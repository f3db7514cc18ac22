#pragma once

#include <cstddef>
#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace stb {

// Where each name's shortest unambiguous suffix starts: the fewest trailing dot-separated
// segments that no other name in `names` ends with (as whole segments), so that labels cut
// to those suffixes still tell every name apart. For "model.layers.0.mlp.up_proj.weight" among
// "model.layers.0.mlp.down_proj.weight" that is "up_proj.weight"; among
// "model.layers.1.mlp.up_proj.weight" it is "0.mlp.up_proj.weight".
//
// Returns, per name, the byte offset in that name where its suffix starts (0: the whole name,
// also when a name occurs twice or is itself a suffix of another, so nothing shorter is unique).
// Sorts the names by their segments read from the end: O(n log n) comparisons, each at most as
// long as the shorter name; memory is a few indices per name and segment.
std::vector<std::size_t> uniqueSuffixStarts(std::span<const std::string_view> names, char separator = '.');

// Shorter forms of labels that are already unique (such suffixes), for when they do not fit:
// a segment is dropped where every label long enough to have one there (counting from the end)
// has the same one, so it tells none of them apart: "11.mlp.down_proj.weight" among
// "11.mlp.gate_proj.weight" and "embed_tokens.weight" becomes "11.down_proj". A label keeps at
// least one segment, and any label whose short form another label's short form equals keeps
// its full form, so the results stay unique.
std::vector<std::string> compactLabels(std::span<const std::string_view> labels, char separator = '.');

} // namespace stb
