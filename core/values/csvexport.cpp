#include "core/values/csvexport.h"

#include "core/values/atomicfile.h"
#include "core/values/valuereader.h"

#include <charconv>
#include <cmath>
#include <vector>

namespace stb {

namespace {

constexpr std::uint64_t kBlock = 4096; // values read and formatted at a time

void appendValue(std::string &line, double value, bool integer, bool float32)
{
    if (std::isnan(value)) {
        line += "nan";
        return;
    }
    if (std::isinf(value)) {
        line += value > 0 ? "inf" : "-inf";
        return;
    }
    char buffer[64];
    const auto result = integer
        ? std::to_chars(buffer, buffer + sizeof buffer, value, std::chars_format::fixed, 0)
        : float32 ? std::to_chars(buffer, buffer + sizeof buffer, static_cast<float>(value))
                  : std::to_chars(buffer, buffer + sizeof buffer, value);
    line.append(buffer, result.ptr);
}

} // namespace

bool writeCsv(const std::string &outPath, const std::string &sourcePath, const CsvSource &source,
    const StridedView &view, std::string &error, std::stop_token stop, const ProgressFn &progress)
{
    const auto matrix = asMatrix(view);
    if (!matrix) {
        error = "CSV holds one or two axes; this view has " + std::to_string(view.axes.size());
        return false;
    }
    const std::uint64_t elements = matrix->rows * matrix->cols;
    if (elements > kMaxCsvElements) {
        error = "CSV export is limited to " + std::to_string(kMaxCsvElements) + " values; this has "
            + std::to_string(elements) + " (export .npy instead)";
        return false;
    }
    if (elements > 0
        && view.base + (matrix->rows - 1) * matrix->rowStride + (matrix->cols - 1) * matrix->colStride
            >= source.elements) {
        error = source.outside;
        return false;
    }
    AtomicFile file;
    if (!file.open(outPath, sourcePath, error))
        return false;
    std::vector<double> values(kBlock);
    std::string line;
    std::uint64_t done = 0;
    for (std::uint64_t r = 0; r < matrix->rows && elements > 0; ++r) {
        line.clear();
        for (std::uint64_t c0 = 0; c0 < matrix->cols; c0 += kBlock) {
            if (stop.stop_requested()) {
                error = "cancelled";
                return false;
            }
            const std::uint64_t n = std::min(kBlock, matrix->cols - c0);
            const std::uint64_t first = view.base + r * matrix->rowStride + c0 * matrix->colStride;
            if (!source.readRun(first, matrix->colStride, n, values.data())) {
                error = source.unreadable;
                return false;
            }
            for (std::uint64_t i = 0; i < n; ++i) {
                if (c0 + i > 0)
                    line += ',';
                appendValue(line, values[i], source.integer, source.float32);
            }
        }
        line += '\n';
        if (!file.write(line.data(), line.size(), error))
            return false;
        done += matrix->cols;
        if (progress)
            progress(done, elements);
    }
    return file.commit(error);
}

bool exportCsv(const std::string &outPath, const std::string &sourcePath, DType dtype,
    std::span<const std::byte> bytes, const StridedView &view, std::string &error, std::stop_token stop,
    const ProgressFn &progress)
{
    const DTypeKind kind = dtypeInfo(dtype).kind;
    CsvSource source;
    source.elements = elementsIn(dtype, bytes);
    source.integer = kind != DTypeKind::Float && kind != DTypeKind::Complex;
    source.unreadable = "the tensor's bytes cannot be read (the file is truncated)";
    source.outside = source.unreadable; // a stored view lies inside its tensor unless bytes are missing
    source.readRun = [&](std::uint64_t first, std::uint64_t stride, std::uint64_t n, double *out) {
        return readStrided(dtype, bytes, first, stride, n, out);
    };
    return writeCsv(outPath, sourcePath, source, view, error, std::move(stop), progress);
}

} // namespace stb
