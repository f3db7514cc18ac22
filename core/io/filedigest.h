#pragma once

#include "core/io/mappedfile.h"
#include "core/stats/tensoranalyzer.h"

#include <stop_token>
#include <optional>
#include <string>

namespace stb {

// Whether sha256Hex can run: OpenSSL's libcrypto is loaded on first use (see filedigest.cpp),
// and `error` says why not when it cannot be.
bool sha256Available(std::string &error);

// SHA-256 of a whole file as lowercase hex: what `sha256sum` prints and what the Hugging Face
// Hub shows as a file's LFS object id. Reads the mapping in order (OpenSSL's implementation,
// SHA-NI where the processor has it). nullopt when cancelled, when the file shrank under the
// read, or when sha256Available is false (ask it first to tell the user why).
std::optional<std::string> sha256Hex(const MappedFile &file, std::stop_token stop = {},
                                     const ProgressFn &progress = {});

} // namespace stb
