#pragma once

#include "core/format/dtype.h"

#include <cstddef>
#include <cstdint>
#include <functional>
#include <span>
#include <string>
#include <utility>
#include <vector>

namespace stb {

// What to write for one tensor; its bytes come separately.
struct TensorSpec {
    std::string name;
    DType dtype = DType::F32;
    std::vector<std::uint64_t> shape;
};

using Metadata = std::vector<std::pair<std::string, std::string>>;

// The layout the reference writer (safetensors::serialize) produces: tensors sorted by
// descending dtype (its alignment order) then by name, packed from offset 0; compact JSON with
// `__metadata__` first (keys sorted here, where the reference's HashMap order is arbitrary);
// the header padded with spaces to a multiple of 8.
struct FileLayout {
    std::vector<std::byte> prefix;     // the 8-byte length and the padded header
    std::vector<std::size_t> order;    // indices into the specs, in data order
    std::vector<std::uint64_t> begins; // data offset of each spec (indexed like the specs)
    std::uint64_t dataSize = 0;
};

// Fails (false, reason in `error`) on a repeated name or a sub-byte tensor that is not a whole
// number of bytes, as the reference does.
bool planFile(std::span<const TensorSpec> specs, const Metadata &metadata, FileLayout &layout,
              std::string &error);

// Writes a file; `fill(i, out)` produces the bytes of specs[i] into `out` (exactly its size), so
// files larger than memory can be written. The file is written to `path` directly.
bool writeFile(const std::string &path, std::span<const TensorSpec> specs, const Metadata &metadata,
               const std::function<void(std::size_t, std::span<std::byte>)> &fill, std::string &error);

// Convenience for tests: data given as one byte vector per spec (sizes must match).
bool writeFile(const std::string &path, std::span<const TensorSpec> specs,
               std::span<const std::vector<std::byte>> data, const Metadata &metadata, std::string &error);
std::vector<std::byte> serialize(std::span<const TensorSpec> specs,
                                 std::span<const std::vector<std::byte>> data, const Metadata &metadata);

// JSON string literal as serde_json writes it (escapes ", \, and control characters only).
std::string jsonQuote(std::string_view text);

} // namespace stb
