#include "core/values/slicespec.h"

#include <vector>

namespace stb {

namespace {

// One parsed entry: an integer index, a slice with optional bounds, or an ellipsis.
struct Entry {
    enum Kind { Index, Slice, Ellipsis } kind = Slice;
    std::optional<std::int64_t> start, stop, step;
    std::size_t position = 0; // of the entry's first character, for messages
};

class SpecParser {
public:
    SpecParser(std::string_view text, std::string &error)
        : m_text(text)
        , m_error(error)
    { }

    bool parse(std::vector<Entry> &entries)
    {
        skipSpaces();
        if (m_pos == m_text.size())
            return true; // the whole tensor
        for (;;) {
            Entry entry;
            if (!parseEntry(entry))
                return false;
            entries.push_back(entry);
            skipSpaces();
            if (m_pos == m_text.size())
                return true;
            if (m_text[m_pos] != ',')
                return fail("expected ',' or the end");
            ++m_pos;
            skipSpaces();
        }
    }

private:
    bool parseEntry(Entry &entry)
    {
        entry.position = m_pos;
        if (m_text.substr(m_pos, 3) == "...") {
            m_pos += 3;
            entry.kind = Entry::Ellipsis;
            return true;
        }
        std::optional<std::int64_t> *parts[3] = { &entry.start, &entry.stop, &entry.step };
        int colons = 0;
        for (;;) {
            skipSpaces();
            if (m_pos < m_text.size()
                && (isDigit(m_text[m_pos]) || m_text[m_pos] == '-' || m_text[m_pos] == '+')) {
                std::int64_t value = 0;
                if (!parseInteger(value))
                    return false;
                *parts[colons] = value;
            }
            skipSpaces();
            if (m_pos < m_text.size() && m_text[m_pos] == ':') {
                if (++colons > 2)
                    return fail("a slice has at most two ':'");
                ++m_pos;
                continue;
            }
            break;
        }
        if (colons == 0) {
            if (!entry.start)
                return fail("expected an index, a slice or '...'");
            entry.kind = Entry::Index;
        }
        if (entry.step && *entry.step <= 0)
            return failAt(entry.position,
                *entry.step == 0 ? "a slice step cannot be zero" : "negative steps are not supported");
        return true;
    }

    bool parseInteger(std::int64_t &value)
    {
        const bool negative = m_text[m_pos] == '-';
        if (m_text[m_pos] == '-' || m_text[m_pos] == '+')
            ++m_pos;
        if (m_pos == m_text.size() || !isDigit(m_text[m_pos]))
            return fail("expected a digit");
        std::uint64_t magnitude = 0;
        while (m_pos < m_text.size() && isDigit(m_text[m_pos])) {
            magnitude = magnitude * 10 + static_cast<unsigned>(m_text[m_pos] - '0');
            if (magnitude > (std::uint64_t(1) << 62))
                return fail("number too large");
            ++m_pos;
        }
        value = negative ? -static_cast<std::int64_t>(magnitude) : static_cast<std::int64_t>(magnitude);
        return true;
    }

    static bool isDigit(char c) { return c >= '0' && c <= '9'; }
    void skipSpaces()
    {
        while (m_pos < m_text.size() && (m_text[m_pos] == ' ' || m_text[m_pos] == '\t'))
            ++m_pos;
    }
    bool fail(const char *what) { return failAt(m_pos, what); }
    bool failAt(std::size_t position, const char *what)
    {
        m_error = "bad slice at character " + std::to_string(position + 1) + ": " + what;
        return false;
    }

    std::string_view m_text;
    std::string &m_error;
    std::size_t m_pos = 0;
};

// NumPy's clamping of a slice bound for a positive step.
std::uint64_t clampBound(std::optional<std::int64_t> bound, std::uint64_t size, std::uint64_t absent)
{
    if (!bound)
        return absent;
    if (*bound < 0) {
        const auto back = static_cast<std::uint64_t>(-*bound);
        return back >= size ? 0 : size - back;
    }
    return std::min(static_cast<std::uint64_t>(*bound), size);
}

} // namespace

std::optional<StridedView> parseSliceSpec(
    std::string_view spec, std::span<const std::uint64_t> shape, std::string &error)
{
    if (spec.size() > kMaxSliceSpecLength) {
        error = "slice longer than " + std::to_string(kMaxSliceSpecLength) + " characters";
        return std::nullopt;
    }
    std::vector<Entry> entries;
    if (!SpecParser(spec, error).parse(entries))
        return std::nullopt;

    std::size_t named = 0;
    std::size_t ellipses = 0;
    for (const Entry &entry : entries)
        entry.kind == Entry::Ellipsis ? ++ellipses : ++named;
    if (ellipses > 1) {
        error = "bad slice: at most one '...'";
        return std::nullopt;
    }
    if (named > shape.size()) {
        error = "slice names " + std::to_string(named) + " axes but the tensor has "
            + std::to_string(shape.size());
        return std::nullopt;
    }
    // Expand the ellipsis (or the missing tail) into whole-axis slices.
    std::vector<Entry> perAxis;
    for (const Entry &entry : entries) {
        if (entry.kind == Entry::Ellipsis)
            perAxis.insert(perAxis.end(), shape.size() - named, Entry {});
        else
            perAxis.push_back(entry);
    }
    perAxis.resize(shape.size());

    const std::vector<std::uint64_t> strides = rowMajorStrides(shape);
    StridedView view;
    for (std::size_t k = 0; k < shape.size(); ++k) {
        const Entry &entry = perAxis[k];
        const std::uint64_t size = shape[k];
        if (entry.kind == Entry::Index) {
            const std::int64_t raw = *entry.start;
            const std::uint64_t magnitude
                = raw < 0 ? static_cast<std::uint64_t>(-raw) : static_cast<std::uint64_t>(raw);
            if ((raw >= 0 && magnitude >= size) || (raw < 0 && magnitude > size)) {
                error = "index " + std::to_string(raw) + " is out of range for axis " + std::to_string(k)
                    + " of size " + std::to_string(size);
                return std::nullopt;
            }
            view.base += (raw < 0 ? size - magnitude : magnitude) * strides[k];
            continue;
        }
        const std::uint64_t start = clampBound(entry.start, size, 0);
        const std::uint64_t stop = clampBound(entry.stop, size, size);
        const auto step = static_cast<std::uint64_t>(entry.step.value_or(1));
        const std::uint64_t count = stop > start ? (stop - start - 1) / step + 1 : 0;
        if (count > 0)
            view.base += start * strides[k];
        // A step is only multiplied in when the axis has a second element, so it cannot wrap.
        view.axes.push_back({ count, count > 1 ? strides[k] * step : strides[k], k });
    }
    return view;
}

} // namespace stb
