#include "core/io/fileextents.h"

#include "core/io/busguard.h"
#include "core/io/safetensorsfile.h"

#include <algorithm>
#include <array>
#include <limits>
#include <set>

namespace stb {

namespace {

using Kind = Extent::Kind;

std::uint64_t saturatingAdd(std::uint64_t a, std::uint64_t b)
{
    return b > std::numeric_limits<std::uint64_t>::max() - a ? std::numeric_limits<std::uint64_t>::max()
                                                             : a + b;
}

// serde_json accepts exactly these after the closing brace; the reference writer pads with spaces.
bool isJsonSpace(std::byte b)
{
    return b == std::byte { ' ' } || b == std::byte { '\t' } || b == std::byte { '\n' }
    || b == std::byte { '\r' };
}

// Where the header's bytes inside the file end: 8 + N, clipped to the file.
std::uint64_t headerEndInFile(const Header &header)
{
    if (header.fileSize < 8)
        return header.fileSize;
    return std::min(saturatingAdd(8, header.headerLength), header.fileSize);
}

// Appends, merging with the previous extent when it continues it exactly.
void append(std::vector<Extent> &out, Extent extent)
{
    if (!out.empty() && extent.begin < extent.end) {
        Extent &last = out.back();
        if (last.begin < last.end && last.end == extent.begin && last.kind == extent.kind
            && last.tensor == extent.tensor && last.otherTensor == extent.otherTensor) {
            last.end = extent.end;
            return;
        }
    }
    out.push_back(extent);
}

void addHeaderExtents(const Header &header, std::uint64_t jsonEnd, std::vector<Extent> &out)
{
    const std::uint64_t fileSize = header.fileSize;
    const std::uint64_t inFile = headerEndInFile(header);
    if (fileSize > 0)
        out.push_back({ Kind::LengthPrefix, 0, std::min<std::uint64_t>(8, fileSize) });
    if (fileSize < 8) {
        out.push_back({ Kind::Missing, fileSize, 8 });
        return;
    }
    jsonEnd = std::clamp<std::uint64_t>(jsonEnd, 8, inFile);
    if (jsonEnd > 8)
        out.push_back({ Kind::Header, 8, jsonEnd });
    if (inFile > jsonEnd)
        out.push_back({ Kind::Padding, jsonEnd, inFile });
    const std::uint64_t claimed = saturatingAdd(8, header.headerLength);
    if (claimed > fileSize)
        out.push_back({ Kind::Missing, fileSize, claimed });
}

// A sweep over the tensors' start and end offsets, keeping the set of tensors that claim the
// bytes between two consecutive offsets: none is a hole (or trailing bytes), one a tensor, more
// an overlap. The offset of the end of the file is a stop too, so nothing straddles it.
void addDataExtents(const Header &header, std::vector<Extent> &out)
{
    const std::uint64_t fileSize = header.fileSize;
    const std::uint64_t dataStart = std::min(header.dataStart, fileSize);
    const std::size_t count = header.tensors.size();
    std::vector<std::uint64_t> begins(count), ends(count);
    std::uint64_t lastClaimed = dataStart;
    for (std::size_t i = 0; i < count; ++i) {
        const TensorInfo &t = header.tensors[i];
        begins[i] = saturatingAdd(dataStart, t.begin);
        ends[i] = saturatingAdd(dataStart, std::max(t.begin, t.end));
        lastClaimed = std::max(lastClaimed, ends[i]);
    }
    std::vector<std::size_t> byBegin, byEnd, empty;
    for (const std::size_t i : header.fileOrder())
        (begins[i] < ends[i] ? byBegin : empty).push_back(i);
    byEnd = byBegin;
    std::sort(byEnd.begin(), byEnd.end(), [&](std::size_t a, std::size_t b) { return ends[a] < ends[b]; });

    std::set<std::pair<std::uint64_t, std::size_t>> active; // (begin, index): earliest first
    std::size_t nextBegin = 0, nextEnd = 0, nextEmpty = 0;
    std::uint64_t pos = dataStart;
    for (;;) {
        for (; nextEnd < byEnd.size() && ends[byEnd[nextEnd]] <= pos; ++nextEnd)
            active.erase({ begins[byEnd[nextEnd]], byEnd[nextEnd] });
        for (; nextBegin < byBegin.size() && begins[byBegin[nextBegin]] <= pos; ++nextBegin)
            active.insert({ begins[byBegin[nextBegin]], byBegin[nextBegin] });
        for (; nextEmpty < empty.size() && begins[empty[nextEmpty]] <= pos; ++nextEmpty) {
            const auto i = empty[nextEmpty];
            out.push_back({ begins[i] <= fileSize ? Kind::Tensor : Kind::Missing, begins[i], begins[i],
                static_cast<std::ptrdiff_t>(i) });
        }
        std::uint64_t next = std::numeric_limits<std::uint64_t>::max();
        bool more = pos < fileSize;
        if (more)
            next = fileSize;
        if (nextBegin < byBegin.size())
            more = true, next = std::min(next, begins[byBegin[nextBegin]]);
        if (nextEnd < byEnd.size())
            more = true, next = std::min(next, ends[byEnd[nextEnd]]);
        if (nextEmpty < empty.size())
            more = true, next = std::min(next, begins[empty[nextEmpty]]);
        if (!more || next <= pos)
            break;
        const bool inFile = pos < fileSize;
        if (active.empty()) {
            if (inFile)
                append(out, { pos >= lastClaimed ? Kind::Trailing : Kind::Hole, pos, next });
        } else {
            auto it = active.begin();
            const auto first = static_cast<std::ptrdiff_t>(it->second);
            const auto second = active.size() > 1 ? static_cast<std::ptrdiff_t>((++it)->second) : -1;
            const Kind kind = !inFile ? Kind::Missing : second >= 0 ? Kind::Overlap : Kind::Tensor;
            append(out, { kind, pos, next, first, second });
        }
        pos = next;
    }
}

std::vector<Extent> buildExtents(const Header &header, std::uint64_t jsonEnd)
{
    std::vector<Extent> out;
    out.reserve(header.tensors.size() + 8);
    addHeaderExtents(header, jsonEnd, out);
    addDataExtents(header, out);
    // A header claiming bytes past the end puts its Missing extent before the data's.
    std::stable_sort(
        out.begin(), out.end(), [](const Extent &a, const Extent &b) { return a.begin < b.begin; });
    return out;
}

} // namespace

std::vector<Extent> fileExtents(const Header &header, std::span<const std::byte> headerBytes)
{
    std::uint64_t end = headerEndInFile(header);
    if (headerBytes.size() >= end) {
        while (end > 8 && isJsonSpace(headerBytes[static_cast<std::size_t>(end - 1)]))
            --end;
        if (end == 8) // nothing but spaces: not a header with padding
            end = headerEndInFile(header);
    }
    return buildExtents(header, end);
}

std::vector<Extent> fileExtents(const SafetensorsFile &file)
{
    const Header &header = file.header();
    const std::uint64_t headerEnd = headerEndInFile(header);
    std::uint64_t end = headerEnd;
    // Walk back from the header's end in small guarded reads: the padding is a few bytes.
    std::array<std::byte, 4096> chunk;
    bool allSpace = true;
    while (end > 8 && allSpace) {
        const std::uint64_t from = end - std::min<std::uint64_t>(end - 8, chunk.size());
        const auto length = static_cast<std::size_t>(end - from);
        const auto source = file.mapping().slice(from, length);
        if (source.size() != length || !guardedCopy(std::span(chunk).first(length), source)) {
            end = headerEnd;
            break;
        }
        std::size_t i = length;
        while (i > 0 && isJsonSpace(chunk[i - 1]))
            --i;
        allSpace = i == 0;
        end = from + i;
    }
    if (end == 8)
        end = headerEnd;
    return buildExtents(header, end);
}

std::ptrdiff_t extentAt(std::span<const Extent> extents, std::uint64_t offset)
{
    auto it = std::upper_bound(extents.begin(), extents.end(), offset,
        [](std::uint64_t value, const Extent &e) { return value < e.begin; });
    while (it != extents.begin()) {
        --it;
        if (offset < it->end)
            return it - extents.begin();
        if (it->begin < it->end) // a non-empty extent ending at or before the offset: none holds it
            break;
    }
    return -1;
}

} // namespace stb
