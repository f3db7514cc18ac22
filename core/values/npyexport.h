#pragma once

#include "core/format/dtype.h"
#include "core/stats/tensoranalyzer.h" // ProgressFn
#include "core/values/stridedview.h"

#include <cstddef>
#include <functional>
#include <span>
#include <stop_token>
#include <string>

namespace stb {

// How a dtype is written to .npy: NumPy's own type where it has one; BF16, the F8 family, F4 and
// F6 as float32 values (exact: each is a subset of float32), or with `raw` as their integer codes
// (uint16 for BF16, uint8 one code per element for the others).
struct NpyEncoding {
    std::string descr; // NumPy type string: "<f4", "|u1", "|b1", "<c8", …
    unsigned itemSize = 0; // bytes per element in the file
    bool converted = false; // values decoded to float32 rather than copied
    std::string note; // "BF16 written as float32 values", empty when copied as is
};
NpyEncoding npyEncoding(DType dtype, bool raw);

// The .npy v1.0 preamble (magic, version, header length, dict padded to a multiple of 64) for
// C-order little-endian data of `descr` and `shape`; empty when the header would not fit v1.0.
std::string npyHeader(const std::string &descr, std::span<const std::uint64_t> shape);

// What writeNpy needs of a source of elements: the .npy type, how many elements the source has
// (the view must lie inside), and how to encode a run of them.
struct NpySource {
    std::string descr; // npyHeader's
    unsigned itemSize = 0; // bytes per element written
    std::uint64_t elements = 0; // in the source, which the view's last element must lie below
    std::string outside; // the error when it does not
    std::string vanished; // the error when a run's bytes vanished (the file was truncated)
    std::uint64_t runElements = 0; // at most this many elements per encodeRun call
    // Encodes the `n` elements at source indices first, first+stride, … into `out` (n × itemSize
    // bytes) under the SIGBUS guard; false when the bytes vanished.
    std::function<bool(std::uint64_t first, std::uint64_t stride, std::uint64_t n, std::byte *out)> encodeRun;
};

// The one .npy writer: `view` of `source` to `outPath`, header then the elements in C order as
// runs along the last axis. Atomic, never over `sourcePath`, cancellable, progress in elements,
// as exportNpy says below.
bool writeNpy(const std::string &outPath, const std::string &sourcePath, const NpySource &source,
    const StridedView &view, std::string &error, std::stop_token stop, const ProgressFn &progress);

// Writes `view` of a tensor's bytes (a whole tensor: wholeView) to `outPath` as .npy v1.0,
// little-endian, C order, encoded per npyEncoding. Atomic: the data goes to a temporary file in
// the target folder, renamed over `outPath` only when complete; on any failure (no permission,
// disk full, bytes vanished, cancelled) nothing is left behind and `error` says why. A link's
// file is written, the link kept; a device or FIFO is written to as it is (atomicfile.h). Refuses to
// write over `sourcePath` (the same file by device and inode, so links are caught). Progress in
// elements. Runs on the calling thread.
bool exportNpy(const std::string &outPath, const std::string &sourcePath, DType dtype,
    std::span<const std::byte> bytes, const StridedView &view, bool raw, std::string &error,
    std::stop_token stop = {}, const ProgressFn &progress = {});

} // namespace stb
