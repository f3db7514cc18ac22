// The JSON half of parseHeader: serde's view of the header object, with byte positions.
#include "core/format/headerjson.h"

#include "core/text/textformat.h"
#include "core/format/jsonreader.h"
#include "core/format/prefault.h"

#include <algorithm>
#include <iterator>
#include <string>
#include <unordered_map>
#include <vector>

namespace stb {

namespace {

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
            reserveTensors();
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
    // Room for every entry at once: growing the vector step by step moved 100,000 entries
    // about 17 times over and was a quarter of `check` on such a header. Each entry written as
    // an object names "data_offsets" once, so its count bounds theirs (entries written as
    // arrays, rare, grow the vector as before). Metadata may hold the word too: the smallest
    // entry, {"dtype":"F32","shape":[],"data_offsets":[0,0]} and its key, takes 48 bytes, which
    // caps the reservation at what the header could hold.
    void reserveTensors()
    {
        constexpr std::string_view kField = "\"data_offsets\"";
        std::size_t count = 0;
        for (std::size_t at = m_json.find(kField); at != std::string_view::npos; at = m_json.find(kField, at + kField.size()))
            ++count;
        m_header.tensors.reserve(std::min(count, m_json.size() / 48));
        // 88 bytes an entry, written once each: 8.8 MB for 100,000, a third of the page faults
        // of `check` when touched page by page.
        prefaultForWriting(m_header.tensors.data(), m_header.tensors.capacity() * sizeof(TensorInfo));
    }

    std::uint64_t fileOffset(std::size_t jsonPos) const { return 8 + jsonPos; }

    void addProblem(std::string message, std::size_t jsonPos, std::string tensor)
    {
        m_problems = true;
        m_header.diagnostics.add(diagnose(Rule::HeaderJson, std::move(message), fileOffset(jsonPos),
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
        m_dims.clear();
        while (m_reader.nextElement()) {
            std::uint64_t dim = 0;
            std::string dimProblem;
            if (readUnsigned(dim, dimProblem)) {
                m_dims.push_back(dim);
            } else if (ok) {
                ok = false;
                problem = "shape: " + dimProblem;
            }
        }
        // One allocation of the exact size (push_back grew a 2-D shape twice: 100,000 entries
        // made 170,000 allocations).
        shape.assign(m_dims.begin(), m_dims.end());
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
        problem = "unknown dtype " + quotedName(name);
        return false;
    }

    // What reading one tensor entry found: the fields that parsed, and its first problem.
    struct EntryReading {
        TensorInfo tensor;
        std::string problem;
        std::size_t problemPos = 0;
        bool ok[3] = {false, false, false}; // dtype, shape, data_offsets read

        void note(std::string text, std::size_t pos)
        {
            if (problem.empty()) {
                problem = std::move(text);
                problemPos = pos;
            }
        }
    };
    static constexpr const char *kFieldNames[3] = {"dtype", "shape", "data_offsets"};

    void readTensor(std::string name, std::size_t keyPos)
    {
        EntryReading entry;
        entry.tensor.name = std::move(name);
        entry.tensor.headerOffset = fileOffset(keyPos);
        const auto kind = m_reader.peek();
        if (kind == JsonReader::Kind::Object) {
            readEntryObject(entry, keyPos);
        } else if (kind == JsonReader::Kind::Array) {
            readEntryArray(entry, keyPos);
        } else {
            entry.note("the entry is not an object with dtype, shape and data_offsets", m_reader.position());
            m_reader.skipValue();
        }
        if (m_reader.failed())
            return;
        if (!entry.problem.empty())
            addProblem("tensor " + quotedName(entry.tensor.name) + ": " + entry.problem, entry.problemPos,
                       entry.tensor.name);
        if (entry.ok[0] && entry.ok[1] && entry.ok[2])
            m_header.tensors.push_back(std::move(entry.tensor));
    }

    // Field `index` of kFieldNames, at the reader's position.
    void readField(EntryReading &entry, int index)
    {
        const std::size_t pos = m_reader.position();
        std::string problem;
        bool ok = false;
        if (index == 0)
            ok = readDType(entry.tensor.dtype, problem);
        else if (index == 1)
            ok = readShape(entry.tensor.shape, problem);
        else
            ok = readOffsets(entry.tensor.begin, entry.tensor.end, problem);
        if (!ok && !problem.empty())
            entry.note(problem, pos);
        entry.ok[index] = ok;
    }

    // {"dtype": ..., "shape": ..., "data_offsets": ...}; unknown fields are ignored, as serde does.
    void readEntryObject(EntryReading &entry, std::size_t keyPos)
    {
        m_reader.beginObject();
        bool seen[3] = {false, false, false};
        std::string field;
        while (m_reader.nextKey(field)) {
            const auto known = std::find(std::begin(kFieldNames), std::end(kFieldNames), field);
            if (known == std::end(kFieldNames)) {
                m_reader.skipValue();
                continue;
            }
            const auto index = static_cast<int>(known - std::begin(kFieldNames));
            if (seen[index]) {
                entry.note("duplicate field `" + field + "`", m_reader.position());
                m_reader.skipValue();
                continue;
            }
            seen[index] = true;
            readField(entry, index);
        }
        for (int i = 0; i < 3; ++i) {
            if (!seen[i])
                entry.note(std::string("missing field `") + kFieldNames[i] + "`", keyPos);
        }
    }

    // serde also reads a struct from a sequence of its fields, in declaration order.
    void readEntryArray(EntryReading &entry, std::size_t keyPos)
    {
        m_reader.beginArray();
        int count = 0;
        while (m_reader.nextElement()) {
            if (count < 3)
                readField(entry, count);
            else
                m_reader.skipValue();
            ++count;
        }
        if (count != 3)
            entry.note("a tensor written as an array needs exactly 3 elements, found " + std::to_string(count), keyPos);
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
                addProblem("__metadata__ value of " + quotedName(key) + " is not a string",
                           m_reader.position(), {});
                m_reader.skipValue();
                continue;
            }
            std::string value;
            if (!m_reader.readString(value))
                break;
            if (const auto it = index.find(key); it != index.end()) {
                m_header.metadata[it->second].second = std::move(value);
                m_header.diagnostics.add(diagnose(Rule::DuplicateMetadataKey, "__metadata__ key " + quotedName(key) + " is written more than once; readers keep the last value",
                    fileOffset(m_json.find('"', pos))));
            } else {
                index.emplace(key, m_header.metadata.size());
                m_header.metadata.emplace_back(key, std::move(value));
            }
        }
        std::sort(m_header.metadata.begin(), m_header.metadata.end());
    }

    // The reference collects tensors into a HashMap: a repeated name keeps its last entry.
    // Whether two entries share a name, by sorting their names' hashes: a hash table of
    // 100,000 names allocated a node each and took 14% of `check`.
    bool anyDuplicateName() const
    {
        const auto &tensors = m_header.tensors;
        std::vector<std::pair<std::size_t, std::size_t>> hashes(tensors.size()); // hash, index
        const std::hash<std::string_view> hash;
        for (std::size_t i = 0; i < tensors.size(); ++i)
            hashes[i] = { hash(tensors[i].name), i };
        std::sort(hashes.begin(), hashes.end());
        for (std::size_t i = 0; i < hashes.size();) {
            std::size_t end = i + 1;
            while (end < hashes.size() && hashes[end].first == hashes[i].first)
                ++end;
            if (end - i > 8) // many names on one hash (crafted?): let the exact path decide
                return true;
            for (std::size_t a = i; a < end; ++a) {
                for (std::size_t b = a + 1; b < end; ++b) {
                    if (tensors[hashes[a].second].name == tensors[hashes[b].second].name)
                        return true;
                }
            }
            i = end;
        }
        return false;
    }

    void resolveDuplicateNames()
    {
        if (!anyDuplicateName())
            return;
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
        for (std::size_t i = 0; i < tensors.size(); ++i) {
            if (last.at(tensors[i].name) == i)
                kept.push_back(std::move(tensors[i]));
            else
                m_header.diagnostics.add(diagnose(Rule::DuplicateName, "tensor " + quotedName(tensors[i].name) + " is written more than once; the reference keeps the last entry and "
                          "some other readers keep the first",
                    tensors[i].headerOffset, tensors[i].name));
        }
        tensors = std::move(kept);
    }

    std::string_view m_json;
    std::vector<std::uint64_t> m_dims; // readShape's dimensions, reused from entry to entry
    JsonReader m_reader;
    Header &m_header;
    bool m_seenMetadata = false;
    bool m_problems = false;
};

} // namespace

bool readHeaderJson(std::string_view json, Header &header)
{
    JsonHeaderReader reader(json, header);
    reader.read();
    return reader.hadProblem();
}

} // namespace stb
