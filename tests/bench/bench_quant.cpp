// Quantized statistics benchmark: the statistics of each scheme's dequantized values
// (analyzeQuantized: by code counts where that pays, else decoded and fed to the F32 kernels;
// two passes) against the same statistics on a BF16 tensor of the same logical size
// (analyzeTensor), in one run with a warm page cache, the two timed in turn. Codes are random
// bits and scales plausible values: the work does not depend on the values much. The target is
// at least half the BF16 speed: an "issue 13:" line per scheme (and width) gives the ratio, and
// whether the code counts or the decoded values ran.
// With BENCH_VALUES=1, the value views instead: decodeRows of 1,000 rows (what the Values pane
// reads for its visible rows, at its most) and a 1024×1024-cell heatmap of each weight against
// readRect and summarizeHeatmap on the BF16 tensor; then the same on the transposed plane (a
// 1,000 × 64-cell screenful and a 1024×1024-cell heatmap).
//   bench_quant FOLDER [ROWS COLS]   (BENCH_SCHEME=gptq or "gptq 8-bit": that scheme only; BENCH_BINS=10:
//   bins; BENCH_BOTH=1: where code counting runs, the decoding analyzer as well, as a same-run "before";
//   BENCH_HEAVY=1: heavy-tailed codes instead of uniform ones, so that outliers exist, see heavyCodes)
#include "benchutil.h"

#include "core/concurrency/parallel.h"
#include "core/format/writer.h"
#include "core/io/checkpoint.h"
#include "core/quant/dequantizer.h"
#include "core/quant/dequantvalues.h"
#include "core/quant/quantanalyzer.h"
#include "core/quant/quantview.h"
#include "core/stats/tensoranalyzer.h"
#include "core/values/heatmap.h"
#include "core/values/valuereader.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <utility>
#include <vector>

using namespace stb;
using stb::bench::medianCpuMs;
using stb::bench::medianMs;

namespace {

std::uint64_t g_state = 0x9E3779B97F4A7C15ull;
std::uint64_t next()
{
    g_state ^= g_state << 13, g_state ^= g_state >> 7, g_state ^= g_state << 17;
    return g_state;
}

// bitsandbytes' quant_state JSON of a 4-bit weight.
std::string stateJson(const char *type, std::uint64_t rows, std::uint64_t cols)
{
    return std::string(R"({"quant_type": ")") + type + R"(", "blocksize": 64, "dtype": "bfloat16", "shape": [)"
        + std::to_string(rows) + ", " + std::to_string(cols) + "]}";
}

// BENCH_HEAVY set and not empty or 0 (scripts/run-benchmarks.sh passes it empty when not wanted).
bool heavyWanted()
{
    const char *v = std::getenv("BENCH_HEAVY");
    return v && *v && std::strcmp(v, "0") != 0;
}

// A discrete Laplace offset: |d| = floor(spread · Exp(1)), either sign.
int laplaceSteps(double spread)
{
    const double u = (static_cast<double>(next() >> 11) + 0.5) * 0x1p-53;
    const double magnitude = -spread * std::log(u);
    return (next() & 1) ? static_cast<int>(magnitude) : -static_cast<int>(magnitude);
}

// BENCH_HEAVY=1: codes as trained weights give them, most near the zero point and a heavy tail,
// so that values lie beyond 6σ of the mean and the statistics' second pass (outliers, at 0 bins
// too) runs, as it does on real checkpoints; zero points at the middle code.
void heavyCodes(const TensorSpec &spec, std::span<std::byte> out)
{
    const std::string &n = spec.name;
    const auto clampTo = [](int v, int hi) { return static_cast<unsigned>(std::clamp(v, 0, hi)); };
    const bool zeros = n.find("qzeros") != std::string::npos;
    const bool eightBit = n.rfind("gptq8.", 0) == 0 || n.rfind("pack8.", 0) == 0;
    if (spec.dtype == DType::F8_E4M3) {
        for (auto &b : out) { // exponent field 7 ± a heavy tail (values around 1, rarely 2^±7)
            const unsigned e = clampTo(7 + laplaceSteps(0.7), 15), m = next() % (e == 15 ? 7 : 8);
            b = static_cast<std::byte>((next() & 0x80) | (e << 3) | m);
        }
    } else if (spec.dtype == DType::I8) {
        for (auto &b : out)
            b = static_cast<std::byte>(static_cast<std::int8_t>(std::clamp(laplaceSteps(6), -127, 127)));
    } else if (eightBit) { // GPTQ's zeros hold zero − 1
        for (auto &b : out)
            b = static_cast<std::byte>(zeros ? 127u : clampTo(128 + laplaceSteps(6), 255));
    } else { // two 4-bit codes a byte (GPTQ, AWQ, pack-quantized, bitsandbytes, MXFP4)
        for (auto &b : out) {
            const unsigned lo = zeros ? 7 : clampTo(8 + laplaceSteps(1.2), 15);
            const unsigned hi = zeros ? 7 : clampTo(8 + laplaceSteps(1.2), 15);
            b = static_cast<std::byte>(lo | hi << 4);
        }
    }
}

// Fills a tensor: random bits for codes, small positive values for float scales, group indices
// for g_idx, the state JSON or the shape where the layout has one.
void fill(const TensorSpec &spec, std::span<std::byte> out, std::uint64_t rows, std::uint64_t cols)
{
    const std::string &n = spec.name;
    const auto endsWith = [&](const char *s) {
        return n.size() >= std::strlen(s) && n.compare(n.size() - std::strlen(s), std::strlen(s), s) == 0;
    };
    if (endsWith("bitsandbytes__nf4") || endsWith("bitsandbytes__fp4")) {
        const std::string json = stateJson(endsWith("nf4") ? "nf4" : "fp4", rows, cols);
        std::memcpy(out.data(), json.data(), out.size());
    } else if (endsWith(".weight_shape")) {
        const std::int64_t dims[2] = { static_cast<std::int64_t>(rows), static_cast<std::int64_t>(cols) };
        std::memcpy(out.data(), dims, 16);
    } else if (endsWith(".g_idx")) {
        for (std::size_t i = 0; i < out.size() / 4; ++i) {
            const std::int32_t g = static_cast<std::int32_t>(i / 128);
            std::memcpy(out.data() + 4 * i, &g, 4);
        }
    } else if (spec.dtype == DType::F32 || spec.dtype == DType::F16) {
        for (std::size_t i = 0; i < out.size() / dtypeBits(spec.dtype) * 8; ++i) {
            const float v = 0.001f + 0.01f * static_cast<float>(next() & 0xFFFF) / 65536.0f;
            if (spec.dtype == DType::F32) {
                std::memcpy(out.data() + 4 * i, &v, 4);
            } else {
                std::uint32_t b;
                std::memcpy(&b, &v, 4);
                const auto h = static_cast<std::uint16_t>(
                    ((b >> 16) & 0x8000) | ((((b >> 23) & 0xff) - 112) << 10) | ((b >> 13) & 0x3ff));
                std::memcpy(out.data() + 2 * i, &h, 2);
            }
        }
    } else if (endsWith("_scales")) {
        for (auto &b : out)
            b = static_cast<std::byte>(118 + next() % 8);
    } else if (spec.dtype == DType::BF16 && heavyWanted()) { // as heavyCodes: 2^-7 ± a heavy tail
        for (std::size_t i = 0; i < out.size() / 2; ++i) {
            const auto e = static_cast<std::uint16_t>(std::clamp(120 + laplaceSteps(0.7), 1, 254));
            const auto v = static_cast<std::uint16_t>((next() & 0x8000) | e << 7 | (next() & 0x7f));
            std::memcpy(out.data() + 2 * i, &v, 2);
        }
    } else if (spec.dtype == DType::BF16) {
        for (std::size_t i = 0; i < out.size() / 2; ++i) {
            const auto v
                = static_cast<std::uint16_t>(0x3c00 + (next() & 0x7ff) - (next() & 0x8000)); // about ±0.01
            std::memcpy(out.data() + 2 * i, &v, 2);
        }
    } else if (heavyWanted()) {
        heavyCodes(spec, out);
    } else {
        for (std::size_t i = 0; i < out.size(); i += 8) {
            const std::uint64_t r = next();
            std::memcpy(out.data() + i, &r, std::min<std::size_t>(8, out.size() - i));
        }
        if (spec.dtype == DType::F8_E4M3)
            for (auto &b : out) // no NaN codes (0x7f, 0xff)
                b &= std::byte { 0xF7 };
    }
}

std::vector<TensorSpec> specsFor(std::uint64_t r, std::uint64_t c)
{
    const std::uint64_t g = c / 128;
    return {
        { "bf16.weight", DType::BF16, { r, c } },
        { "fp8.weight", DType::F8_E4M3, { r, c } },
        { "fp8.weight_scale_inv", DType::F32, { (r + 127) / 128, (c + 127) / 128 } },
        { "fp8t.weight", DType::F8_E4M3, { r, c } },
        { "fp8t.weight_scale", DType::F32, { 1 } },
        { "fp8c.weight", DType::F8_E4M3, { r, c } },
        { "fp8c.weight_scale", DType::F32, { r, 1 } },
        { "mxfp4_blocks", DType::U8, { r, c / 32, 16 } },
        { "mxfp4_scales", DType::U8, { r, c / 32 } },
        { "gptq.qweight", DType::I32, { c / 8, r } },
        { "gptq.qzeros", DType::I32, { g, r / 8 } },
        { "gptq.scales", DType::F16, { g, r } },
        { "gptq.g_idx", DType::I32, { c } },
        { "gptq8.qweight", DType::I32, { c / 4, r } },
        { "gptq8.qzeros", DType::I32, { g, r / 4 } },
        { "gptq8.scales", DType::F16, { g, r } },
        { "gptq8.g_idx", DType::I32, { c } },
        { "awq.qweight", DType::I32, { c, r / 8 } },
        { "awq.qzeros", DType::I32, { g, r / 8 } },
        { "awq.scales", DType::F16, { g, r } },
        { "nf4.weight", DType::U8, { r * c / 2, 1 } },
        { "nf4.weight.absmax", DType::F32, { r * c / 64 } },
        { "nf4.weight.quant_state.bitsandbytes__nf4", DType::U8, { stateJson("nf4", r, c).size() } },
        { "fp4.weight", DType::U8, { r * c / 2, 1 } },
        { "fp4.weight.absmax", DType::F32, { r * c / 64 } },
        { "fp4.weight.quant_state.bitsandbytes__fp4", DType::U8, { stateJson("fp4", r, c).size() } },
        { "int8.weight", DType::I8, { r, c } },
        { "int8.SCB", DType::F32, { r } },
        { "pack.weight_packed", DType::I32, { r, c / 8 } },
        { "pack.weight_scale", DType::F16, { r, g } },
        { "pack.weight_shape", DType::I64, { 2 } },
        { "pack8.weight_packed", DType::I32, { r, c / 4 } },
        { "pack8.weight_scale", DType::F16, { r, g } },
        { "pack8.weight_shape", DType::I64, { 2 } },
    };
}

} // namespace

int main(int argc, char **argv)
{
    stb::bench::printKernels();
    if (argc < 2) {
        std::fprintf(stderr, "usage: bench_quant FOLDER [ROWS COLS]\n");
        return 2;
    }
    const std::uint64_t rows = argc > 3 ? std::stoull(argv[2]) : 4096,
                        cols = argc > 3 ? std::stoull(argv[3]) : 8192;
    const std::string path = std::string(argv[1])
        + (heavyWanted() ? "/bench_quant_heavy.safetensors" : "/bench_quant.safetensors");
    const auto specs = specsFor(rows, cols);
    std::string error;
    // A file of this size left by BENCH_KEEP=1 is used again: writing it takes longer than the
    // statistics.
    auto checkpoint = Checkpoint::open(path, error);
    const auto sized = [&] {
        for (const auto &t : checkpoint->tensors())
            if (t.info->name == "bf16.weight")
                return t.info->shape == std::vector<std::uint64_t> { rows, cols };
        return false;
    };
    if (!checkpoint || checkpoint->tensors().size() != specs.size() || !sized()) {
        checkpoint.reset();
        if (!writeFile(
                path, specs, {},
                [&](std::size_t i, std::span<std::byte> out) { fill(specs[i], out, rows, cols); }, error)) {
            std::fprintf(stderr, "bench_quant: %s\n", error.c_str());
            return 1;
        }
        checkpoint = Checkpoint::open(path, error);
    }
    if (!checkpoint) {
        std::fprintf(stderr, "bench_quant: %s\n", error.c_str());
        return 1;
    }
    const QuantView view = QuantView::build(*checkpoint);
    AnalysisOptions options;
    options.bins
        = std::getenv("BENCH_BINS") ? static_cast<unsigned>(std::atoi(std::getenv("BENCH_BINS"))) : 64;
    options.digest = false;
    const Checkpoint::Tensor *plain = nullptr;
    for (const auto &t : checkpoint->tensors())
        if (t.info->name == "bf16.weight")
            plain = &t;
    const auto bytes = checkpoint->fileOf(*plain)->tensorBytes(*plain->info);
    const double elements = static_cast<double>(rows * cols);
    analyzeTensor(DType::BF16, bytes, rows * cols, options); // warm the page cache
    const double baseline = medianMs(5, [&] { analyzeTensor(DType::BF16, bytes, rows * cols, options); });
    std::printf("logical size %llu x %llu (%.0f M values), %u threads, %u bins\n",
        static_cast<unsigned long long>(rows), static_cast<unsigned long long>(cols), elements / 1e6,
        threadCount(), options.bins);
    std::printf("%-20s %10.1f ms %8.0f M values/s\n", "BF16 (baseline)", baseline, elements / baseline / 1e3);
    const char *only = std::getenv("BENCH_SCHEME"); // one scheme, for a profiler
    if (std::getenv("BENCH_VALUES")) {
        const std::uint64_t shownRows = std::min<std::uint64_t>(1000, rows), first = rows / 2 - shownRows / 2;
        std::vector<double> grid(shownRows * cols);
        const StridedView whole = wholeView(plain->info->shape);
        const double rowsBase = medianMs(
            9, [&] { readRect(DType::BF16, bytes, whole, first, shownRows, 0, cols, grid.data()); });
        const double heatBase
            = medianMs(5, [&] { summarizeHeatmap(DType::BF16, bytes, whole, 1024, 1024, error); });
        // The transposed plane (rows of the grid are the weight's columns): a 1000 × 64-cell
        // screenful and a heatmap of it.
        const std::uint64_t shownCols = std::min<std::uint64_t>(64, rows),
                            firstT = cols / 2 - std::min<std::uint64_t>(1000, cols) / 2,
                            shownT = std::min<std::uint64_t>(1000, cols);
        std::vector<double> tile(shownT * shownCols);
        const auto transposed = planeView(plain->info->shape, 1, 0, {}, error);
        bool baseOk = true;
        const double tBase = medianMs(9, [&] {
            baseOk = readRect(DType::BF16, bytes, *transposed, firstT, shownT, 0, shownCols, tile.data()) && baseOk;
        });
        if (!baseOk)
            std::printf("BF16 transposed rows: readRect failed\n");
        const double tHeatBase
            = medianMs(5, [&] { summarizeHeatmap(DType::BF16, bytes, *transposed, 1024, 1024, error); });
        std::printf("%-16s rows %8.2f ms  heatmap %8.1f ms  transposed rows %8.3f ms  heatmap %8.1f ms\n",
            "BF16 (baseline)", rowsBase, heatBase, tBase, tHeatBase);
        for (const auto &w : view.weights()) {
            if (only && quantSchemeName(w.scheme) != only)
                continue;
            const auto dq = Dequantizer::make(*checkpoint, w, error);
            if (!dq)
                continue;
            const double rowsMs = medianMs(9, [&] { decodeRows(*dq, first, shownRows, grid.data()); });
            const StridedView logical = wholeView(w.logicalShape);
            const double heatMs
                = medianMs(5, [&] { summarizeDequantizedHeatmap(*dq, logical, 1024, 1024, error); });
            // A 3-D weight (MXFP4's experts) has no such 2-D plane of the BF16 tensor's size.
            const auto logicalT = planeView(w.logicalShape, w.logicalShape.size() - 1, w.logicalShape.size() - 2, {}, error);
            const bool same = w.logicalShape == plain->info->shape && logicalT;
            bool ok = same;
            const double tMs = same ? medianMs(9, [&] {
                ok = decodeRect(*dq, *logicalT, firstT, shownT, 0, shownCols, tile.data()) && ok;
            })
                                    : NAN;
            if (!ok)
                std::printf("%-16s transposed rows: decodeRect failed\n", std::string(quantSchemeName(w.scheme)).c_str());
            const double tHeatMs = same
                ? medianMs(5, [&] { summarizeDequantizedHeatmap(*dq, *logicalT, 1024, 1024, error); })
                : NAN;
            std::printf("%-16s rows %8.2f ms (%.2fx BF16)  heatmap %8.1f ms (%.2fx BF16)  transposed rows "
                        "%8.3f ms (%.2fx BF16)  heatmap %8.1f ms (%.2fx BF16)\n",
                std::string(quantSchemeName(w.scheme)).c_str(), rowsMs, rowsBase / rowsMs, heatMs,
                heatBase / heatMs, tMs, tBase / tMs, tHeatMs, tHeatBase / tHeatMs);
        }
        if (!std::getenv("BENCH_KEEP"))
            std::remove(path.c_str());
        return 0;
    }
    struct Ratio {
        std::string label;
        double wall, cpu;
    };
    std::vector<Ratio> ratios;
    // The BF16 statistics and a scheme's timed in turn, seven times each, and each median: other
    // work on the machine comes and goes during a run, and this way it skews both alike.
    // The CPU time of all threads too: unlike wall time it does not count the slices other work on
    // a shared machine took.
    struct Times {
        double baseMs, ms, baseCpuMs, cpuMs;
    };
    const auto inTurn = [&](const auto &fn) {
        std::vector<double> base, timed, baseCpu, timedCpu;
        const auto bf16 = [&] { analyzeTensor(DType::BF16, bytes, rows * cols, options); };
        for (int r = 0; r < 7; ++r) {
            base.push_back(medianMs(1, bf16));
            timed.push_back(medianMs(1, fn));
            baseCpu.push_back(medianCpuMs(CLOCK_PROCESS_CPUTIME_ID, 1, bf16));
            timedCpu.push_back(medianCpuMs(CLOCK_PROCESS_CPUTIME_ID, 1, fn));
        }
        for (auto *v : { &base, &timed, &baseCpu, &timedCpu })
            std::sort(v->begin(), v->end());
        return Times { base[3], timed[3], baseCpu[3], timedCpu[3] };
    };
    for (const auto &w : view.weights()) {
        // GPTQ, AWQ and pack-quantized come in several widths: say which.
        std::string label(quantSchemeName(w.scheme));
        if (w.scheme == QuantScheme::Gptq || w.scheme == QuantScheme::Awq || w.scheme == QuantScheme::PackQuantized)
            label += " " + std::to_string(w.bits) + "-bit";
        if (only && quantSchemeName(w.scheme) != only && label != only)
            continue;
        const auto dq = Dequantizer::make(*checkpoint, w, error);
        if (!dq) {
            std::printf(
                "%-16s not decodable: %s\n", std::string(quantSchemeName(w.scheme)).c_str(), error.c_str());
            continue;
        }
        analyzeQuantized(*dq, options);
        const auto [baseMs, ms, baseCpuMs, cpuMs] = inTurn([&] { analyzeQuantized(*dq, options); });
        std::printf("%-20s %10.1f ms %8.0f M values/s  %.2fx BF16 (%.1f ms in turn)  CPU %.2fx  (%s)\n",
            label.c_str(), ms, elements / ms / 1e3, baseMs / ms, baseMs, baseCpuMs / cpuMs,
            (options.bins ? dq->countingPays() : dq->countingPaysWithoutHistogram()) ? "code counts"
                : dq->byteGroups()                                                   ? "byte groups"
                                                                                     : "decoded values");
        ratios.push_back({ label, baseMs / ms, baseCpuMs / cpuMs });
        // BENCH_BOTH=1: the decoding analyzer too (what every scheme ran before code counting).
        if (std::getenv("BENCH_BOTH") && dq->countingPays()) {
            analyzeQuantizedValues(*dq, options);
            const auto t = inTurn([&] { analyzeQuantizedValues(*dq, options); });
            std::printf("%-20s %10.1f ms %8.0f M values/s  %.2fx BF16 (%.1f ms in turn)  CPU %.2fx  (decoded values)\n",
                label.c_str(), t.ms, elements / t.ms / 1e3, t.baseMs / t.ms, t.baseMs, t.baseCpuMs / t.cpuMs);
        }
    }
    for (const auto &[label, ratio, cpu] : ratios)
        std::printf(
            "issue 13: %s dequantized stats / BF16 stats, %u bins%s = %.2f (target >= 0.5; CPU time %.2f)\n",
            label.c_str(), options.bins, heavyWanted() ? ", heavy-tailed codes" : "", ratio, cpu);
    if (!std::getenv("BENCH_KEEP"))
        std::remove(path.c_str());
    return 0;
}
