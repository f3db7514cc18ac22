#pragma once

#include "core/io/checkpoint.h"

#include <string>

namespace stb {

// Why a tensor's values cannot be read, in the words every report uses (audit findings, diff's
// unreadable pairs, the layers profile's warning): "bytes 78–86 lie past the end of the file
// (file is 78 bytes)", in a sharded model "… past the end of shard "s2.safetensors" (…)";
// "its shape and dtype call for 16 bytes but data_offsets span 8"; "its shard cannot be read".
// Empty when SafetensorsFile::fullyReadable holds. Header facts only: no tensor byte is read.
std::string unreadableReason(const Checkpoint &checkpoint, const Checkpoint::Tensor &tensor);

} // namespace stb
