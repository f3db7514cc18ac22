#include "core/values/valuereader.h"

#include "core/format/decodebatch.h"
#include "core/io/busguard.h"

namespace stb {

namespace {

struct GatherJob {
    DType dtype;
    const std::byte *data;
    std::uint64_t first, stride, n;
    double *out;
};

void runGather(void *context)
{
    const auto &job = *static_cast<const GatherJob *>(context);
    gatherValues(job.dtype, job.data, job.first, job.stride, job.n, job.out);
}

} // namespace

std::uint64_t elementsIn(DType dtype, std::span<const std::byte> bytes)
{
    return bytes.size() / dtypeBits(dtype) * 8 + (bytes.size() % dtypeBits(dtype)) * 8 / dtypeBits(dtype);
}

void gatherValues(DType dtype, const std::byte *data, std::uint64_t first, std::uint64_t stride,
    std::uint64_t n, double *out)
{
    if (stride == 1 || n <= 1) {
        decodeBatch(dtype, data, first, n, out);
        return;
    }
    for (std::uint64_t i = 0; i < n; ++i)
        decodeBatch(dtype, data, first + i * stride, 1, out + i);
}

bool readStrided(DType dtype, std::span<const std::byte> bytes, std::uint64_t first, std::uint64_t stride,
    std::uint64_t n, double *out)
{
    if (n == 0)
        return true;
    const std::uint64_t available = elementsIn(dtype, bytes);
    if (first >= available || (n > 1 && (available - 1 - first) / (n - 1) < stride))
        return false;
    GatherJob job { dtype, bytes.data(), first, stride, n, out };
    return runGuarded(runGather, &job);
}

bool readRect(DType dtype, std::span<const std::byte> bytes, const StridedView &view, std::uint64_t row0,
    std::uint64_t rows, std::uint64_t col0, std::uint64_t cols, double *out)
{
    const auto matrix = asMatrix(view);
    if (!matrix || row0 > matrix->rows || rows > matrix->rows - row0 || col0 > matrix->cols
        || cols > matrix->cols - col0)
        return false;
    for (std::uint64_t r = 0; r < rows; ++r) {
        const std::uint64_t first = view.base + (row0 + r) * matrix->rowStride + col0 * matrix->colStride;
        if (!readStrided(dtype, bytes, first, matrix->colStride, cols, out + r * cols))
            return false;
    }
    return true;
}

} // namespace stb
