// libFuzzer entry for the quantization readers: any bytes, seen as a .safetensors file, go through
// scheme recognition (names, dtypes, shapes, bitsandbytes' quant_state JSON, compressed-tensors'
// weight_shape) and, for every weight found decodable, a dequantizing read of its first and last
// rows, the storage-order decode the statistics use, and locate. None may crash, read outside the
// file or allocate without bound. The bytes reach the core as a file (a memfd), as a user's would.
#include "core/io/checkpoint.h"
#include "core/quant/dequantizer.h"
#include "core/quant/dequantvalues.h"
#include "core/quant/quantanalyzer.h"
#include "core/quant/quantview.h"

#include <sys/mman.h>
#include <unistd.h>

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

namespace {

// The input as a file the core can open by path; -1 when the kernel refuses.
int fileOf(const std::uint8_t *data, std::size_t size)
{
    const int fd = memfd_create("fuzz_quant", 0);
    if (fd < 0)
        return -1;
    std::size_t written = 0;
    while (written < size) {
        const ssize_t n = write(fd, data + written, size - written);
        if (n <= 0) {
            close(fd);
            return -1;
        }
        written += static_cast<std::size_t>(n);
    }
    return fd;
}

void readWeight(const stb::Checkpoint &checkpoint, const stb::QuantizedWeight &weight)
{
    std::string error;
    const auto dequantizer = stb::Dequantizer::make(checkpoint, weight, error);
    if (!dequantizer) {
        if (error.empty())
            __builtin_trap(); // a refusal always says why
        return;
    }
    // Decodable weights in a ≤ 4 KiB input are small; bound the work anyway.
    const std::uint64_t elements = dequantizer->elements();
    const std::uint64_t n = std::min<std::uint64_t>(elements, 4096);
    std::vector<float> values(n);
    if (n) {
        (void)dequantizer->decodeGuarded(0, n, values.data());
        (void)dequantizer->decodeGuarded(elements - n, n, values.data());
        auto scratch = dequantizer->makeScratch();
        (void)dequantizer->decodeStorageGuarded(elements - n, n, values.data(), scratch);
    }
    const std::uint64_t columns = dequantizer->columns();
    if (columns && columns <= 4096 && dequantizer->rows()) {
        std::vector<double> row(columns);
        (void)stb::decodeRows(*dequantizer, dequantizer->rows() - 1, 1, row.data());
    }
    if (elements <= (1u << 16)) {
        (void)stb::locateDequantized(*dequantizer, {}, {}, 1);
        // The statistics both ways: code counts (when the layout has them) and decoded values.
        (void)stb::analyzeQuantizedCodes(*dequantizer, stb::AnalysisOptions { 16, 1, false });
        (void)stb::analyzeQuantizedValues(*dequantizer, stb::AnalysisOptions { 16, 1, false });
    }
}

} // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t *data, std::size_t size)
{
    const int fd = fileOf(data, size);
    if (fd < 0)
        return 0;
    std::string error;
    const auto checkpoint = stb::Checkpoint::open("/proc/self/fd/" + std::to_string(fd), error);
    close(fd); // the mapping outlives the descriptor
    if (!checkpoint)
        return 0;
    const stb::QuantView view = stb::QuantView::build(*checkpoint);
    for (const auto &weight : view.weights())
        readWeight(*checkpoint, weight);
    return 0;
}
