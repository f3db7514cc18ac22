#include "core/text/uniquesuffix.h"

#include <algorithm>
#include <numeric>

namespace stb {

namespace {

// A name's segments from the last to the first, as [begin, end) byte ranges into the name.
struct Segments {
    std::string_view name;
    std::vector<std::size_t> starts; // starts[k]: where the k-th segment from the end begins
};

Segments splitFromEnd(std::string_view name, char separator)
{
    Segments s { name, {} };
    std::size_t end = name.size();
    while (true) {
        const std::size_t dot = end == 0 ? std::string_view::npos : name.rfind(separator, end - 1);
        if (dot == std::string_view::npos) {
            s.starts.push_back(0);
            return s;
        }
        s.starts.push_back(dot + 1);
        end = dot;
    }
}

std::string_view segment(const Segments &s, std::size_t k)
{
    const std::size_t begin = s.starts[k];
    const std::size_t end = k == 0 ? s.name.size() : s.starts[k - 1] - 1;
    return s.name.substr(begin, end - begin);
}

// Trailing segments the two names share.
std::size_t sharedSegments(const Segments &a, const Segments &b)
{
    const std::size_t n = std::min(a.starts.size(), b.starts.size());
    std::size_t k = 0;
    while (k < n && segment(a, k) == segment(b, k))
        ++k;
    return k;
}

} // namespace

std::vector<std::size_t> uniqueSuffixStarts(std::span<const std::string_view> names, char separator)
{
    std::vector<Segments> all;
    all.reserve(names.size());
    for (const std::string_view name : names)
        all.push_back(splitFromEnd(name, separator));
    // In the order of segments read from the end, the name sharing the most trailing segments
    // with a given one is one of its two neighbours.
    std::vector<std::size_t> order(names.size());
    std::iota(order.begin(), order.end(), std::size_t(0));
    std::sort(order.begin(), order.end(), [&](std::size_t x, std::size_t y) {
        const Segments &a = all[x], &b = all[y];
        const std::size_t n = std::min(a.starts.size(), b.starts.size());
        for (std::size_t k = 0; k < n; ++k) {
            if (const int c = segment(a, k).compare(segment(b, k)); c != 0)
                return c < 0;
        }
        return a.starts.size() < b.starts.size();
    });
    std::vector<std::size_t> starts(names.size(), 0);
    for (std::size_t i = 0; i < order.size(); ++i) {
        const Segments &s = all[order[i]];
        std::size_t shared = 0;
        if (i > 0)
            shared = sharedSegments(s, all[order[i - 1]]);
        if (i + 1 < order.size())
            shared = std::max(shared, sharedSegments(s, all[order[i + 1]]));
        // One segment more than any other name shares; all of them when even that is not unique.
        starts[order[i]] = shared < s.starts.size() ? s.starts[shared] : 0;
    }
    return starts;
}

std::vector<std::string> compactLabels(std::span<const std::string_view> labels, char separator)
{
    std::vector<Segments> all;
    all.reserve(labels.size());
    std::size_t deepest = 0;
    for (const std::string_view label : labels) {
        all.push_back(splitFromEnd(label, separator));
        deepest = std::max(deepest, all.back().starts.size());
    }
    // Position k (from the end) is droppable when at least two labels reach it and all agree.
    std::vector<bool> droppable(deepest, false);
    for (std::size_t k = 0; k < deepest; ++k) {
        std::size_t reaching = 0;
        std::string_view first;
        bool same = true;
        for (const Segments &s : all) {
            if (k >= s.starts.size())
                continue;
            if (reaching++ == 0)
                first = segment(s, k);
            else if (segment(s, k) != first)
                same = false;
        }
        droppable[k] = same && reaching >= 2;
    }
    std::vector<std::string> out;
    out.reserve(labels.size());
    for (const Segments &s : all) {
        std::string text;
        for (std::size_t k = s.starts.size(); k-- > 0;) {
            if (droppable[k])
                continue;
            if (!text.empty())
                text += separator;
            text += segment(s, k);
        }
        out.push_back(text.empty() ? std::string(s.name) : text);
    }
    // A short form two labels share would make them look alike: both keep their full form (and
    // again, should a full form now equal another's short form; full forms are unique).
    std::vector<std::size_t> order(out.size());
    std::iota(order.begin(), order.end(), std::size_t(0));
    for (bool clashed = true; clashed;) {
        clashed = false;
        std::sort(order.begin(), order.end(), [&](std::size_t a, std::size_t b) { return out[a] < out[b]; });
        std::vector<bool> clash(out.size(), false);
        for (std::size_t i = 1; i < order.size(); ++i) {
            if (out[order[i]] == out[order[i - 1]])
                clash[order[i]] = clash[order[i - 1]] = true;
        }
        for (std::size_t i = 0; i < out.size(); ++i) {
            if (clash[i] && out[i] != all[i].name) {
                out[i] = std::string(all[i].name);
                clashed = true;
            }
        }
    }
    return out;
}

} // namespace stb
