#pragma once

// The bytes parseHeader and checkHeader read, read in place from a file's mapping.
#include "core/io/busguard.h"
#include "core/io/mappedfile.h"

#include <cstddef>
#include <span>
#include <string>

namespace stb {

// A file's first min(size, 8 + N) bytes, N being the header length its first 8 bytes announce
// (only those 8 when N is over the reference's limit), in its mapping, their pages mapped with
// one call. Call it under readZerosWhereVanished (as parseHeaderInPlace does): it reads them.
std::span<const std::byte> headerPrefix(const MappedFile &file);

// Calls parse(headerPrefix(file)) with the bytes read in place, where a file truncated meanwhile
// reads zeros instead of raising SIGBUS: false and a reason when that happened (throw away what
// parse found). In place, not copied: copying an 11 MB header of 100,000 tensors out of the page
// cache into fresh memory (zeroed by the kernel, then written) was half of `check`'s CPU time
// (54–61 → 28–29 ms, perf stat -r 10).
template<typename Parse>
bool parseHeaderInPlace(const MappedFile &file, std::string &error, Parse &&parse)
{
    const bool intact = readZerosWhereVanished(file.bytes(), [&] { parse(headerPrefix(file)); });
    if (!intact)
        error = "the file changed on disk while it was being read";
    return intact;
}

} // namespace stb
