// libFuzzer entry for the slice-spec parser (safetensors-inspect --slice, the value grid): the
// first byte gives the number of axes (up to 6), the next that many bytes their sizes, the rest is
// the spec. Any input must parse or fail with a message, never crash or hang, and a view it
// returns must stay inside the tensor.
#include "core/values/slicespec.h"

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t *data, std::size_t size)
{
    if (size == 0)
        return 0;
    const std::size_t axes = std::min<std::size_t>(data[0] % 7, size - 1);
    std::vector<std::uint64_t> shape(data + 1, data + 1 + axes);
    const std::string_view spec(reinterpret_cast<const char *>(data + 1 + axes), size - 1 - axes);
    std::uint64_t elements = 1;
    for (std::uint64_t dim : shape)
        elements *= dim;

    std::string error;
    const auto view = stb::parseSliceSpec(spec, shape, error);
    if (!view) {
        if (error.empty())
            __builtin_trap();
        return 0;
    }
    if (view->axes.size() > shape.size())
        __builtin_trap();
    const std::uint64_t count = view->elementCount();
    if (count > elements)
        __builtin_trap();
    // Every element (the first few thousand) lies inside the tensor.
    for (std::uint64_t flat = 0; flat < count && flat < 4096; ++flat) {
        if (view->sourceIndexOfFlat(flat) >= elements)
            __builtin_trap();
    }
    if (count > 0 && view->sourceIndexOfFlat(count - 1) >= elements)
        __builtin_trap();
    return 0;
}
