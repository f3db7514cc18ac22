#pragma once

#include "core/quant/dequantizer.h"
#include "core/stats/tensoranalyzer.h"
#include "core/stats/tensorstats.h"

#include <optional>
#include <stop_token>

namespace stb {

// Statistics, histogram and outliers of a quantized weight's dequantized values: the same
// TensorAnalysis analyzeTensor gives for an ordinary tensor of F32 values (no content digest),
// in two passes (moments, then bins) on `options.threads` threads through parallelFor, each
// range under the SIGBUS guard. By code counts when the dequantizer's layout makes that less
// work (Dequantizer::countingPays), by byte groups for 8-bit GPTQ and pack-quantized groups
// (Dequantizer::byteGroups), by decoded values otherwise. nullopt when cancelled or when
// the file vanished under the scan. Thread-safe.
std::optional<TensorAnalysis> analyzeQuantized(const Dequantizer &dequantizer, const AnalysisOptions &options,
    std::stop_token stop = {}, const ProgressFn &progress = {});

// The two ways, for tests and benchmarks. By values: chunks decoded into a per-thread buffer
// (decodeStorage) and fed to the F32 kernels of core/stats. By codes (nullopt unless
// Dequantizer::countsCodes()): each range's code counts (countStorage), every code's value
// taken once with its count. Both give the same counts, extremes, histogram and outliers; mean
// and std are sums in another order (equal to within rounding).
std::optional<TensorAnalysis> analyzeQuantizedValues(const Dequantizer &dequantizer,
    const AnalysisOptions &options, std::stop_token stop = {}, const ProgressFn &progress = {});
std::optional<TensorAnalysis> analyzeQuantizedCodes(const Dequantizer &dequantizer,
    const AnalysisOptions &options, std::stop_token stop = {}, const ProgressFn &progress = {});
// The third, for 8-bit GPTQ and pack-quantized groups and 4-bit GPTQ ones (nullopt unless
// Dequantizer::byteGroups()):
// group sums of codes and counts of codes at or above each bin edge's code
// (quantbytegroups.cpp). Counts, extremes, histogram and outliers as by values; mean and std
// within rounding.
std::optional<TensorAnalysis> analyzeQuantizedByteGroups(const Dequantizer &dequantizer,
    const AnalysisOptions &options, std::stop_token stop = {}, const ProgressFn &progress = {});

} // namespace stb
