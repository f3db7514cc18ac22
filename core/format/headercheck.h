#pragma once

// `check`'s view of a header: the verdict and the findings, without the tensor list.
#include "core/format/diagnostic.h"

#include <cstddef>
#include <cstdint>
#include <span>

namespace stb {

struct HeaderCheck {
    DiagnosticList diagnostics; // exactly parseHeader's, in its order
    std::size_t tensorCount = 0; // the size of parseHeader's tensor list
};

// parseHeader's diagnostics without building Header::tensors: the same reading and the same
// validation (one implementation, header.cpp), only the tensor list is not made. A header of
// 100,000 tensors then costs no allocation per tensor (a name, a shape), which was most of
// `check`'s time. Same contract as parseHeader.
HeaderCheck checkHeader(std::span<const std::byte> prefix, std::uint64_t fileSize);

// The first error of a list: the reference's verdict (nullptr when it accepts the file).
const Diagnostic *firstError(const DiagnosticList &diagnostics);

} // namespace stb
