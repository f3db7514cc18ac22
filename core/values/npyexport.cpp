#include "core/values/npyexport.h"

#include "core/io/busguard.h"
#include "core/values/atomicfile.h"
#include "core/values/valuereader.h"

#include <algorithm>
#include <cstring>
#include <vector>

namespace stb {

namespace {

enum class Mode { Copy, Bool, Float32, Unpack };

constexpr std::uint64_t kRun = 4096; // elements encoded per guarded call

Mode modeOf(DType dtype, bool raw)
{
    const unsigned bits = dtypeBits(dtype);
    if (dtype == DType::BOOL)
        return Mode::Bool;
    if (bits < 8)
        return raw ? Mode::Unpack : Mode::Float32;
    const bool numpyHasIt = dtype != DType::BF16 && !(bits == 8 && dtypeInfo(dtype).kind == DTypeKind::Float);
    return numpyHasIt || raw ? Mode::Copy : Mode::Float32;
}

struct EncodeJob {
    DType dtype;
    Mode mode;
    unsigned itemSize;
    const std::byte *data;
    std::uint64_t dataSize;
    std::uint64_t first, stride, n;
    std::byte *out;
};

void encodeRun(void *context)
{
    const auto &job = *static_cast<const EncodeJob *>(context);
    switch (job.mode) {
    case Mode::Copy:
        if (job.stride == 1) {
            std::memcpy(job.out, job.data + job.first * job.itemSize, job.n * job.itemSize);
        } else {
            for (std::uint64_t i = 0; i < job.n; ++i)
                std::memcpy(job.out + i * job.itemSize,
                    job.data + (job.first + i * job.stride) * job.itemSize, job.itemSize);
        }
        return;
    case Mode::Bool:
        for (std::uint64_t i = 0; i < job.n; ++i)
            job.out[i] = static_cast<std::byte>(job.data[job.first + i * job.stride] != std::byte { 0 });
        return;
    case Mode::Unpack: {
        const std::span<const std::byte> bytes(job.data, job.dataSize);
        for (std::uint64_t i = 0; i < job.n; ++i)
            job.out[i] = static_cast<std::byte>(elementCode(job.dtype, bytes, job.first + i * job.stride));
        return;
    }
    case Mode::Float32: {
        double values[kRun];
        gatherValues(job.dtype, job.data, job.first, job.stride, job.n, values);
        for (std::uint64_t i = 0; i < job.n; ++i) {
            const auto f = static_cast<float>(values[i]);
            std::memcpy(job.out + 4 * i, &f, 4);
        }
        return;
    }
    }
}

} // namespace

NpyEncoding npyEncoding(DType dtype, bool raw)
{
    const Mode mode = modeOf(dtype, raw);
    const std::string name(dtypeName(dtype));
    switch (mode) {
    case Mode::Bool:
        return { "|b1", 1, false, {} };
    case Mode::Float32:
        return { "<f4", 4, true, name + " written as float32 values (exact)" };
    case Mode::Unpack:
        return { "|u1", 1, false, name + " written as raw codes, one uint8 per element" };
    case Mode::Copy:
        break;
    }
    const unsigned size = dtypeBits(dtype) / 8;
    const char *endian = size == 1 ? "|" : "<";
    switch (dtypeInfo(dtype).kind) {
    case DTypeKind::Signed:
        return { endian + std::string("i") + std::to_string(size), size, false, {} };
    case DTypeKind::Complex:
        return { "<c8", 8, false, {} };
    case DTypeKind::Float:
        if (dtype == DType::F16 || dtype == DType::F32 || dtype == DType::F64)
            return { "<f" + std::to_string(size), size, false, {} };
        return { endian + std::string("u") + std::to_string(size), size, false,
            name + " written as raw codes (uint" + std::to_string(size * 8) + ")" };
    default:
        return { endian + std::string("u") + std::to_string(size), size, false, {} };
    }
}

std::string npyHeader(const std::string &descr, std::span<const std::uint64_t> shape)
{
    std::string dict = "{'descr': '" + descr + "', 'fortran_order': False, 'shape': (";
    for (std::size_t k = 0; k < shape.size(); ++k)
        dict += std::to_string(shape[k]) + (shape.size() == 1 ? "," : k + 1 < shape.size() ? ", " : "");
    dict += "), }";
    const std::size_t preamble = 10; // magic (6), version (2), header length (2)
    const std::size_t total = (preamble + dict.size() + 1 + 63) / 64 * 64;
    const std::size_t headerLength = total - preamble;
    if (headerLength > 0xFFFF)
        return {};
    dict.append(headerLength - dict.size() - 1, ' ');
    dict += '\n';
    std::string out = "\x93NUMPY";
    out += '\x01';
    out += '\x00';
    out += static_cast<char>(headerLength & 0xFF);
    out += static_cast<char>(headerLength >> 8);
    return out + dict;
}

bool writeNpy(const std::string &outPath, const std::string &sourcePath, const NpySource &source,
    const StridedView &view, std::string &error, std::stop_token stop, const ProgressFn &progress)
{
    const std::vector<std::uint64_t> shape = view.shape();
    const std::string header = npyHeader(source.descr, shape);
    if (header.empty()) {
        error = "the shape has too many dimensions for a .npy version 1.0 header";
        return false;
    }
    const std::uint64_t elements = view.elementCount();
    if (elements > 0) {
        std::vector<std::uint64_t> last(shape.size());
        for (std::size_t k = 0; k < shape.size(); ++k)
            last[k] = shape[k] - 1;
        if (view.sourceIndex(last) >= source.elements) {
            error = source.outside;
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
    const std::uint64_t run = std::max<std::uint64_t>(1, source.runElements);
    std::vector<std::byte> buffer(std::min(run, std::max<std::uint64_t>(inner, 1)) * source.itemSize);
    std::uint64_t done = 0;
    for (std::uint64_t runs = elements ? elements / inner : 0; runs > 0; --runs) {
        const std::uint64_t runStart = view.sourceIndex(outer);
        for (std::uint64_t i = 0; i < inner; i += run) {
            if (stop.stop_requested()) {
                error = "cancelled";
                return false; // the AtomicFile removes what was written
            }
            const std::uint64_t n = std::min(run, inner - i);
            if (!source.encodeRun(runStart + i * innerStride, innerStride, n, buffer.data())) {
                error = source.vanished;
                return false;
            }
            if (!file.write(buffer.data(), n * source.itemSize, error))
                return false;
            done += n;
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

bool exportNpy(const std::string &outPath, const std::string &sourcePath, DType dtype,
    std::span<const std::byte> bytes, const StridedView &view, bool raw, std::string &error,
    std::stop_token stop, const ProgressFn &progress)
{
    const NpyEncoding encoding = npyEncoding(dtype, raw);
    const Mode mode = modeOf(dtype, raw);
    NpySource source { encoding.descr, encoding.itemSize, elementsIn(dtype, bytes),
        "the tensor's data is shorter than its shape (the file is truncated)",
        "the tensor's bytes vanished while reading (the file was truncated)", kRun, {} };
    source.encodeRun = [&](std::uint64_t first, std::uint64_t stride, std::uint64_t n, std::byte *out) {
        EncodeJob job { dtype, mode, encoding.itemSize, bytes.data(), bytes.size(), first, stride, n, out };
        return runGuarded(encodeRun, &job);
    };
    return writeNpy(outPath, sourcePath, source, view, error, std::move(stop), progress);
}

} // namespace stb
