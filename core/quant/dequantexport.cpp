#include "core/quant/dequantexport.h"

#include "core/io/busguard.h"
#include "core/quant/dequantvalues.h"
#include "core/values/csvexport.h"
#include "core/values/npyexport.h"

#include <algorithm>
#include <bit>
#include <cstring>
#include <vector>

namespace stb {

namespace {

constexpr std::uint64_t kRun = 1 << 16; // floats decoded and written at a time
constexpr const char *kOutside = "the view leaves the weight's logical shape";
constexpr const char *kVanished = "the weight's bytes vanished while reading (the file was truncated)";

struct RunJob {
    const Dequantizer *dequantizer;
    std::uint64_t first, stride, n;
    float *out;
};

void runDecode(void *context)
{
    const auto &job = *static_cast<const RunJob *>(context);
    decodeStrided(*job.dequantizer, job.first, job.stride, job.n, job.out);
}

} // namespace

bool exportDequantizedNpy(const std::string &outPath, const std::string &sourcePath,
    const Dequantizer &dequantizer, const StridedView &view, std::string &error, std::stop_token stop,
    const ProgressFn &progress)
{
    static_assert(std::endian::native == std::endian::little, "the .npy data is written as the floats lie");
    NpySource source { kDequantizedNpyDescr, sizeof(float), dequantizer.elements(), kOutside, kVanished, kRun,
        {} };
    source.encodeRun = [&](std::uint64_t first, std::uint64_t stride, std::uint64_t n, std::byte *out) {
        RunJob job { &dequantizer, first, stride, n, reinterpret_cast<float *>(out) };
        return runGuarded(runDecode, &job);
    };
    return writeNpy(outPath, sourcePath, source, view, error, std::move(stop), progress);
}

bool exportDequantizedCsv(const std::string &outPath, const std::string &sourcePath,
    const Dequantizer &dequantizer, const StridedView &view, std::string &error, std::stop_token stop,
    const ProgressFn &progress)
{
    CsvSource source;
    source.elements = dequantizer.elements();
    source.outside = kOutside;
    source.unreadable = kVanished;
    source.float32 = true;
    std::vector<float> floats;
    source.readRun = [&](std::uint64_t first, std::uint64_t stride, std::uint64_t n, double *out) {
        floats.resize(n);
        RunJob job { &dequantizer, first, stride, n, floats.data() };
        if (!runGuarded(runDecode, &job))
            return false;
        std::copy_n(floats.data(), n, out);
        return true;
    };
    return writeCsv(outPath, sourcePath, source, view, error, std::move(stop), progress);
}

} // namespace stb
