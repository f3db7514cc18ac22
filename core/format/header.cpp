// parseHeader: the reference's SafeTensors::read_metadata, rule for rule, plus the warnings of
// rules.md. The JSON half is in headerjson.cpp, read with a strict pull reader (jsonreader.h): the
// reference's serde_json accepts some forms a DOM parser would lose (duplicate keys, a tensor entry
// written as a 3-element array, a dtype written as {"F32": null}) and rejects others (nesting past
// 127 levels, numbers beyond a double).
#include "core/format/header.h"

#include "core/format/headercheck.h"
#include "core/format/headerjson.h"
#include "core/format/jsonreader.h"
#include "core/format/prefault.h"
#include "core/text/textformat.h"

#include <algorithm>
#include <cstring>
#include <string_view>
#include <unordered_map>

namespace stb {

namespace {

// Metadata::validate of the reference: in file order, every tensor must start where the previous
// ended, and its size must be what dtype and shape call for. The first failure is the verdict;
// we go on to list the others for the viewer.
std::uint64_t validateTensors(
    Header &header, const HeaderEntries &entries, const std::vector<std::size_t> &order)
{
    std::uint64_t start = 0;
    const auto add = [&header](Diagnostic d) { header.diagnostics.add(std::move(d)); };
    for (std::size_t idx : order) {
        const TensorEntry &t = entries.tensors[idx];
        // Only for a message: escaping every name of a valid header was 3% of `check`.
        const auto name = [&t] { return quotedName(t.name); };
        if (t.begin != start || t.end < t.begin) {
            std::string why;
            if (t.end < t.begin)
                why = "ends (" + formatCount(t.end) + ") before it begins (" + formatCount(t.begin) + ")";
            else if (t.begin > start)
                why = "begins at " + formatCount(t.begin) + " but the previous tensor ends at "
                    + formatCount(start) + ": a hole of " + formatCount(t.begin - start) + " bytes";
            else
                why = "begins at " + formatCount(t.begin) + " but the previous tensor ends at "
                    + formatCount(start) + ": they overlap by " + formatCount(start - t.begin) + " bytes";
            add(diagnose(Rule::Offsets, "tensor " + name() + " data_offsets [" + std::to_string(t.begin) + ", "
                              + std::to_string(t.end) + "] " + why,
                          t.headerOffset, t.name));
        }
        const bool orderedExtent = t.end >= t.begin;
        start = t.end;
        const auto count = shapeElementCount(entries.shape(t));
        if (!count) {
            add(diagnose(Rule::Overflow,
                "tensor " + name() + ": the element count of shape " + formatShape(entries.shape(t))
                    + " overflows 64 bits",
                t.headerOffset, t.name));
            continue;
        }
        const unsigned bits = dtypeBits(t.dtype);
        if (*count > UINT64_MAX / bits) {
            add(diagnose(Rule::Overflow,
                "tensor " + name() + ": " + formatCount(*count) + " elements of "
                    + std::string(dtypeName(t.dtype)) + " overflow 64 bits of size",
                t.headerOffset, t.name));
            continue;
        }
        const std::uint64_t nbits = *count * bits;
        if (nbits % 8 != 0) {
            add(diagnose(Rule::SubByte,
                "tensor " + name() + ": " + formatCount(*count) + " elements of " + formatCount(bits) + "-bit "
                    + std::string(dtypeName(t.dtype)) + " make " + formatCount(nbits)
                    + " bits, not a whole number of bytes",
                t.headerOffset, t.name));
            continue;
        }
        if (orderedExtent && t.end - t.begin != nbits / 8) {
            add(diagnose(Rule::Size,
                "tensor " + name() + ": data_offsets span " + formatCount(t.end - t.begin) + " bytes but "
                    + std::string(dtypeName(t.dtype)) + " " + formatShape(entries.shape(t)) + " needs "
                    + formatCount(nbits / 8),
                t.headerOffset, t.name));
        }
    }
    return start;
}

void addWarnings(Header &header, std::string_view json, const HeaderEntries &entries,
    const std::vector<std::size_t> &order)
{
    auto &d = header.diagnostics;
    if (!json.empty() && (json[0] == ' ' || json[0] == '\n' || json[0] == '\t' || json[0] == '\r'))
        d.add(diagnose(Rule::LeadingWhitespace, "the header starts with whitespace before '{': the reference "
                                "accepts it, some other readers refuse it",
                                8));
    if (header.headerLength > kHubHeaderLimit)
        d.add(diagnose(Rule::LargeHeader,
            "the header is " + formatCount(header.headerLength)
                + " bytes: over 25,000,000, which the Hugging Face Hub's "
                  "readers refuse",
            0));

    std::size_t dtypeUse[kDTypeCount] = {};
    const TensorEntry *firstUse[kDTypeCount] = {};
    const TensorEntry *previous = nullptr;
    std::size_t misaligned = 0;
    for (std::size_t idx : order) {
        const TensorEntry &t = entries.tensors[idx];
        const auto di = static_cast<std::size_t>(t.dtype);
        if (dtypeUse[di]++ == 0)
            firstUse[di] = &t;
        if (previous && previous->begin == t.begin
            && (previous->byteLength() == 0 || t.byteLength() == 0)) {
            // The warning is about the zero-size one: name it and point at its own entry.
            const TensorEntry &empty = previous->byteLength() == 0 ? *previous : t;
            const TensorEntry &other = &empty == previous ? t : *previous;
            d.add(diagnose(Rule::SharedOffset,
                "zero-size tensor shares offset " + formatCount(t.begin) + " with " + quotedName(other.name),
                empty.headerOffset, empty.name));
        }
        previous = &t;
        const unsigned bytes = dtypeBits(t.dtype) / 8;
        const std::uint64_t fileOffset = header.dataStart + t.begin;
        if (bytes > 1 && t.byteLength() > 0 && fileOffset % bytes != 0) {
            if (++misaligned <= 100)
                d.add(diagnose(Rule::Misaligned,
                    "tensor " + quotedName(t.name) + " starts at file offset " + formatCount(fileOffset)
                        + ", not a multiple of its " + formatCount(bytes)
                        + "-byte element: zero-copy loaders must copy it",
                    fileOffset, t.name));
        }
    }
    if (misaligned > 100)
        d.add(diagnose(Rule::Misaligned,
            formatCount(misaligned - 100) + " more tensors are not aligned to their element size",
            header.dataStart));
    for (const auto &info : allDTypes()) {
        const auto di = static_cast<std::size_t>(info.dtype);
        if (dtypeUse[di] && !info.knownToOlderReaders)
            d.add(diagnose(Rule::NewDtype,
                formatCount(dtypeUse[di]) + " tensor(s) use " + std::string(info.name)
                    + ", which older safetensors readers do not know",
                firstUse[di]->headerOffset, firstUse[di]->name));
    }
    for (const auto &[key, value] : header.metadata) {
        if (isJsonContainerText(value))
            d.add(diagnose(Rule::MetadataJson, "__metadata__ value of " + quotedName(key) + " holds JSON text",
                                    8));
    }
}

// Indices of `tensors` sorted by (begin, end, name): the order of the bytes in the file. Writers
// put the entries of most files in that order already: then one pass finds it, no sort.
template<typename Tensor> std::vector<std::size_t> sortedByExtent(const std::vector<Tensor> &tensors)
{
    const auto before = [](const Tensor &x, const Tensor &y) {
        if (x.begin != y.begin)
            return x.begin < y.begin;
        if (x.end != y.end)
            return x.end < y.end;
        return std::string_view(x.name) < std::string_view(y.name);
    };
    std::vector<std::size_t> order;
    order.reserve(tensors.size());
    prefaultForWriting(order.data(), tensors.size() * sizeof(std::size_t));
    order.resize(tensors.size());
    for (std::size_t i = 0; i < order.size(); ++i)
        order[i] = i;
    const auto inOrder = std::adjacent_find(tensors.begin(), tensors.end(),
                             [&before](const Tensor &x, const Tensor &y) { return before(y, x); })
        == tensors.end();
    if (!inOrder)
        std::sort(order.begin(), order.end(),
            [&tensors, &before](std::size_t a, std::size_t b) { return before(tensors[a], tensors[b]); });
    return order;
}

// Everything parseHeader does but build Header::tensors: the entries are left in `entries`,
// their names viewing `prefix`.
void readHeader(
    std::span<const std::byte> prefix, std::uint64_t fileSize, Header &header, HeaderEntries &entries)
{
    header.fileSize = fileSize;
    if (fileSize < 8 || prefix.size() < 8) {
        header.diagnostics.add(diagnose(Rule::HeaderTooSmall,
            "the file has " + formatCount(fileSize) + " bytes: fewer than the 8 that hold the header length",
            0));
        header.dataStart = fileSize;
        return;
    }
    std::uint64_t n = 0;
    for (int i = 7; i >= 0; --i)
        n = (n << 8) | std::to_integer<std::uint64_t>(prefix[static_cast<std::size_t>(i)]);
    header.headerLength = n;
    header.dataStart = std::min<std::uint64_t>(fileSize, n > fileSize ? fileSize : 8 + n);
    if (n > kMaxHeaderLength) {
        header.diagnostics.add(diagnose(Rule::HeaderTooLarge,
            "the header length is " + formatCount(n)
                + " bytes: more than the 100,000,000 the reference accepts",
            0));
        return;
    }
    if (8 + n > fileSize || 8 + n > prefix.size()) {
        header.diagnostics.add(diagnose(Rule::HeaderLength,
            "the header length says the header ends at byte " + formatCount(8 + n) + " but the file has only "
                + formatCount(fileSize) + " bytes",
            0));
        return;
    }
    const std::string_view json(reinterpret_cast<const char *>(prefix.data()) + 8, n);
    // The reference checks UTF-8 first. The reader checks every string's as it goes, and admits
    // only ASCII outside them: JSON read without a problem is valid UTF-8, and the separate pass
    // (a tenth of `check` on 11 MB) is needed only when something was found.
    const bool jsonProblems = readHeaderJson(json, header, entries);
    if (jsonProblems) {
        if (const auto bad = findInvalidUtf8(json); bad != std::string_view::npos) {
            header.diagnostics = {};
            header.metadata.clear();
            header.hasMetadata = false;
            entries = {};
            header.diagnostics.add(diagnose(Rule::HeaderUtf8,
                "the header is not valid UTF-8 (byte " + formatCount(8 + bad) + ")", 8 + bad));
            return;
        }
    }
    const auto order = sortedByExtent(entries.tensors);
    if (!jsonProblems) {
        const std::size_t before = header.errorCount();
        const std::uint64_t dataEnd = validateTensors(header, entries, order);
        // The reference adds in usize without a check; match its (wrapping) arithmetic.
        if (header.errorCount() == before && dataEnd + 8 + n != fileSize) {
            const std::uint64_t tensorEnd = 8 + n + dataEnd;
            if (dataEnd <= fileSize - 8 - n)
                header.diagnostics.add(diagnose(Rule::Coverage,
                    "the tensors end at byte " + formatCount(tensorEnd) + " but the file goes on to "
                        + formatCount(fileSize) + ": " + formatCount(fileSize - tensorEnd)
                        + " trailing bytes",
                    tensorEnd));
            else {
                // The first tensor cut short (the tensors are contiguous in `order` here).
                const std::uint64_t held = fileSize - 8 - n;
                std::string_view cut;
                for (const std::size_t t : order) {
                    if (entries.tensors[t].end > held) {
                        cut = entries.tensors[t].name;
                        break;
                    }
                }
                header.diagnostics.add(diagnose(Rule::Coverage,
                    "the tensors need " + formatCount(dataEnd) + " bytes of data but the file holds "
                        + formatCount(held) + " after the header: it is truncated"
                        + (cut.empty() ? std::string() : ", from tensor " + quotedName(cut) + " on"),
                    fileSize, cut));
            }
        }
    }
    // Errors first, in the order found (the reference's order), then warnings.
    header.diagnostics.putErrorsFirst();
    addWarnings(header, json, entries, order);
}

} // namespace

const Diagnostic *firstError(const DiagnosticList &diagnostics)
{
    for (const auto &d : diagnostics) {
        if (d.isError())
            return &d;
    }
    return nullptr;
}

const Diagnostic *Header::verdict() const
{
    return firstError(diagnostics);
}

std::size_t Header::errorCount() const
{
    return static_cast<std::size_t>(std::count_if(
        diagnostics.begin(), diagnostics.end(), [](const Diagnostic &d) { return d.isError(); }));
}

std::size_t Header::warningCount() const
{
    return diagnostics.size() - errorCount();
}

std::vector<std::size_t> Header::fileOrder() const
{
    return sortedByExtent(tensors);
}

Header parseHeader(std::span<const std::byte> prefix, std::uint64_t fileSize)
{
    Header header;
    HeaderEntries entries;
    readHeader(prefix, fileSize, header, entries);
    auto &tensors = header.tensors;
    tensors.reserve(entries.tensors.size());
    // 88 bytes an entry, written once each: 8.8 MB for 100,000, a third of the page faults of
    // opening such a file when touched page by page.
    prefaultForWriting(tensors.data(), tensors.capacity() * sizeof(TensorInfo));
    for (const TensorEntry &entry : entries.tensors) {
        TensorInfo &info = tensors.emplace_back();
        info.name.assign(entry.name);
        info.dtype = entry.dtype;
        const auto shape = entries.shape(entry);
        info.shape.assign(shape.begin(), shape.end());
        info.begin = entry.begin;
        info.end = entry.end;
        info.headerOffset = entry.headerOffset;
    }
    return header;
}

HeaderCheck checkHeader(std::span<const std::byte> prefix, std::uint64_t fileSize)
{
    Header header;
    HeaderEntries entries;
    readHeader(prefix, fileSize, header, entries);
    return { std::move(header.diagnostics), entries.tensors.size() };
}

} // namespace stb
