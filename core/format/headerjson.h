#pragma once

#include "core/format/header.h"
#include "core/format/headerentries.h"

#include <string_view>

namespace stb {

// Reads a header's JSON text: the tensor entries into `entries` (their names view `json`, which
// must outlive them), metadata, header-json errors and the duplicate warnings into `header`
// (its tensors are left alone), accepting exactly what the reference's serde_json/serde derive accept.
// Semantic problems (an unknown dtype, a negative dimension, a missing field) are recorded and
// reading goes on, so that every readable entry survives; a syntax error stops it. Returns
// whether any header-json problem was found (the reference would stop there).
bool readHeaderJson(std::string_view json, Header &header, HeaderEntries &entries);

} // namespace stb
