#include "core/layers/repeat.h"

#include "core/text/textformat.h"

namespace stb {

std::string_view deviationKindName(DeviationKind kind)
{
    switch (kind) {
    case DeviationKind::MissingRole:
        return "missing_role";
    case DeviationKind::ExtraRole:
        return "extra_role";
    case DeviationKind::DType:
        return "dtype";
    case DeviationKind::Shape:
        return "shape";
    }
    return "unknown";
}

std::size_t Repeat::blockCount() const
{
    std::size_t count = 0;
    for (std::size_t row = 0; row < rows(); ++row) {
        for (std::size_t column = 0; column < indices.size(); ++column) {
            for (std::size_t role = 0; role < roles.size(); ++role) {
                if (tensorAt(row, column, role) != kNoTensor) {
                    ++count;
                    break;
                }
            }
        }
    }
    return count;
}

std::string Repeat::label() const
{
    if (indices.empty())
        return prefix;
    std::string text = prefix + ".{" + std::to_string(indices.front());
    if (indices.size() > 1)
        text += "\u2013" + std::to_string(indices.back());
    text += "} \u00d7 " + formatCount(indices.size());
    if (nested())
        text += " in " + formatCount(outerIndices.size()) + (outerIndices.size() == 1 ? " block" : " blocks");
    return text;
}

std::string Repeat::blockName(std::size_t row, std::size_t column) const
{
    const std::string index = std::to_string(indices[column]);
    if (!nested())
        return prefix + "." + index;
    return outerPrefix + "." + std::to_string(outerIndices[row]) + "." + innerPath + "." + index;
}

std::string Repeat::tensorName(std::size_t position) const
{
    const std::size_t role = position % roles.size(), block = position / roles.size();
    return blockName(block / indices.size(), block % indices.size()) + "." + roles[role].name;
}

} // namespace stb
