#pragma once

#include "core/format/dtype.h"
#include "core/stats/tensoranalyzer.h" // ProgressFn

#include <cstddef>
#include <cstdint>
#include <functional>
#include <optional>
#include <span>
#include <stop_token>

namespace stb {

struct LocatedValue {
    std::uint64_t index = 0; // flat, C order (unravelIndex gives the N-D index)
    double value = 0;
};

// Where a tensor's notable values are. Each is absent when the tensor has no such value; ties
// go to the lowest flat index; min, max and absMax consider finite values only (absMax holds the
// signed value whose magnitude is largest). C64 is located by its real parts.
struct LocateResult {
    std::uint64_t count = 0;
    std::optional<LocatedValue> firstNaN, firstPosInf, firstNegInf, min, max, absMax;
};

// Scans elements [0, elements) of `bytes` (a tensor's data in the mapping, read in place under
// the SIGBUS guard, never copied whole) in chunks on `threads` threads (0: all cores). Progress
// is reported in elements. nullopt when `stop` was requested, when `bytes` holds fewer than
// `elements` elements, or when the bytes vanished (the file was truncated). Thread-safe.
std::optional<LocateResult> locateValues(DType dtype, std::span<const std::byte> bytes,
    std::uint64_t elements, std::stop_token stop = {}, const ProgressFn &progress = {}, unsigned threads = 0);

inline constexpr std::uint64_t kLocateBlock = 2048; // values decoded at a time, on a worker's stack

// Writes elements [first, first + n) (n ≤ kLocateBlock) as doubles into `out`. Called on worker
// threads, inside the SIGBUS guard: it may read the mapping directly.
using LocateDecoder = std::function<void(std::uint64_t first, std::uint64_t n, double *out)>;

// locateValues over `elements` values that `decode` produces (a quantized weight's dequantized
// values): the same chunks, ties and results. nullopt when `stop` was requested or the mapping
// vanished under a read. Thread-safe when `decode` is.
std::optional<LocateResult> locateDecoded(std::uint64_t elements, const LocateDecoder &decode,
    std::stop_token stop = {}, const ProgressFn &progress = {}, unsigned threads = 0);

} // namespace stb
