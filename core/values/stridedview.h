#pragma once

#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <vector>

namespace stb {

// One axis of a view: `count` elements, `stride` source elements apart, taken from source axis
// `sourceAxis` (for messages and for turning a view index back into a tensor index).
struct ViewAxis {
    std::uint64_t count = 0;
    std::uint64_t stride = 0;
    std::size_t sourceAxis = 0;
};

// A strided N-D window onto a tensor stored in C order: element (i0, i1, …) of the view is source
// element base + Σ ik·stride_k. Every view here has positive strides and lies inside its tensor,
// so no index computed from it overflows or leaves the tensor.
struct StridedView {
    std::uint64_t base = 0;
    std::vector<ViewAxis> axes; // outermost first; empty for a scalar

    std::vector<std::uint64_t> shape() const;
    std::uint64_t elementCount() const; // 1 for a scalar, 0 when any axis is empty
    // Source flat index of the view element at `index` (one entry per axis, each in range).
    std::uint64_t sourceIndex(std::span<const std::uint64_t> index) const;
    // Source flat index of the view's `flat`-th element in C order (flat < elementCount()).
    std::uint64_t sourceIndexOfFlat(std::uint64_t flat) const;
};

// Row-major strides of a shape, in elements (wrapping harmlessly for shapes with a zero axis).
std::vector<std::uint64_t> rowMajorStrides(std::span<const std::uint64_t> shape);

// The whole tensor as a view (its own shape, C-order strides).
StridedView wholeView(std::span<const std::uint64_t> shape);

// The plane the value grid and the heatmap show: rows along `rowAxis`, columns along `colAxis`
// (different axes, either order, so a plane may be transposed), every other axis fixed at
// fixed[axis] (entries for the two shown axes are ignored; missing entries mean 0). nullopt and a
// message naming the axis when an axis or index is out of range.
std::optional<StridedView> planeView(std::span<const std::uint64_t> shape, std::size_t rowAxis,
    std::size_t colAxis, std::span<const std::uint64_t> fixed, std::string &error);

// A view of at most two axes seen as a matrix: a scalar is 1×1, one axis is a single row of it.
struct MatrixShape {
    std::uint64_t rows = 1, cols = 1;
    std::uint64_t rowStride = 0, colStride = 0;
};
std::optional<MatrixShape> asMatrix(const StridedView &view); // nullopt beyond two axes

// The N-D index of flat element `flat` of a tensor of `shape` (C order).
std::vector<std::uint64_t> unravelIndex(std::uint64_t flat, std::span<const std::uint64_t> shape);

} // namespace stb
