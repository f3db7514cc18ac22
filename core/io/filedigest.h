#pragma once

#include "core/io/mappedfile.h"
#include "core/stats/tensoranalyzer.h"

#include <stop_token>
#include <optional>
#include <string>

namespace stb {

// SHA-256 of a whole file as lowercase hex: what `sha256sum` prints and what the Hugging Face
// Hub shows as a file's LFS object id. Reads the mapping in order (OpenSSL's implementation,
// SHA-NI where the processor has it). nullopt when cancelled or the file shrank under the read.
std::optional<std::string> sha256Hex(const MappedFile &file, std::stop_token stop = {},
                                     const ProgressFn &progress = {});

} // namespace stb
