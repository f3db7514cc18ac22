#include "core/audit/auditexpected.h"

#include <algorithm>
#include <set>

namespace stb {

namespace {

std::string_view lastSegment(std::string_view name)
{
    const auto dot = name.rfind('.');
    return dot == std::string_view::npos ? name : name.substr(dot + 1);
}

std::string_view parentPath(std::string_view name)
{
    const auto dot = name.rfind('.');
    return dot == std::string_view::npos ? std::string_view() : name.substr(0, dot);
}

bool startsWith(std::string_view text, std::string_view prefix)
{
    return text.substr(0, prefix.size()) == prefix;
}

std::string lower(std::string_view text)
{
    std::string out(text);
    std::transform(out.begin(), out.end(), out.begin(),
        [](char c) { return c >= 'A' && c <= 'Z' ? static_cast<char>(c - 'A' + 'a') : c; });
    return out;
}

template<class Range> bool oneOf(std::string_view text, const Range &words)
{
    return std::find(std::begin(words), std::end(words), text) != std::end(words);
}

constexpr std::string_view kRunningStats[] = { "running_mean", "running_var", "num_batches_tracked" };
constexpr std::string_view kScales[] = { "weight", "scale", "gamma" };
constexpr std::string_view kShifts[] = { "bias", "beta" };
constexpr std::string_view kHeads[] = { "lm_head", "embed_out", "output" };
constexpr std::string_view kEmbeddings[]
    = { "embed_tokens", "wte", "word_embeddings", "embed_in", "tok_embeddings", "shared" };

class Recogniser {
public:
    explicit Recogniser(const Checkpoint &checkpoint)
        : m_checkpoint(checkpoint)
    {
        // A group holding running statistics is a BatchNorm, whatever it is called
        // (torchvision's `downsample.1`).
        for (const auto &t : checkpoint.tensors()) {
            if (oneOf(lastSegment(t.info->name), kRunningStats))
                m_batchNorms.insert(std::string(parentPath(t.info->name)));
        }
    }

    // Why a constant or all-zero tensor is expected, from its name and its one value.
    AuditExpectation initial(const AuditEntry &entry) const
    {
        const std::string_view name = nameOf(entry);
        const std::string_view last = lastSegment(name);
        if (last == "num_batches_tracked")
            return AuditExpectation::BatchNormCounter;
        const TensorStats &s = entry.analysis.stats;
        if (!entry.readable || s.count == 0 || s.finite != s.count || s.min != s.max)
            return AuditExpectation::None;
        const double value = s.min;
        if ((last == "running_var" && value == 1) || (last == "running_mean" && value == 0))
            return AuditExpectation::NormInitialisation;
        if (isNorm(parentPath(name))
            && ((oneOf(last, kScales) && value == 1) || (oneOf(last, kShifts) && value == 0)))
            return AuditExpectation::NormInitialisation;
        return AuditExpectation::None;
    }

    AuditExpectation duplicate(const AuditEntry &entry, const AuditEntry &original) const
    {
        const AuditExpectation a = initial(entry), b = initial(original);
        if (a != AuditExpectation::None && a == b)
            return a;
        if (isEmbeddingOrHead(nameOf(entry)) && isEmbeddingOrHead(nameOf(original)))
            return AuditExpectation::TiedEmbeddings;
        return AuditExpectation::None;
    }

private:
    std::string_view nameOf(const AuditEntry &entry) const
    {
        return m_checkpoint.tensors()[entry.tensor].info->name;
    }

    bool isNorm(std::string_view group) const
    {
        if (group.empty())
            return false;
        if (m_batchNorms.count(std::string(group)))
            return true;
        const std::string segment = lower(lastSegment(group));
        return segment.find("norm") != std::string::npos || startsWith(segment, "ln") || startsWith(segment, "bn");
    }

    static bool isEmbeddingOrHead(std::string_view name)
    {
        if (lastSegment(name) != "weight")
            return false;
        const std::string_view owner = lastSegment(parentPath(name));
        return oneOf(owner, kHeads) || oneOf(owner, kEmbeddings);
    }

    const Checkpoint &m_checkpoint;
    std::set<std::string> m_batchNorms;
};

bool ignoredByUser(AuditExpectation expectation)
{
    return expectation == AuditExpectation::IgnoredRule || expectation == AuditExpectation::IgnoredName;
}

} // namespace

void markExpected(const Checkpoint &checkpoint, AuditResult &audit)
{
    const Recogniser recognise(checkpoint);
    for (AuditEntry &entry : audit.entries) {
        for (AuditFlag &flag : entry.flags) {
            if (flag.expected != AuditExpectation::None)
                continue;
            if (flag.kind == AuditFlag::Kind::AllZero || flag.kind == AuditFlag::Kind::Constant)
                flag.expected = recognise.initial(entry);
            else if (flag.kind == AuditFlag::Kind::Duplicate && entry.duplicateOf >= 0)
                flag.expected
                    = recognise.duplicate(entry, audit.entries[static_cast<std::size_t>(entry.duplicateOf)]);
        }
    }
}

void applyIgnores(const Checkpoint &checkpoint, AuditResult &audit, const AuditIgnores &ignores)
{
    for (AuditEntry &entry : audit.entries) {
        const std::string &name = checkpoint.tensors()[entry.tensor].info->name;
        const bool nameIgnored = std::any_of(ignores.namePatterns.begin(), ignores.namePatterns.end(),
            [&](const std::string &pattern) { return globMatch(pattern, name); });
        for (AuditFlag &flag : entry.flags) {
            if (ignoredByUser(flag.expected))
                flag.expected = AuditExpectation::None;
            if (flag.expected != AuditExpectation::None)
                continue;
            if (std::find(ignores.kinds.begin(), ignores.kinds.end(), flag.kind) != ignores.kinds.end())
                flag.expected = AuditExpectation::IgnoredRule;
            else if (nameIgnored)
                flag.expected = AuditExpectation::IgnoredName;
        }
    }
    audit.summary = summarizeAudit(checkpoint, audit.entries);
}

bool globMatch(std::string_view pattern, std::string_view name)
{
    // Iterative with one backtrack point: linear in practice, never exponential.
    std::size_t p = 0, n = 0, starP = std::string_view::npos, starN = 0;
    while (n < name.size()) {
        if (p < pattern.size() && (pattern[p] == '?' || pattern[p] == name[n])) {
            ++p;
            ++n;
        } else if (p < pattern.size() && pattern[p] == '*') {
            starP = p++;
            starN = n;
        } else if (starP != std::string_view::npos) {
            p = starP + 1;
            n = ++starN;
        } else {
            return false;
        }
    }
    while (p < pattern.size() && pattern[p] == '*')
        ++p;
    return p == pattern.size();
}

} // namespace stb
