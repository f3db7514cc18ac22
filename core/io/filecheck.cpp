#include "core/io/filecheck.h"

#include "core/io/headerbytes.h"
#include "core/io/mappedfile.h"

namespace stb {

std::optional<HeaderCheck> checkFile(const std::string &path, std::string &error)
{
    const auto mapping = MappedFile::open(path, error);
    if (!mapping)
        return std::nullopt;
    std::optional<HeaderCheck> check;
    if (!parseHeaderInPlace(*mapping, error, [&](auto bytes) { check = checkHeader(bytes, mapping->size()); }))
        return std::nullopt;
    return check;
}

} // namespace stb
