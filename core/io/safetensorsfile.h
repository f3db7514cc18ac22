#pragma once

#include "core/format/header.h"
#include "core/io/mappedfile.h"

#include <memory>
#include <span>
#include <string>

namespace stb {

// One .safetensors file: its mapping and its parsed header. Immutable and shared; opening reads
// only the header (copied out of the mapping under a SIGBUS guard), never tensor data.
class SafetensorsFile {
public:
    // nullptr and a reason when the path cannot be read at all. A file that breaks the format
    // still opens: its Header carries the diagnostics and whatever entries could be read.
    static std::shared_ptr<const SafetensorsFile> open(const std::string &path, std::string &error);

    const std::string &path() const { return m_mapping->path(); }
    const Header &header() const { return m_header; }
    const MappedFile &mapping() const { return *m_mapping; }
    std::shared_ptr<const MappedFile> sharedMapping() const { return m_mapping; }

    // The tensor's bytes in the mapping, clipped to the file (a broken file's tensor may claim
    // bytes past its end); complete() tells whether nothing was clipped.
    std::span<const std::byte> tensorBytes(const TensorInfo &tensor) const;
    bool complete(const TensorInfo &tensor) const;
    // The one test before reading a tensor's values: its element count is known, its byte range
    // is what dtype and shape call for, and every byte of it lies inside the file.
    bool fullyReadable(const TensorInfo &tensor) const;

private:
    SafetensorsFile(std::shared_ptr<const MappedFile> mapping, Header header);

    std::shared_ptr<const MappedFile> m_mapping;
    Header m_header;
};

} // namespace stb
