#include "core/audit/audit.h"

#include "core/audit/auditexpected.h"
#include "core/audit/auditflags.h"

#include "core/concurrency/parallel.h"
#include "core/io/busguard.h"
#include "core/io/readability.h"
#include "core/io/scannedpages.h"
#include "core/quant/quantanalyzer.h"
#include "core/text/textformat.h"

// The dispatching XXH3 picks the widest vector unit the CPU has.
#include <xxh_x86dispatch.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <map>
#include <mutex>
#include <set>
#include <tuple>

namespace stb {

namespace {

// Tensors at least this large get every thread to themselves; smaller ones run side by side.
constexpr std::uint64_t kLargeTensorBytes = 64ull << 20;
void addFlags(AuditEntry &entry)
{
    using Kind = AuditFlag::Kind;
    const TensorStats &s = entry.analysis.stats;
    if (!entry.readable) {
        entry.flags.push_back({ Kind::Unreadable });
        return;
    }
    if (s.nan)
        entry.flags.push_back({ Kind::Nan });
    if (s.posInf || s.negInf)
        entry.flags.push_back({ Kind::Inf });
    if (s.count && s.zeros == s.count)
        entry.flags.push_back({ Kind::AllZero });
    else if (s.count > 1 && s.finite == s.count && s.min == s.max)
        entry.flags.push_back({ Kind::Constant });
    if (entry.analysis.outliers)
        entry.flags.push_back({ Kind::Outlier, entry.analysis.outliers });
}

// What identical bytes of one dtype certainly share: exact counts, extremes (by value: -0 and
// +0 may come out either way) and histogram. Not mean and std, whose last bits depend on how
// chunks were merged.
struct Fingerprint {
    DType dtype;
    std::uint64_t count, nan, posInf, negInf, zeros;
    double min, max; // NaN (no finite value) as +Inf, so that equal means equal
    std::vector<std::uint64_t> histogram;

    Fingerprint(DType d, const TensorAnalysis &a)
        : dtype(d)
        , count(a.stats.count)
        , nan(a.stats.nan)
        , posInf(a.stats.posInf)
        , negInf(a.stats.negInf)
        , zeros(a.stats.zeros)
        , min(std::isnan(a.stats.min) ? INFINITY : a.stats.min + 0.0)
        , max(std::isnan(a.stats.max) ? INFINITY : a.stats.max + 0.0)
        , histogram(a.histogram.counts)
    { }
    auto tie() const { return std::tie(dtype, count, nan, posInf, negInf, zeros, min, max, histogram); }
    bool operator<(const Fingerprint &o) const { return tie() < o.tie(); }
};

// Tensors that may duplicate another: of the same byte length, and either of another dtype or
// with the same fingerprint. Everything else differs already in its statistics, so the audit
// reads no byte twice for it (digests cost as much as the statistics).
std::vector<std::size_t> duplicateCandidates(
    const Checkpoint &checkpoint, const std::vector<AuditEntry> &entries)
{
    std::map<std::uint64_t, std::vector<std::size_t>> bySize;
    for (std::size_t i = 0; i < entries.size(); ++i) {
        const auto &t = checkpoint.tensors()[entries[i].tensor];
        if (entries[i].readable && t.info->byteLength() > 0)
            bySize[t.info->byteLength()].push_back(i);
    }
    std::vector<std::size_t> candidates;
    for (const auto &[size, members] : bySize) {
        if (members.size() < 2)
            continue;
        std::map<Fingerprint, std::vector<std::size_t>> same;
        std::set<DType> dtypes;
        for (std::size_t i : members) {
            const DType dtype = checkpoint.tensors()[entries[i].tensor].info->dtype;
            dtypes.insert(dtype);
            same[Fingerprint(dtype, entries[i].analysis)].push_back(i);
        }
        for (const auto &[fingerprint, group] : same) {
            if (group.size() > 1 || dtypes.size() > 1)
                candidates.insert(candidates.end(), group.begin(), group.end());
        }
    }
    return candidates;
}

// XXH3 of a tensor's first, middle and last 4 KiB (all of it when smaller): identical bytes
// give the same, and tensors that merely share their statistics almost never do. nullopt when
// the bytes vanished under the read.
std::optional<std::uint64_t> sampleDigest(std::span<const std::byte> bytes)
{
    constexpr std::size_t kSlice = 4096;
    std::uint64_t digest = 0;
    const bool read = runGuarded([&] {
        if (bytes.size() <= 3 * kSlice) {
            digest = XXH3_64bits(bytes.data(), bytes.size());
            return;
        }
        const std::size_t at[3] = { 0, bytes.size() / 2 - kSlice / 2, bytes.size() - kSlice };
        for (const std::size_t offset : at)
            digest = XXH3_64bits_withSeed(bytes.data() + offset, kSlice, digest);
    });
    return read ? std::optional(digest) : std::nullopt;
}

// The candidates whose size and sampled bytes match another candidate's; false when a file
// vanished under the read. Without a histogram (the CLI's table), many tensors share their
// statistics (BF16 extremes take few values), and digesting them all whole cost a fifth of the
// audit's time.
bool keepSampledAlike(const Checkpoint &checkpoint, const std::vector<AuditEntry> &entries,
    std::vector<std::size_t> &candidates)
{
    std::map<std::pair<std::uint64_t, std::uint64_t>, std::vector<std::size_t>> bySample;
    for (std::size_t i : candidates) {
        const auto &t = checkpoint.tensors()[entries[i].tensor];
        const auto sample = sampleDigest(checkpoint.fileOf(t)->tensorBytes(*t.info));
        if (!sample)
            return false;
        bySample[{ t.info->byteLength(), *sample }].push_back(i);
    }
    candidates.clear();
    for (const auto &[key, group] : bySample) {
        if (group.size() > 1)
            candidates.insert(candidates.end(), group.begin(), group.end());
    }
    return true;
}

// Same size and digest, confirmed byte for byte: a later tensor (in name order) duplicates the
// earliest identical one. Empty tensors duplicate nothing. false when cancelled or when a file
// vanished under the read.
bool findDuplicates(const Checkpoint &checkpoint, std::vector<AuditEntry> &entries, unsigned threads,
    std::stop_token stop)
{
    auto candidates = duplicateCandidates(checkpoint, entries);
    if (!keepSampledAlike(checkpoint, entries, candidates))
        return false;
    std::sort(candidates.begin(), candidates.end());
    const bool read = parallelFor(
        candidates.size(), threads,
        [&](std::uint64_t c, unsigned) {
            auto &analysis = entries[candidates[c]].analysis;
            if (analysis.digest)
                return true;
            const auto &t = checkpoint.tensors()[entries[candidates[c]].tensor];
            analysis.digest = tensorDigest(
                t.info->dtype, checkpoint.fileOf(t)->tensorBytes(*t.info), *t.info->elementCount(), stop);
            return analysis.digest.has_value();
        },
        stop);
    if (!read)
        return false;

    std::map<std::tuple<std::uint64_t, std::uint64_t, std::uint64_t>, std::vector<std::size_t>> groups;
    for (std::size_t i : candidates) {
        const auto &t = checkpoint.tensors()[entries[i].tensor];
        const ContentDigest &digest = *entries[i].analysis.digest;
        groups[{ t.info->byteLength(), digest.high, digest.low }].push_back(i);
    }
    for (const auto &[key, members] : groups) {
        for (std::size_t m = 1; m < members.size(); ++m) {
            for (std::size_t o = 0; o < m; ++o) {
                const auto &a = checkpoint.tensors()[entries[members[o]].tensor];
                const auto &b = checkpoint.tensors()[entries[members[m]].tensor];
                const auto bytesA = checkpoint.fileOf(a)->tensorBytes(*a.info);
                const auto bytesB = checkpoint.fileOf(b)->tensorBytes(*b.info);
                if (guardedEqual(bytesA, bytesB).value_or(false)) {
                    // The earliest identical tensor is the original, even if it itself repeats one.
                    const std::ptrdiff_t original = entries[members[o]].duplicateOf >= 0
                        ? entries[members[o]].duplicateOf
                        : static_cast<std::ptrdiff_t>(members[o]);
                    entries[members[m]].duplicateOf = original;
                    entries[members[m]].flags.push_back({ AuditFlag::Kind::Duplicate });
                    break;
                }
            }
        }
    }
    return true;
}

} // namespace

bool AuditEntry::has(AuditFlag::Kind kind) const
{
    return std::any_of(
        flags.begin(), flags.end(), [kind](const AuditFlag &flag) { return flag.kind == kind; });
}

bool AuditEntry::hasFinding(AuditFlag::Kind kind) const
{
    return std::any_of(flags.begin(), flags.end(), [kind](const AuditFlag &flag) {
        return flag.kind == kind && flag.expected == AuditExpectation::None;
    });
}

bool AuditEntry::hasFindings() const
{
    return std::any_of(
        flags.begin(), flags.end(), [](const AuditFlag &flag) { return flag.expected == AuditExpectation::None; });
}

std::string AuditSummary::text() const
{
    std::vector<std::string> parts;
    auto add = [&](std::size_t n, const char *one, const char *many) {
        if (n)
            parts.push_back(formatCount(n) + " " + (n == 1 ? one : many));
    };
    add(withNan, "tensor with NaN", "tensors with NaN");
    add(withInf, "tensor with Inf", "tensors with Inf");
    add(allZero, "all-zero", "all-zero");
    add(constant, "constant", "constant");
    add(withOutliers, "with outliers", "with outliers");
    add(duplicates, "duplicate pair", "duplicate pairs");
    add(unreadable, "unreadable", "unreadable");
    if (unreadable && !firstUnreadable.empty())
        parts.back() += " (" + firstUnreadable + (unreadable > 1 ? ", and others)" : ")");
    // An invalid file first: no tensor of it can be trusted, whatever its values say.
    std::string out = valid ? std::string() : "invalid: " + invalidReason + "; ";
    if (parts.empty()) {
        out += std::string(valid ? "No findings" : "no other findings") + " in " + formatCount(tensors)
            + (tensors == 1 ? " tensor" : " tensors");
    } else {
        out += parts[0];
        for (std::size_t i = 1; i < parts.size(); ++i)
            out += ", " + parts[i];
    }
    if (expected) {
        std::string reasons;
        for (std::uint32_t r = 1; r < 32; ++r) {
            if (expectedReasons & (1u << r))
                reasons += (reasons.empty() ? "" : ", ") + std::string(auditExpectationText(AuditExpectation(r)));
        }
        out += "; " + formatCount(expected) + " expected, not counted: " + reasons;
    }
    return out;
}

std::string AuditSummary::scope() const
{
    // Without findings the text already says how many tensors: no second count.
    const bool counted = withNan || withInf || allZero || constant || withOutliers || duplicates || unreadable;
    return (counted ? formatCount(tensors) + (tensors == 1 ? " tensor, " : " tensors, ") : "")
        + formatCount(elements) + (elements == 1 ? " value, " : " values, ") + formatBytes(bytes);
}

std::string AuditSummary::line() const
{
    return text() + " (" + scope() + ")";
}

AuditSummary summarizeAudit(const Checkpoint &checkpoint, const std::vector<AuditEntry> &entries)
{
    const auto &tensors = checkpoint.tensors();
    AuditSummary s;
    s.tensors = entries.size() + checkpoint.absentTensors().size();
    s.valid = checkpoint.valid();
    if (const Diagnostic *error = s.valid ? nullptr : checkpoint.firstError()) {
        s.invalidReason = diagnosticLine(*error);
        if (const std::size_t problems = checkpoint.problemCount(); problems > 1)
            s.invalidReason += " (" + formatCount(problems) + " problems in all)";
    }
    for (const auto &entry : entries) {
        const TensorStats &st = entry.analysis.stats;
        s.elements += st.count;
        s.bytes += tensors[entry.tensor].info->byteLength();
        s.withNan += entry.hasFinding(AuditFlag::Kind::Nan);
        s.withInf += entry.hasFinding(AuditFlag::Kind::Inf);
        s.unreadable += !entry.readable;
        if (!entry.readable && s.firstUnreadable.empty())
            s.firstUnreadable = quotedName(tensors[entry.tensor].info->name) + ": "
                + unreadableReason(checkpoint, tensors[entry.tensor]);
        s.allZero += entry.hasFinding(AuditFlag::Kind::AllZero);
        s.constant += entry.hasFinding(AuditFlag::Kind::Constant);
        s.withOutliers += entry.hasFinding(AuditFlag::Kind::Outlier);
        s.duplicates += entry.hasFinding(AuditFlag::Kind::Duplicate);
        for (const auto &flag : entry.flags) {
            if (flag.expected != AuditExpectation::None) {
                ++s.expected;
                s.expectedReasons |= 1u << static_cast<unsigned>(flag.expected);
            }
        }
    }
    // Listed by the index, held by no shard: unreadable as surely as bytes past the end.
    for (const auto &absent : checkpoint.absentTensors()) {
        ++s.unreadable;
        if (s.firstUnreadable.empty())
            s.firstUnreadable = quotedName(absent.name) + ": " + checkpoint.absentReason(absent);
    }
    return s;
}

std::optional<std::vector<std::optional<TensorAnalysis>>> analyzeTensors(const Checkpoint &checkpoint,
    std::span<const std::size_t> which, const AnalysisOptions &options, std::stop_token stop,
    const ProgressFn &progress, std::span<const std::optional<Dequantizer>> decoders)
{
    const auto &tensors = checkpoint.tensors();
    std::vector<std::optional<TensorAnalysis>> analyses(which.size());
    std::uint64_t total = 0;
    for (std::size_t i : which)
        total += tensors[i].info->byteLength();
    std::mutex progressMutex;
    std::uint64_t done = 0;
    auto report = [&](std::uint64_t bytes) {
        if (!progress)
            return;
        std::lock_guard lock(progressMutex);
        done += bytes;
        progress(done, total);
    };

    const unsigned threads = threadCount(options.threads);
    std::atomic<bool> failed { false };
    auto analyze = [&](std::size_t k, unsigned useThreads) {
        const auto &t = tensors[which[k]];
        const SafetensorsFile *file = checkpoint.fileOf(t);
        if (!file || !file->fullyReadable(*t.info)) {
            report(t.info->byteLength());
            return;
        }
        AnalysisOptions one = options;
        one.threads = useThreads;
        // What was in the page cache before stays there.
        const ScannedPages pages(file->mapping(), file->tensorBytes(*t.info));
        std::uint64_t reported = 0;
        const auto progressShare = [&](std::uint64_t d, std::uint64_t all) {
            // Two passes count twice: report the share of this tensor.
            const std::uint64_t share = all ? t.info->byteLength() * d / all : 0;
            report(share - reported);
            reported = share;
        };
        auto analysis = k < decoders.size() && decoders[k]
            ? analyzeQuantized(*decoders[k], one, stop, progressShare)
            : analyzeTensor(t.info->dtype, file->tensorBytes(*t.info), *t.info->elementCount(), one, stop,
                progressShare);
        if (!analysis) {
            failed = true;
            return;
        }
        report(t.info->byteLength() - reported);
        analyses[k] = std::move(*analysis);
        // Read once (duplicates are confirmed later from the few candidates): let the pages go,
        // so auditing a file larger than memory leaves the page cache to others.
        pages.release();
    };

    // Large tensors first, one at a time with every thread.
    std::vector<std::size_t> small;
    for (std::size_t k = 0; k < which.size(); ++k) {
        if (failed || stop.stop_requested())
            return std::nullopt;
        if (tensors[which[k]].info->byteLength() >= kLargeTensorBytes)
            analyze(k, threads);
        else
            small.push_back(k);
    }
    // Then the small ones side by side, one thread each.
    parallelFor(
        small.size(), threads,
        [&](std::uint64_t i, unsigned) {
            analyze(small[i], 1);
            return !failed;
        },
        stop);
    if (failed || stop.stop_requested())
        return std::nullopt;
    return analyses;
}

std::optional<AuditResult> auditCheckpoint(const Checkpoint &checkpoint, const AnalysisOptions &options,
    std::stop_token stop, const ProgressFn &progress, std::shared_ptr<const QuantView> quant)
{
    AuditResult result;
    result.quant = std::move(quant);
    const auto &tensors = checkpoint.tensors();
    result.entries.resize(tensors.size());
    for (std::size_t i = 0; i < tensors.size(); ++i)
        result.entries[i].tensor = i;
    std::sort(result.entries.begin(), result.entries.end(), [&](const AuditEntry &a, const AuditEntry &b) {
        return tensors[a.tensor].info->name < tensors[b.tensor].info->name;
    });

    std::vector<std::size_t> which;
    for (const auto &entry : result.entries)
        which.push_back(entry.tensor);
    // A quantized weight that cannot be decoded is audited on its raw codes like any tensor.
    std::vector<std::optional<Dequantizer>> decoders(which.size());
    for (std::size_t k = 0; result.quant && k < which.size(); ++k) {
        const std::ptrdiff_t weight = result.quant->weightOfCodes(which[k]);
        if (weight < 0)
            continue;
        std::string reason;
        decoders[k] = Dequantizer::make(
            checkpoint, result.quant->weights()[static_cast<std::size_t>(weight)], reason);
        if (decoders[k])
            result.entries[k].weight = weight;
    }
    auto analyses = analyzeTensors(checkpoint, which, options, stop, progress, decoders);
    if (!analyses)
        return std::nullopt;
    for (std::size_t k = 0; k < result.entries.size(); ++k) {
        result.entries[k].readable = (*analyses)[k].has_value();
        if ((*analyses)[k])
            result.entries[k].analysis = std::move(*(*analyses)[k]);
    }
    const unsigned threads = threadCount(options.threads);

    for (auto &entry : result.entries)
        addFlags(entry);
    if (!findDuplicates(checkpoint, result.entries, threads, stop))
        return std::nullopt;

    markExpected(checkpoint, result);
    result.summary = summarizeAudit(checkpoint, result.entries);
    return result;
}

} // namespace stb
