// The JSON half of parseHeader: serde's view of the header object, with byte positions.
#include "core/format/headerjson.h"

#include "core/text/textformat.h"
#include "core/format/jsonreader.h"
#include "core/format/prefault.h"

#include <algorithm>
#include <bit>
#include <cstring>
#include <iterator>
#include <string>
#include <unordered_map>
#include <vector>

namespace stb {

namespace {

class JsonHeaderReader {
public:
    JsonHeaderReader(std::string_view json, Header &header, HeaderEntries &entries)
        : m_json(json)
        , m_reader(json)
        , m_header(header)
        , m_entries(entries)
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
            std::string_view key;
            while (true) {
                const std::size_t keyPos = m_reader.position();
                if (!m_reader.nextKey(key, m_keyScratch))
                    break;
                const std::size_t keyStart = m_json.find('"', keyPos);
                if (key == "__metadata__")
                    readMetadata(keyStart);
                else
                    readTensor(key, keyStart);
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
    // about 17 times over and was a quarter of `check` on such a header. An entry written as an
    // object takes 48 bytes or more ({"dtype":"F32","shape":[],"data_offsets":[0,0]} and its
    // key); the rare ones written as arrays, shorter, may grow the vector as before.
    void reserveTensors()
    {
        auto &tensors = m_entries.tensors;
        tensors.reserve(m_json.size() / 48);
        // Address space, not memory: only the pages the entries reach are touched, and on huge
        // pages they cost one fault per 2 MiB instead of one per 4 KiB (counting the entries
        // first, a search for "data_offsets" through the text, was 6% of `check`).
        adviseHugePages(tensors.data(), tensors.capacity() * sizeof(TensorEntry));
        m_entries.dims.reserve(m_json.size() / 24); // most shapes have one or two dimensions
        adviseHugePages(m_entries.dims.data(), m_entries.dims.capacity() * sizeof(std::uint64_t));
    }

    std::uint64_t fileOffset(std::size_t jsonPos) const { return 8 + jsonPos; }

    void addProblem(std::string message, std::size_t jsonPos, std::string_view tensor)
    {
        m_problems = true;
        m_header.diagnostics.add(diagnose(Rule::HeaderJson, std::move(message), fileOffset(jsonPos), tensor));
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

    // The dimensions go to the end of m_entries.dims.
    bool readShape(TensorEntry &entry, std::string &problem)
    {
        if (m_reader.peek() != JsonReader::Kind::Array) {
            m_reader.skipValue();
            problem = "shape is not an array";
            return false;
        }
        m_reader.beginArray();
        bool ok = true;
        auto &dims = m_entries.dims;
        entry.firstDim = static_cast<std::uint32_t>(dims.size());
        while (m_reader.nextElement()) {
            std::uint64_t dim = 0;
            std::string dimProblem;
            if (readUnsigned(dim, dimProblem)) {
                dims.push_back(dim);
            } else if (ok) {
                ok = false;
                problem = "shape: " + dimProblem;
            }
        }
        entry.dimCount = static_cast<std::uint32_t>(dims.size() - entry.firstDim);
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
        std::string_view name;
        if (kind == JsonReader::Kind::String) {
            if (!m_reader.readString(name, m_valueScratch))
                return false;
        } else if (kind == JsonReader::Kind::Object) {
            m_reader.beginObject();
            if (!m_reader.nextKey(name, m_valueScratch)) {
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
            std::string_view extra;
            std::string extraScratch;
            const bool moreKeys = m_reader.nextKey(extra, extraScratch);
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
        TensorEntry tensor;
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

    // `name` views the text or m_keyScratch (an escaped name: kept in escapedNames, since
    // m_keyScratch serves the next key).
    void readTensor(std::string_view name, std::size_t keyPos)
    {
        if (name.data() == m_keyScratch.data())
            name = m_entries.escapedNames.emplace_back(name);
        TensorEntry tensor;
        tensor.name = name;
        tensor.headerOffset = fileOffset(keyPos);
        const auto kind = m_reader.peek();
        if (kind == JsonReader::Kind::Object && readCommonEntry(tensor)) {
            m_entries.tensors.push_back(tensor);
            return;
        }
        EntryReading entry;
        entry.tensor = tensor;
        const std::size_t dimsBefore = m_entries.dims.size();
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
            m_entries.tensors.push_back(entry.tensor);
        else
            m_entries.dims.resize(dimsBefore); // a shape read for an entry that is dropped
    }

    // The form writers use, {"dtype":"F32","shape":[2,3],"data_offsets":[0,24]} with no space,
    // read straight from the text: the general path's calls for each key, bracket and number
    // were most of the tokenizer's time. Anything else (spaces, another order of fields, more
    // fields, escapes, a number of 20 digits, an unknown dtype) returns false having consumed
    // nothing, and the general path reads the entry: what is accepted, and every message, stay
    // its own. Only an entry that path would read without a problem is taken here.
    bool readCommonEntry(TensorEntry &tensor)
    {
        const std::string_view text = m_reader.upcomingText();
        std::size_t at = 0;
        // Compared in line: a call to memcmp for each of these short words was a tenth of
        // `check`. Their sizes are constants, so GCC turns each memcmp into a few word compares
        // (a loop byte by byte was a sixth of the entry's reading).
        const auto literal = [&]<std::size_t N>(const char (&word)[N]) {
            constexpr std::size_t size = N - 1; // without the terminating zero
            if (text.size() - at < size || std::memcmp(text.data() + at, word, size) != 0)
                return false;
            at += size;
            return true;
        };
        // 1 to 19 digits, no leading zero: JSON's unsigned integers below 10^19 (< 2^64). What
        // follows must be ',' or ']', which the next literal checks (no fraction, no exponent).
        const auto number = [&](std::uint64_t &value) {
            const std::size_t start = at;
            value = 0;
            while (at < text.size() && at - start < 20 && text[at] >= '0' && text[at] <= '9')
                value = value * 10 + static_cast<std::uint64_t>(text[at++] - '0');
            const std::size_t digits = at - start;
            return digits >= 1 && digits <= 19 && (digits == 1 || text[start] != '0');
        };
        auto &dims = m_entries.dims;
        const std::size_t firstDim = dims.size();
        const auto fail = [&] {
            dims.resize(firstDim);
            return false;
        };
        if (!literal("{\"dtype\":\""))
            return false;
        const std::size_t nameStart = at;
        while (at < text.size()
            && ((text[at] >= 'A' && text[at] <= 'Z') || (text[at] >= '0' && text[at] <= '9')
                || (text[at] >= 'a' && text[at] <= 'z') || text[at] == '_'))
            ++at;
        const auto dtype = dtypeFromName(text.substr(nameStart, at - nameStart));
        if (!dtype || !literal("\",\"shape\":["))
            return false;
        if (!literal("]")) {
            while (true) {
                std::uint64_t dim = 0;
                if (!number(dim))
                    return fail();
                dims.push_back(dim);
                if (literal("]"))
                    break;
                if (!literal(","))
                    return fail();
            }
        }
        std::uint64_t begin = 0, end = 0;
        if (!literal(",\"data_offsets\":[") || !number(begin) || !literal(",") || !number(end)
            || !literal("]}"))
            return fail();
        m_reader.consumeValue(at);
        tensor.dtype = *dtype;
        tensor.firstDim = static_cast<std::uint32_t>(firstDim);
        tensor.dimCount = static_cast<std::uint32_t>(dims.size() - firstDim);
        tensor.begin = begin;
        tensor.end = end;
        return true;
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
            ok = readShape(entry.tensor, problem);
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
        std::string_view field;
        while (m_reader.nextKey(field, m_fieldScratch)) {
            const auto known = std::find(std::begin(kFieldNames), std::end(kFieldNames), field);
            if (known == std::end(kFieldNames)) {
                m_reader.skipValue();
                continue;
            }
            const auto index = static_cast<int>(known - std::begin(kFieldNames));
            if (seen[index]) {
                entry.note("duplicate field `" + std::string(field) + "`", m_reader.position());
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
    // Whether two entries may share a name, in an open-addressing table of the names' 32-bit
    // hashes (4 bytes a slot, two to four slots a name: 1 MiB for 100,000 names): no allocation
    // per name, no sort (a sort of 100,000 names' hashes was 6% of `check`, a node-based hash
    // table 14%). A slot holds the hash alone, not the entry: comparing names meant a cache miss
    // into the entries and another into the text for each occupied slot probed, a quarter of
    // `check` of a 100,000-tensor header. So equal hashes (or a run of 64 occupied slots: names
    // crafted to collide) only say "maybe", and the exact path below decides. The slot of the
    // name kPrefetchAhead entries on is fetched early: the table is visited at random.
    bool anyDuplicateName() const
    {
        const auto &tensors = m_entries.tensors;
        const std::size_t mask = std::bit_ceil(std::max<std::size_t>(16, 2 * tensors.size())) - 1;
        std::vector<std::uint32_t> slots; // a name's hash, never 0; 0: empty
        slots.reserve(mask + 1);
        adviseHugePages(slots.data(), (mask + 1) * sizeof(std::uint32_t)); // faulted at once
        slots.resize(mask + 1, 0);
        const std::hash<std::string_view> hash;
        constexpr std::size_t kPrefetchAhead = 16;
        std::size_t ahead[kPrefetchAhead] = {};
        const auto hashOf = [&](std::size_t i) {
            const std::size_t h = hash(tensors[i].name);
            __builtin_prefetch(&slots[h & mask], 1);
            return h;
        };
        for (std::size_t i = 0; i < std::min(kPrefetchAhead, tensors.size()); ++i)
            ahead[i] = hashOf(i);
        for (std::size_t i = 0; i < tensors.size(); ++i) {
            const std::size_t h = ahead[i % kPrefetchAhead];
            if (i + kPrefetchAhead < tensors.size())
                ahead[i % kPrefetchAhead] = hashOf(i + kPrefetchAhead);
            const std::uint32_t tag = static_cast<std::uint32_t>(h >> 32 ^ h) | 1u;
            std::size_t at = h & mask;
            for (int probes = 0; slots[at] != 0; ++probes, at = (at + 1) & mask) {
                if (probes == 64 || slots[at] == tag)
                    return true;
            }
            slots[at] = tag;
        }
        return false;
    }

    void resolveDuplicateNames()
    {
        if (!anyDuplicateName())
            return;
        auto &tensors = m_entries.tensors;
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
        std::vector<TensorEntry> kept;
        kept.reserve(last.size());
        for (std::size_t i = 0; i < tensors.size(); ++i) {
            if (last.at(tensors[i].name) == i)
                kept.push_back(tensors[i]);
            else
                m_header.diagnostics.add(diagnose(Rule::DuplicateName, "tensor " + quotedName(tensors[i].name) + " is written more than once; the reference keeps the last entry and "
                          "some other readers keep the first",
                    tensors[i].headerOffset, tensors[i].name));
        }
        tensors = std::move(kept);
    }

    std::string_view m_json;
    JsonReader m_reader;
    Header &m_header;
    HeaderEntries &m_entries;
    // Where keys and strings written with escapes are decoded: one for the entries' keys (names),
    // one for the fields inside an entry, one for the dtype's text.
    std::string m_keyScratch;
    std::string m_fieldScratch;
    std::string m_valueScratch;
    bool m_seenMetadata = false;
    bool m_problems = false;
};

} // namespace

bool readHeaderJson(std::string_view json, Header &header, HeaderEntries &entries)
{
    JsonHeaderReader reader(json, header, entries);
    reader.read();
    return reader.hadProblem();
}

} // namespace stb
