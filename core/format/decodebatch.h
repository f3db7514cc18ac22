#pragma once

#include "core/format/dtype.h"

#include <cstddef>
#include <cstdint>

namespace stb {

// Decodes elements [first, first+n) of a tensor's bytes into doubles, one tight loop per dtype
// (BF16 by a shift, other small types by a table built once, wide types by a load). For C64 the
// real parts go to `out` and the imaginary parts to `imaginary` (when given); for every other
// dtype `imaginary`, when given, is filled with zeros.
void decodeBatch(DType dtype, const std::byte *data, std::uint64_t first, std::uint64_t n, double *out,
                 double *imaginary = nullptr);

} // namespace stb
