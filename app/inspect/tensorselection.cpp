#include "tensorselection.h"

#include "core/text/textformat.h"
#include "core/values/slicespec.h"

#include <cstdio>

namespace stb::inspect {

std::optional<SelectedTensor> selectTensor(const Invocation &invocation)
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
    for (const Checkpoint::Tensor &tensor : selected.checkpoint->tensors()) {
        if (tensor.info->name == name) {
            selected.info = tensor.info;
            selected.file = selected.checkpoint->fileOf(tensor);
            break;
        }
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
    const auto view = parseSliceSpec(invocation.value(kSliceOption.name), selected.info->shape, error);
    if (!view) {
        std::fprintf(stderr, "%s: --slice: %s\n", printable(name).c_str(), error.c_str());
        return std::nullopt;
    }
    selected.view = *view;
    return selected;
}

} // namespace stb::inspect
