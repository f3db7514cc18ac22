// parseHeader: the reference's SafeTensors::read_metadata, rule for rule, plus the warnings of
// rules.md. The JSON is read with a strict pull reader (jsonreader.h) because the reference's
// serde_json accepts some forms a DOM parser would lose (duplicate keys, a tensor entry written
// as a 3-element array, a dtype written as {"F32": null}) and rejects others (nesting past 127
// levels, numbers beyond a double).
#include "core/header.h"

#include "core/format.h"
#include "core/jsonreader.h"

#include <algorithm>
#include <cstring>
#include <string_view>
#include <unordered_map>

namespace stb {

namespace {

constexpr std::size_t kMaxStoredDiagnostics = 10'000;

Diagnostic makeError(std::string rule, std::string reference, std::string message,
                     std::uint64_t offset, std::string tensor = {})
{
    return {Severity::Error, std::move(rule), std::move(reference), std::move(message), offset,
            std::move(tensor)};
}

Diagnostic makeWarning(std::string rule, std::string message, std::uint64_t offset,
                       std::string tensor = {})
{
    return {Severity::Warning, std::move(rule), {}, std::move(message), offset, std::move(tensor)};
}

// Reads the header JSON into a Header. Semantic problems (an unknown dtype, a negative
// dimension, a missing field) are recorded and reading goes on, so that every readable entry
// survives; a syntax error stops it.
class JsonHeaderReader {
public:
    JsonHeaderReader(std::string_view json, Header &header)
        : m_json(json)
        , m_reader(json)
        , m_header(header)
    {
    }

    void read()
    {
        if (m_reader.peek() != JsonReader::Kind::Object) {
            if (m_reader.peek() == JsonReader::Kind::Invalid && !m_reader.failed())
                m_reader.fail(m_reader.position() >= m_json.size() ? "the header is empty"
                                                                    : "the header is not JSON",
                              m_reader.position());
            else
                m_reader.fail("the header is JSON but not an object", m_reader.position());
        } else {
            m_reader.beginObject();
            std::string key;
            while (true) {
                const std::size_t keyPos = m_reader.position();
                if (!m_reader.nextKey(key))
                    break;
                const std::size_t keyStart = m_json.find('"', keyPos);
                if (key == "__metadata__")
                    readMetadata(keyStart);
                else
                    readTensor(std::move(key), keyStart);
                key = std::string();
            }
            if (!m_reader.failed())
                m_reader.atEnd();
        }
        if (m_reader.failed()) {
            addProblem("header JSON: " + m_reader.error(), m_reader.errorPosition(), {});
        }
        resolveDuplicateNames();
    }

    bool hadProblem() const { return m_problems; }

private:
    std::uint64_t fileOffset(std::size_t jsonPos) const { return 8 + jsonPos; }

    void addProblem(std::string message, std::size_t jsonPos, std::string tensor)
    {
        m_problems = true;
        if (m_header.diagnostics.size() < kMaxStoredDiagnostics)
            m_header.diagnostics.push_back(makeError("header-json", "InvalidHeaderDeserialization",
                                                     std::move(message), fileOffset(jsonPos),
                                                     std::move(tensor)));
    }

    // Consumes the rest of the innermost open object or array.
    void finishObject()
    {
        std::string key;
        while (m_reader.nextKey(key))
            m_reader.skipValue();
    }
    void finishArray()
    {
        while (m_reader.nextElement())
            m_reader.skipValue();
    }

    // One non-negative integer (a usize for the reference). Always consumes one value.
    bool readUnsigned(std::uint64_t &value, std::string &problem)
    {
        if (m_reader.peek() != JsonReader::Kind::Number) {
            m_reader.skipValue();
            problem = "expected a non-negative integer";
            return false;
        }
        JsonReader::Number number;
        if (!m_reader.readNumber(number))
            return false;
        if (number.type == JsonReader::Number::Type::Unsigned) {
            value = number.value;
            return true;
        }
        problem = number.type == JsonReader::Number::Type::Negative
            ? "expected a non-negative integer, found a negative number"
            : "expected a non-negative integer, found a fraction or a number beyond 2^64";
        return false;
    }

    bool readShape(std::vector<std::uint64_t> &shape, std::string &problem)
    {
        if (m_reader.peek() != JsonReader::Kind::Array) {
            m_reader.skipValue();
            problem = "shape is not an array";
            return false;
        }
        m_reader.beginArray();
        bool ok = true;
        while (m_reader.nextElement()) {
            std::uint64_t dim = 0;
            std::string dimProblem;
            if (readUnsigned(dim, dimProblem)) {
                shape.push_back(dim);
            } else if (ok) {
                ok = false;
                problem = "shape: " + dimProblem;
            }
        }
        return ok && !m_reader.failed();
    }

    bool readOffsets(std::uint64_t &begin, std::uint64_t &end, std::string &problem)
    {
        if (m_reader.peek() != JsonReader::Kind::Array) {
            m_reader.skipValue();
            problem = "data_offsets is not an array";
            return false;
        }
        m_reader.beginArray();
        std::uint64_t values[2] = {0, 0};
        std::size_t count = 0;
        bool ok = true;
        while (m_reader.nextElement()) {
            std::uint64_t v = 0;
            std::string vProblem;
            const bool read = readUnsigned(v, vProblem);
            if (count < 2 && read)
                values[count] = v;
            else if (ok && !read) {
                ok = false;
                problem = "data_offsets: " + vProblem;
            }
            ++count;
        }
        if (ok && count != 2) {
            ok = false;
            problem = "data_offsets must hold exactly two integers [BEGIN, END], found "
                + std::to_string(count);
        }
        begin = values[0];
        end = values[1];
        return ok && !m_reader.failed();
    }

    // A dtype is a string naming a variant, or (serde's other enum form) an object with a
    // single variant key whose value is null.
    bool readDType(DType &dtype, std::string &problem)
    {
        const auto kind = m_reader.peek();
        std::string name;
        if (kind == JsonReader::Kind::String) {
            if (!m_reader.readString(name))
                return false;
        } else if (kind == JsonReader::Kind::Object) {
            m_reader.beginObject();
            if (!m_reader.nextKey(name)) {
                problem = "dtype is an empty object";
                return false;
            }
            const auto valueKind = m_reader.peek();
            // Through flatten's buffered content, a unit variant's value must be null itself
            // ({} is refused there; checked against serde's ContentRefDeserializer).
            bool unitValue = false;
            if (valueKind == JsonReader::Kind::Null)
                unitValue = m_reader.readNull();
            else
                m_reader.skipValue();
            std::string extra;
            const bool moreKeys = m_reader.nextKey(extra);
            if (moreKeys) {
                m_reader.skipValue();
                finishObject();
                problem = "dtype object has more than one key";
                return false;
            }
            if (!unitValue) {
                problem = "dtype object's value must be null";
                return false;
            }
        } else {
            m_reader.skipValue();
            problem = "dtype is not a string";
            return false;
        }
        if (const auto parsed = dtypeFromName(name)) {
            dtype = *parsed;
            return true;
        }
        problem = "unknown dtype \"" + printable(name) + "\"";
        return false;
    }

    void readTensor(std::string name, std::size_t keyPos)
    {
        TensorInfo tensor;
        tensor.name = std::move(name);
        tensor.headerOffset = fileOffset(keyPos);
        std::string problem;
        std::size_t problemPos = m_reader.position();
        bool haveDType = false, haveShape = false, haveOffsets = false;
        auto note = [&](std::string text, std::size_t pos) {
            if (problem.empty()) {
                problem = std::move(text);
                problemPos = pos;
            }
        };
        auto readField = [&](int field) {
            const std::size_t pos = m_reader.position();
            std::string fieldProblem;
            bool ok = false;
            if (field == 0)
                ok = readDType(tensor.dtype, fieldProblem);
            else if (field == 1)
                ok = readShape(tensor.shape, fieldProblem);
            else
                ok = readOffsets(tensor.begin, tensor.end, fieldProblem);
            if (!ok && !fieldProblem.empty())
                note(fieldProblem, pos);
            return ok;
        };

        const auto kind = m_reader.peek();
        if (kind == JsonReader::Kind::Object) {
            m_reader.beginObject();
            bool seen[3] = {false, false, false};
            bool ok[3] = {false, false, false};
            std::string field;
            while (m_reader.nextKey(field)) {
                int index = -1;
                if (field == "dtype")
                    index = 0;
                else if (field == "shape")
                    index = 1;
                else if (field == "data_offsets")
                    index = 2;
                if (index < 0) {
                    m_reader.skipValue(); // unknown fields are ignored, as serde does
                    continue;
                }
                if (seen[index]) {
                    note("duplicate field `" + field + "`", m_reader.position());
                    m_reader.skipValue();
                    continue;
                }
                seen[index] = true;
                ok[index] = readField(index);
            }
            static const char *const names[3] = {"dtype", "shape", "data_offsets"};
            for (int i = 0; i < 3; ++i) {
                if (!seen[i])
                    note(std::string("missing field `") + names[i] + "`", keyPos);
            }
            haveDType = ok[0];
            haveShape = ok[1];
            haveOffsets = ok[2];
        } else if (kind == JsonReader::Kind::Array) {
            // serde also reads a struct from a sequence of its fields, in declaration order.
            m_reader.beginArray();
            int count = 0;
            bool ok[3] = {false, false, false};
            while (m_reader.nextElement()) {
                if (count < 3)
                    ok[count] = readField(count);
                else
                    m_reader.skipValue();
                ++count;
            }
            if (count != 3)
                note("a tensor written as an array needs exactly 3 elements, found "
                         + std::to_string(count),
                     keyPos);
            haveDType = ok[0];
            haveShape = ok[1];
            haveOffsets = ok[2];
        } else {
            note("the entry is not an object with dtype, shape and data_offsets", m_reader.position());
            m_reader.skipValue();
        }
        if (m_reader.failed())
            return;
        if (!problem.empty())
            addProblem("tensor \"" + printable(tensor.name) + "\": " + problem, problemPos,
                       tensor.name);
        if (haveDType && haveShape && haveOffsets)
            m_header.tensors.push_back(std::move(tensor));
    }

    void readMetadata(std::size_t keyPos)
    {
        if (m_seenMetadata) {
            addProblem("duplicate field `__metadata__`", keyPos, {});
            m_reader.skipValue();
            return;
        }
        m_seenMetadata = true;
        const auto kind = m_reader.peek();
        if (kind == JsonReader::Kind::Null) {
            m_reader.readNull();
            return;
        }
        if (kind != JsonReader::Kind::Object) {
            addProblem("__metadata__ must be an object of strings", m_reader.position(), {});
            m_reader.skipValue();
            return;
        }
        m_reader.beginObject();
        m_header.hasMetadata = true;
        std::unordered_map<std::string, std::size_t> index;
        std::string key;
        while (true) {
            const std::size_t pos = m_reader.position();
            if (!m_reader.nextKey(key))
                break;
            if (m_reader.peek() != JsonReader::Kind::String) {
                addProblem("__metadata__ value of \"" + printable(key) + "\" is not a string",
                           m_reader.position(), {});
                m_reader.skipValue();
                continue;
            }
            std::string value;
            if (!m_reader.readString(value))
                break;
            if (const auto it = index.find(key); it != index.end()) {
                m_header.metadata[it->second].second = std::move(value);
                m_header.diagnostics.push_back(makeWarning(
                    "duplicate-metadata-key",
                    "__metadata__ key \"" + printable(key)
                        + "\" is written more than once; readers keep the last value",
                    fileOffset(m_json.find('"', pos))));
            } else {
                index.emplace(key, m_header.metadata.size());
                m_header.metadata.emplace_back(key, std::move(value));
            }
        }
        std::sort(m_header.metadata.begin(), m_header.metadata.end());
    }

    // The reference collects tensors into a HashMap: a repeated name keeps its last entry.
    void resolveDuplicateNames()
    {
        auto &tensors = m_header.tensors;
        std::unordered_map<std::string_view, std::size_t> last;
        last.reserve(tensors.size());
        bool any = false;
        for (std::size_t i = 0; i < tensors.size(); ++i) {
            auto [it, inserted] = last.try_emplace(tensors[i].name, i);
            if (!inserted) {
                any = true;
                it->second = i;
            }
        }
        if (!any)
            return;
        std::vector<TensorInfo> kept;
        kept.reserve(last.size());
        std::vector<Diagnostic> warnings;
        for (std::size_t i = 0; i < tensors.size(); ++i) {
            if (last.at(tensors[i].name) == i)
                kept.push_back(std::move(tensors[i]));
            else
                warnings.push_back(makeWarning(
                    "duplicate-name",
                    "tensor \"" + printable(tensors[i].name)
                        + "\" is written more than once; the reference keeps the last entry and "
                          "some other readers keep the first",
                    tensors[i].headerOffset, tensors[i].name));
        }
        tensors = std::move(kept);
        for (auto &w : warnings)
            m_header.diagnostics.push_back(std::move(w));
    }

    std::string_view m_json;
    JsonReader m_reader;
    Header &m_header;
    bool m_seenMetadata = false;
    bool m_problems = false;
};

// Metadata::validate of the reference: in file order, every tensor must start where the previous
// ended, and its size must be what dtype and shape call for. The first failure is the verdict;
// we go on to list the others for the viewer.
std::uint64_t validateTensors(Header &header, const std::vector<std::size_t> &order)
{
    std::uint64_t start = 0;
    auto add = [&](Diagnostic d) {
        if (header.diagnostics.size() < kMaxStoredDiagnostics)
            header.diagnostics.push_back(std::move(d));
    };
    for (std::size_t idx : order) {
        const TensorInfo &t = header.tensors[idx];
        const std::string name = printable(t.name);
        if (t.begin != start || t.end < t.begin) {
            std::string why;
            if (t.end < t.begin)
                why = "ends (" + std::to_string(t.end) + ") before it begins ("
                    + std::to_string(t.begin) + ")";
            else if (t.begin > start)
                why = "begins at " + std::to_string(t.begin) + " but the previous tensor ends at "
                    + std::to_string(start) + ": a hole of " + std::to_string(t.begin - start)
                    + " bytes";
            else
                why = "begins at " + std::to_string(t.begin) + " but the previous tensor ends at "
                    + std::to_string(start) + ": they overlap by "
                    + std::to_string(start - t.begin) + " bytes";
            add(makeError("offsets", "InvalidOffset",
                          "tensor \"" + name + "\" data_offsets [" + std::to_string(t.begin) + ", "
                              + std::to_string(t.end) + "] " + why,
                          t.headerOffset, t.name));
        }
        const bool orderedExtent = t.end >= t.begin;
        start = t.end;
        const auto count = t.elementCount();
        if (!count) {
            add(makeError("overflow", "ValidationOverflow",
                          "tensor \"" + name + "\": the element count of shape "
                              + formatShape(t.shape) + " overflows 64 bits",
                          t.headerOffset, t.name));
            continue;
        }
        const unsigned bits = dtypeBits(t.dtype);
        if (*count > UINT64_MAX / bits) {
            add(makeError("overflow", "ValidationOverflow",
                          "tensor \"" + name + "\": " + std::to_string(*count) + " elements of "
                              + std::string(dtypeName(t.dtype)) + " overflow 64 bits of size",
                          t.headerOffset, t.name));
            continue;
        }
        const std::uint64_t nbits = *count * bits;
        if (nbits % 8 != 0) {
            add(makeError("sub-byte", "MisalignedSlice",
                          "tensor \"" + name + "\": " + std::to_string(*count) + " elements of "
                              + std::to_string(bits) + "-bit " + std::string(dtypeName(t.dtype))
                              + " make " + std::to_string(nbits)
                              + " bits, not a whole number of bytes",
                          t.headerOffset, t.name));
            continue;
        }
        if (orderedExtent && t.end - t.begin != nbits / 8) {
            add(makeError("size", "TensorInvalidInfo",
                          "tensor \"" + name + "\": data_offsets span "
                              + std::to_string(t.end - t.begin) + " bytes but "
                              + std::string(dtypeName(t.dtype)) + " " + formatShape(t.shape)
                              + " needs " + std::to_string(nbits / 8),
                          t.headerOffset, t.name));
        }
    }
    return start;
}

void addWarnings(Header &header, std::string_view json, const std::vector<std::size_t> &order)
{
    auto &d = header.diagnostics;
    if (!json.empty() && (json[0] == ' ' || json[0] == '\n' || json[0] == '\t' || json[0] == '\r'))
        d.push_back(makeWarning("leading-whitespace",
                                "the header starts with whitespace before '{': the reference "
                                "accepts it, some other readers refuse it",
                                8));
    if (header.headerLength > kHubHeaderLimit)
        d.push_back(makeWarning("large-header",
                                "the header is " + std::to_string(header.headerLength)
                                    + " bytes: over 25,000,000, which the Hugging Face Hub's "
                                      "readers refuse",
                                0));

    std::size_t dtypeUse[kDTypeCount] = {};
    const TensorInfo *firstUse[kDTypeCount] = {};
    const TensorInfo *previous = nullptr;
    std::size_t misaligned = 0;
    for (std::size_t idx : order) {
        const TensorInfo &t = header.tensors[idx];
        const auto di = static_cast<std::size_t>(t.dtype);
        if (dtypeUse[di]++ == 0)
            firstUse[di] = &t;
        if (previous && previous->begin == t.begin
            && (previous->byteLength() == 0 || t.byteLength() == 0) && d.size() < kMaxStoredDiagnostics) {
            // The warning is about the zero-size one: name it and point at its own entry.
            const TensorInfo &empty = previous->byteLength() == 0 ? *previous : t;
            const TensorInfo &other = &empty == previous ? t : *previous;
            d.push_back(makeWarning("shared-offset",
                                    "zero-size tensor shares offset " + std::to_string(t.begin) + " with \""
                                        + printable(other.name) + "\"",
                                    empty.headerOffset, empty.name));
        }
        previous = &t;
        const unsigned bytes = dtypeBits(t.dtype) / 8;
        if (bytes > 1 && t.byteLength() > 0 && header.fileOffset(t) % bytes != 0) {
            if (++misaligned <= 100 && d.size() < kMaxStoredDiagnostics)
                d.push_back(makeWarning("misaligned",
                                        "tensor \"" + printable(t.name) + "\" starts at file offset "
                                            + std::to_string(header.fileOffset(t))
                                            + ", not a multiple of its " + std::to_string(bytes)
                                            + "-byte element: zero-copy loaders must copy it",
                                        header.fileOffset(t), t.name));
        }
    }
    if (misaligned > 100)
        d.push_back(makeWarning("misaligned",
                                std::to_string(misaligned - 100)
                                    + " more tensors are not aligned to their element size",
                                header.dataStart));
    for (const auto &info : allDTypes()) {
        const auto di = static_cast<std::size_t>(info.dtype);
        if (dtypeUse[di] && !info.knownToOlderReaders)
            d.push_back(makeWarning("new-dtype",
                                    std::to_string(dtypeUse[di]) + " tensor(s) use "
                                        + std::string(info.name)
                                        + ", which older safetensors readers do not know",
                                    firstUse[di]->headerOffset, firstUse[di]->name));
    }
    for (const auto &[key, value] : header.metadata) {
        const auto first = value.find_first_not_of(" \t\r\n");
        if (first == std::string::npos || (value[first] != '{' && value[first] != '['))
            continue;
        JsonReader probe(value);
        if (probe.skipValue() && probe.atEnd())
            d.push_back(makeWarning("metadata-json",
                                    "__metadata__ value of \"" + printable(key)
                                        + "\" holds JSON text",
                                    8));
    }
}

} // namespace

const Diagnostic *Header::verdict() const
{
    for (const auto &d : diagnostics) {
        if (d.isError())
            return &d;
    }
    return nullptr;
}

std::size_t Header::errorCount() const
{
    return static_cast<std::size_t>(
        std::count_if(diagnostics.begin(), diagnostics.end(), [](const Diagnostic &d) { return d.isError(); }));
}

std::size_t Header::warningCount() const { return diagnostics.size() - errorCount(); }

std::vector<std::size_t> Header::fileOrder() const
{
    std::vector<std::size_t> order(tensors.size());
    for (std::size_t i = 0; i < order.size(); ++i)
        order[i] = i;
    std::sort(order.begin(), order.end(), [this](std::size_t a, std::size_t b) {
        const TensorInfo &x = tensors[a];
        const TensorInfo &y = tensors[b];
        if (x.begin != y.begin)
            return x.begin < y.begin;
        if (x.end != y.end)
            return x.end < y.end;
        return x.name < y.name;
    });
    return order;
}

Header parseHeader(std::span<const std::byte> prefix, std::uint64_t fileSize)
{
    Header header;
    header.fileSize = fileSize;
    if (fileSize < 8 || prefix.size() < 8) {
        header.diagnostics.push_back(makeError(
            "header-too-small", "HeaderTooSmall",
            "the file has " + std::to_string(fileSize)
                + " bytes: fewer than the 8 that hold the header length",
            0));
        header.dataStart = fileSize;
        return header;
    }
    std::uint64_t n = 0;
    for (int i = 7; i >= 0; --i)
        n = (n << 8) | std::to_integer<std::uint64_t>(prefix[static_cast<std::size_t>(i)]);
    header.headerLength = n;
    header.dataStart = std::min<std::uint64_t>(fileSize, n > fileSize ? fileSize : 8 + n);
    if (n > kMaxHeaderLength) {
        header.diagnostics.push_back(
            makeError("header-too-large", "HeaderTooLarge",
                      "the header length is " + std::to_string(n)
                          + " bytes: more than the 100,000,000 the reference accepts",
                      0));
        return header;
    }
    if (8 + n > fileSize || 8 + n > prefix.size()) {
        header.diagnostics.push_back(makeError(
            "header-length", "InvalidHeaderLength",
            "the header length says the header ends at byte " + std::to_string(8 + n)
                + " but the file has only " + std::to_string(fileSize) + " bytes",
            0));
        return header;
    }
    const std::string_view json(reinterpret_cast<const char *>(prefix.data()) + 8, n);
    if (const auto bad = findInvalidUtf8(json); bad != std::string_view::npos) {
        header.diagnostics.push_back(makeError(
            "header-utf8", "InvalidHeader",
            "the header is not valid UTF-8 (byte " + std::to_string(8 + bad) + ")", 8 + bad));
        return header;
    }

    JsonHeaderReader reader(json, header);
    reader.read();
    const auto order = header.fileOrder();
    if (!reader.hadProblem()) {
        const std::size_t before = header.errorCount();
        const std::uint64_t dataEnd = validateTensors(header, order);
        // The reference adds in usize without a check; match its (wrapping) arithmetic.
        if (header.errorCount() == before && dataEnd + 8 + n != fileSize) {
            const std::uint64_t tensorEnd = 8 + n + dataEnd;
            if (dataEnd <= fileSize - 8 - n)
                header.diagnostics.push_back(makeError(
                    "coverage", "MetadataIncompleteBuffer",
                    "the tensors end at byte " + std::to_string(tensorEnd) + " but the file goes on to "
                        + std::to_string(fileSize) + ": " + std::to_string(fileSize - tensorEnd)
                        + " trailing bytes",
                    tensorEnd));
            else
                header.diagnostics.push_back(makeError(
                    "coverage", "MetadataIncompleteBuffer",
                    "the tensors need " + std::to_string(dataEnd) + " bytes of data but the file holds "
                        + std::to_string(fileSize - 8 - n) + " after the header: it is truncated",
                    fileSize));
        }
    }
    // Errors first, in the order found (the reference's order), then warnings.
    std::stable_partition(header.diagnostics.begin(), header.diagnostics.end(),
                          [](const Diagnostic &d) { return d.isError(); });
    addWarnings(header, json, order);
    return header;
}

} // namespace stb
