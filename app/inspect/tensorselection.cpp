#include "tensorselection.h"

#include "core/text/textformat.h"
#include "core/values/slicespec.h"

#include <cstdio>

namespace stb::inspect {

std::optional<SelectedTensor> selectTensor(const Invocation &invocation, bool dequantize)
{
    const std::string &path = invocation.files()[0];
    const std::string &name = invocation.files()[1];
    const std::string command(invocation.command().name);
    SelectedTensor selected;
    std::string error;
    selected.checkpoint = Checkpoint::open(path, error);
    if (!selected.checkpoint) {
        std::fprintf(stderr, "%s: cannot read: %s\n", printable(path).c_str(), error.c_str());
        return std::nullopt;
    }
    const auto &tensors = selected.checkpoint->tensors();
    std::size_t index = tensors.size();
    for (std::size_t t = 0; t < tensors.size(); ++t) {
        if (tensors[t].info->name == name) {
            index = t;
            break;
        }
    }
    // Recognition reads only the header and a few small tensors: done when it can matter.
    if (dequantize || index == tensors.size())
        selected.quant = std::make_shared<const QuantView>(QuantView::buildWithConfig(*selected.checkpoint));
    if (index == tensors.size() && selected.quant) {
        for (const QuantizedWeight &w : selected.quant->weights()) {
            if (w.name == name) {
                index = w.tensor;
                break;
            }
        }
    }
    if (index < tensors.size()) {
        selected.info = tensors[index].info;
        selected.file = selected.checkpoint->fileOf(tensors[index]);
    }
    if (!selected.info) {
        std::fprintf(stderr, "%s: no tensor named '%s'\n", printable(path).c_str(), printable(name).c_str());
        return std::nullopt;
    }
    const auto expected = selected.info->expectedBytes();
    if (!selected.file || !expected || !selected.file->complete(*selected.info)
        || selected.file->tensorBytes(*selected.info).size() < *expected) {
        std::fprintf(stderr, "%s: the bytes of '%s' cannot be read (the file is broken or cut short)\n",
            path.c_str(), printable(name).c_str());
        return std::nullopt;
    }
    selected.bytes = selected.file->tensorBytes(*selected.info).first(*expected);
    if (dequantize) {
        std::string why;
        selected.dequantized = dequantizedTensor(*selected.checkpoint, *selected.quant, index, &why);
        if (!why.empty())
            std::fprintf(
                stderr, "%s: its values stay raw: %s\n", printable(name).c_str(), printable(why).c_str());
    }
    const auto view = parseSliceSpec(invocation.value(kSliceOption.name),
        selected.dequantized ? selected.dequantized->weight->logicalShape : selected.info->shape, error);
    if (!view) {
        std::fprintf(stderr, "%s: --slice: %s\n", printable(name).c_str(), error.c_str());
        return std::nullopt;
    }
    selected.view = *view;
    return selected;
}

} // namespace stb::inspect
