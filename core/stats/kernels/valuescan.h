#pragma once

// The value views' hot loops (core/values: locate and the heatmap summary) for contiguous F32,
// BF16 and F16 read in place from the mapping, in both kernel families: the AVX-512 one when it is
// enabled (kernelchoice.h, STB_KERNELS), else the portable one (GCC vectors of 8 floats, compiled
// for AVX2, AVX and the baseline). Each lane does exactly what the scalar definition below says
// for one value, so the results do not depend on the family. Decoding every element to double
// one at a time first left locate at a fifth of the audit's speed.
#include "core/format/dtype.h"

#include <cstddef>
#include <cstdint>

namespace stb::kernels {

// Whether the kernels below take this dtype (F32, BF16, F16: every value is exactly a float).
bool scansFloats(DType dtype);

// The smallest and largest of n contiguous values at p, or false when one of them is NaN or
// infinite (lo and hi are then meaningless). Which of -0 and +0 is reported is unspecified.
bool finiteRange(DType dtype, const std::byte *p, std::size_t n, float &lo, float &hi);

// `rows` rows of n contiguous values, row r at p + r·rowBytes, into running per-column values:
// for every finite x in column k, lo[k] = x < lo[k] ? x : lo[k], hi[k] = x > hi[k] ? x : hi[k],
// sum[k] += double(x). Values not finite are left out; the result is false when there was one
// (the caller counts them). Each column's sum is added row after row, so the sums are the same
// in every family. The vector kernels carry a column's running values in registers down a block
// of rows (8 rows read as 8 sequential streams) and store them once per block: loading and
// storing them for every row left the heatmap at a tenth of the read speed. Between blocks the
// arrays may hold the columns in a kernel's own order (BF16: even and odd columns apart); they
// are in column order again when the call returns. When `fresh`, the
// running values start from +Inf, −Inf and +0 rather than from what lo, hi and sum hold (which
// may be unwritten): the first block starts in registers, with no pass to fill the arrays first.
bool addRowsToColumns(DType dtype, const std::byte *p, std::size_t rowBytes, std::size_t rows, std::size_t n,
    float *lo, float *hi, double *sum, bool fresh = false);

// The AVX-512 family (kernels/valuescanavx512.cpp); callers use the functions above, which pick
// it when avx512::enabled().
namespace avx512 {
bool finiteRange(DType dtype, const std::byte *p, std::size_t n, float &lo, float &hi);
bool addRowsToColumns(DType dtype, const std::byte *p, std::size_t rowBytes, std::size_t rows, std::size_t n,
    float *lo, float *hi, double *sum, bool fresh);
} // namespace avx512

// The portable family's kernel on CPUs with AVX2, FMA and F16C (kernels/valuescanavx2.cpp); where
// they are missing, GCC's generic vectors in valuescan.cpp. addRowsToColumns above picks it.
namespace avx2 {
bool supported(); // the CPU has AVX2, FMA and F16C
bool enabled();   // supported and not switched off
// Tests switch it off to run (and compare with) the generic vectors on the same CPU.
void setEnabled(bool on);
bool addRowsToColumns(DType dtype, const std::byte *p, std::size_t rowBytes, std::size_t rows, std::size_t n,
    float *lo, float *hi, double *sum, bool fresh);
} // namespace avx2

// The scalar definitions, one value at a time: what every lane computes, and what the vector
// kernels run on the values left over after their last whole vector.
float floatAt(DType dtype, const std::byte *p, std::size_t i); // element i, exactly
bool finiteRangeScalar(DType dtype, const std::byte *p, std::size_t n, float &lo, float &hi);
bool addRowToColumnsScalar(DType dtype, const std::byte *p, std::size_t n, float *lo, float *hi, double *sum);
bool addRowsToColumnsScalar(DType dtype, const std::byte *p, std::size_t rowBytes, std::size_t rows, std::size_t n,
    float *lo, float *hi, double *sum);
// lo, hi and sum of n columns set to +Inf, −Inf and +0: where a fresh run starts.
void startColumns(std::size_t n, float *lo, float *hi, double *sum);

// Rows a vector kernel carries its running values down before storing them.
inline constexpr std::size_t kRowBlock = 8;

} // namespace stb::kernels
