#pragma once

#include "core/format/diagnostic.h"
#include "core/format/tensorinfo.h"

#include <cstddef>
#include <cstdint>
#include <span>
#include <string>
#include <utility>
#include <vector>

namespace stb {

inline constexpr std::uint64_t kMaxHeaderLength = 100'000'000; // the reference's limit
inline constexpr std::uint64_t kHubHeaderLimit = 25'000'000;   // the Hub's readers refuse more

// What a file's header says, and everything found wrong or worth knowing about it.
struct Header {
    // Tensors in header order; a name written twice keeps its last entry, as the reference does.
    // Entries that could be read are kept even when the file is invalid.
    std::vector<TensorInfo> tensors;
    // `__metadata__` pairs sorted by key; hasMetadata is false when the key is absent or null.
    std::vector<std::pair<std::string, std::string>> metadata;
    bool hasMetadata = false;
    // Errors in the order the reference would meet them (the first is its verdict), then
    // warnings about files the reference accepts.
    DiagnosticList diagnostics;

    std::uint64_t fileSize = 0;
    std::uint64_t headerLength = 0; // N, as written in the first 8 bytes (0 if the file is shorter)
    std::uint64_t dataStart = 0;    // 8 + N, clamped to the file size

    bool valid() const { return verdict() == nullptr; }
    // The error the reference reports, or nullptr when it accepts the file.
    const Diagnostic *verdict() const;
    std::size_t errorCount() const;
    std::size_t warningCount() const;
    // Indices into `tensors`, sorted by (begin, end, name): the order of the bytes in the file.
    std::vector<std::size_t> fileOrder() const;
    // Absolute file offset of a tensor's first byte.
    std::uint64_t fileOffset(const TensorInfo &tensor) const { return dataStart + tensor.begin; }
};

// Parses and validates a header exactly as the reference implementation (safetensors 0.8,
// SafeTensors::read_metadata) does, and adds warnings. `prefix` holds the file's first bytes:
// at least min(fileSize, 8 + N) of them, more are ignored. A pure function: no I/O, no
// exceptions, memory in proportion to the header's size, never recursion on the input.
Header parseHeader(std::span<const std::byte> prefix, std::uint64_t fileSize);
inline Header parseHeader(std::span<const std::byte> file) { return parseHeader(file, file.size()); }

} // namespace stb
