#include "core/io/filecheck.h"

#include "core/io/headerbytes.h"
#include "core/io/mappedfile.h"

namespace stb {

std::optional<HeaderCheck> checkFile(const std::string &path, std::string &error)
{
    const auto mapping = MappedFile::open(path, error);
    if (!mapping)
        return std::nullopt;
    HeaderBytes prefix;
    if (!prefix.read(*mapping, error))
        return std::nullopt;
    return checkHeader(prefix.bytes(), mapping->size());
}

} // namespace stb
