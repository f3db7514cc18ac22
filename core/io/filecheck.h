#pragma once

// `check` of one .safetensors file.
#include "core/format/headercheck.h"

#include <optional>
#include <string>

namespace stb {

// The file's header read (as SafetensorsFile::open reads it) and validated by checkHeader: the
// same findings as opening it, without the tensor list nobody looks at. nullopt and a reason
// when the path cannot be read (as SafetensorsFile::open).
std::optional<HeaderCheck> checkFile(const std::string &path, std::string &error);

} // namespace stb
