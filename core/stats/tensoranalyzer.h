#pragma once

#include "core/concurrency/parallel.h"
#include "core/format/dtype.h"
#include "core/stats/tensorstats.h"

#include <stop_token>
#include <cstdint>
#include <functional>
#include <optional>
#include <span>

namespace stb {

struct AnalysisOptions {
    unsigned bins = 10; // 0: no histogram (statistics and outliers only: faster)
    unsigned threads = 0; // 0: one per hardware thread
    // The content digest: XXH3 costs about as much as the statistics with the AVX-512 kernels.
    // auditCheckpoint without it still finds duplicates: it digests only the tensors whose
    // statistics match another's.
    bool digest = true;
};

// Statistics, histogram, outliers and content digest of one tensor, read straight from
// `bytes` (its data: exactly what dtype and element count call for). Large tensors are cut into
// chunks scanned on `threads` threads and merged. Returns nullopt when a stop is requested
// through `stop`, when the bytes vanished under the scan (the file was truncated: see
// busguard.h), or when `bytes` is not exactly what `elements` values of `dtype` fill
// (bytesForElements): a count never reads past its span. Thread-safe.
std::optional<TensorAnalysis> analyzeTensor(DType dtype, std::span<const std::byte> bytes, std::uint64_t elements,
                                            const AnalysisOptions &options, std::stop_token stop = {},
                                            const ProgressFn &progress = {});

// The content digest alone: TensorAnalysis::digest without the statistics. nullopt when
// cancelled, when the bytes vanished under the read, or when `bytes` and `elements` disagree
// (as for analyzeTensor). Thread-safe; runs on the calling thread.
std::optional<ContentDigest> tensorDigest(DType dtype, std::span<const std::byte> bytes, std::uint64_t elements,
                                          std::stop_token stop = {});

} // namespace stb
