#pragma once

#include "core/format/writer.h"
#include "core/io/checkpoint.h"

#include <cstddef>
#include <functional>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

namespace stb::test {

// Bytes of a string, for building files by hand.
std::vector<std::byte> bytesOf(std::string_view text);
// A file as the format lays it out: 8-byte little-endian length, the header, then `dataBytes`
// bytes of `fill`. The length written is the header's size unless `lengthOverride` is given.
std::vector<std::byte> rawFile(std::string_view headerJson, std::size_t dataBytes = 0,
                               unsigned char fill = 0, long long lengthOverride = -1);
bool writeBytes(const std::string &path, const std::vector<std::byte> &bytes);

// A small transformer-shaped model (embeddings, `layers` blocks of attention and MLP weights,
// a norm and an lm_head) in mixed dtypes with deterministic pseudo-random values.
struct SampleModel {
    std::vector<TensorSpec> specs;
    std::vector<std::vector<std::byte>> data;
    Metadata metadata;
};
SampleModel makeSampleModel(int layers = 4, int hidden = 32);

// Writes a file of F32 (or other) tensors and opens it; aborts the test program with the reason
// on failure. `value(spec, element)` gives each F32 element (zero bytes for
// other dtypes and without it).
std::shared_ptr<const Checkpoint> writeCheckpoint(const std::string &path, std::span<const TensorSpec> specs,
    const std::function<float(std::size_t, std::size_t)> &value = {});

} // namespace stb::test
