#pragma once

#include "core/quant/dequantizer.h"
#include "core/stats/tensoranalyzer.h"
#include "core/stats/tensorstats.h"

#include <optional>
#include <stop_token>

namespace stb {

// Statistics, histogram and outliers of a quantized weight's dequantized values: the same
// TensorAnalysis analyzeTensor gives for an ordinary tensor (no content digest). Chunks of
// logical elements are decoded into a per-thread buffer under the SIGBUS guard and fed to the
// F32 kernels of core/stats, twice (moments, then bins), on `options.threads` threads through
// parallelFor. nullopt when cancelled or when the file vanished under the scan. Thread-safe.
std::optional<TensorAnalysis> analyzeQuantized(const Dequantizer &dequantizer, const AnalysisOptions &options,
    std::stop_token stop = {}, const ProgressFn &progress = {});

} // namespace stb
