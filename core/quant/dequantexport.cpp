#include "core/quant/dequantexport.h"

#include "core/io/busguard.h"
#include "core/quant/dequantvalues.h"
#include "core/values/atomicfile.h"
#include "core/values/npyexport.h"

#include <algorithm>
#include <bit>
#include <cstring>
#include <vector>

namespace stb {

namespace {

constexpr std::uint64_t kRun = 1 << 16; // floats decoded and written at a time

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
    const std::vector<std::uint64_t> shape = view.shape();
    const std::string header = npyHeader(kDequantizedNpyDescr, shape);
    if (header.empty()) {
        error = "the shape has too many dimensions for a .npy version 1.0 header";
        return false;
    }
    const std::uint64_t elements = view.elementCount();
    if (elements > 0) {
        std::vector<std::uint64_t> last(shape.size());
        for (std::size_t k = 0; k < shape.size(); ++k)
            last[k] = shape[k] - 1;
        if (view.sourceIndex(last) >= dequantizer.elements()) {
            error = "the view leaves the weight's logical shape";
            return false;
        }
    }
    AtomicFile file;
    if (!file.open(outPath, sourcePath, error) || !file.write(header.data(), header.size(), error))
        return false;
    // C order as runs along the last axis, the outer axes counted like an odometer.
    const std::uint64_t inner = shape.empty() ? 1 : shape.back();
    const std::uint64_t innerStride = shape.empty() ? 1 : view.axes.back().stride;
    std::vector<std::uint64_t> outer(shape.empty() ? 0 : shape.size() - 1, 0);
    std::vector<float> buffer(std::min<std::uint64_t>(kRun, std::max<std::uint64_t>(inner, 1)));
    std::uint64_t done = 0;
    for (std::uint64_t runs = elements ? elements / inner : 0; runs > 0; --runs) {
        const std::uint64_t runStart = view.sourceIndex(outer);
        for (std::uint64_t i = 0; i < inner; i += kRun) {
            if (stop.stop_requested()) {
                error = "cancelled";
                return false; // the AtomicFile removes what was written
            }
            RunJob job { &dequantizer, runStart + i * innerStride, innerStride, std::min(kRun, inner - i),
                buffer.data() };
            if (!runGuarded(runDecode, &job)) {
                error = "the weight's bytes vanished while reading (the file was truncated)";
                return false;
            }
            if (!file.write(buffer.data(), job.n * sizeof(float), error))
                return false;
            done += job.n;
            if (progress)
                progress(done, elements);
        }
        for (std::size_t k = outer.size(); k-- > 0;) {
            if (++outer[k] < shape[k])
                break;
            outer[k] = 0;
        }
    }
    return file.commit(error);
}

} // namespace stb
