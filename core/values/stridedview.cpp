#include "core/values/stridedview.h"

namespace stb {

std::vector<std::uint64_t> StridedView::shape() const
{
    std::vector<std::uint64_t> dims;
    dims.reserve(axes.size());
    for (const ViewAxis &axis : axes)
        dims.push_back(axis.count);
    return dims;
}

std::uint64_t StridedView::elementCount() const
{
    // A view lies inside its tensor, whose element count fits 64 bits, so the product does too.
    std::uint64_t count = 1;
    for (const ViewAxis &axis : axes)
        count *= axis.count;
    return count;
}

std::uint64_t StridedView::sourceIndex(std::span<const std::uint64_t> index) const
{
    std::uint64_t source = base;
    for (std::size_t k = 0; k < axes.size() && k < index.size(); ++k)
        source += index[k] * axes[k].stride;
    return source;
}

std::uint64_t StridedView::sourceIndexOfFlat(std::uint64_t flat) const
{
    std::uint64_t source = base;
    for (std::size_t k = axes.size(); k-- > 0;) {
        const std::uint64_t count = axes[k].count;
        source += (flat % count) * axes[k].stride;
        flat /= count;
    }
    return source;
}

std::vector<std::uint64_t> rowMajorStrides(std::span<const std::uint64_t> shape)
{
    std::vector<std::uint64_t> strides(shape.size(), 1);
    for (std::size_t k = shape.size(); k-- > 1;)
        strides[k - 1] = strides[k] * shape[k];
    return strides;
}

StridedView wholeView(std::span<const std::uint64_t> shape)
{
    StridedView view;
    const std::vector<std::uint64_t> strides = rowMajorStrides(shape);
    for (std::size_t k = 0; k < shape.size(); ++k)
        view.axes.push_back({ shape[k], strides[k], k });
    return view;
}

std::optional<StridedView> planeView(std::span<const std::uint64_t> shape, std::size_t rowAxis,
    std::size_t colAxis, std::span<const std::uint64_t> fixed, std::string &error)
{
    if (rowAxis >= shape.size() || colAxis >= shape.size() || rowAxis == colAxis) {
        error = "the rows and columns must be two different axes of the " + std::to_string(shape.size())
            + " the tensor has";
        return std::nullopt;
    }
    const std::vector<std::uint64_t> strides = rowMajorStrides(shape);
    StridedView view;
    for (std::size_t k = 0; k < shape.size(); ++k) {
        if (k == rowAxis || k == colAxis)
            continue;
        const std::uint64_t index = k < fixed.size() ? fixed[k] : 0;
        if (index >= shape[k]) {
            error = "index " + std::to_string(index) + " is out of range for axis " + std::to_string(k)
                + " of size " + std::to_string(shape[k]);
            return std::nullopt;
        }
        view.base += index * strides[k];
    }
    view.axes
        = { { shape[rowAxis], strides[rowAxis], rowAxis }, { shape[colAxis], strides[colAxis], colAxis } };
    return view;
}

std::optional<MatrixShape> asMatrix(const StridedView &view)
{
    switch (view.axes.size()) {
    case 0:
        return MatrixShape {};
    case 1:
        return MatrixShape { 1, view.axes[0].count, 0, view.axes[0].stride };
    case 2:
        return MatrixShape { view.axes[0].count, view.axes[1].count, view.axes[0].stride,
            view.axes[1].stride };
    default:
        return std::nullopt;
    }
}

std::vector<std::uint64_t> unravelIndex(std::uint64_t flat, std::span<const std::uint64_t> shape)
{
    std::vector<std::uint64_t> index(shape.size(), 0);
    for (std::size_t k = shape.size(); k-- > 0;) {
        if (shape[k] == 0)
            continue;
        index[k] = flat % shape[k];
        flat /= shape[k];
    }
    return index;
}

} // namespace stb
