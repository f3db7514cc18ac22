#include "core/io/checkpoint.h"

#include "core/concurrency/parallel.h"
#include "core/format/prefault.h"
#include "core/text/textformat.h"

#include <algorithm>
#include <cstdlib>
#include <memory>
#include <mutex>
#include <numeric>
#include <sys/stat.h>
#include <unordered_map>

namespace stb {

namespace {

std::string folderOf(const std::string &path)
{
    const auto slash = path.rfind('/');
    return slash == std::string::npos ? std::string(".") : path.substr(0, slash == 0 ? 1 : slash);
}

// Where a shard that is a symbolic link really is (Hugging Face's cache links each snapshot's
// files into blobs/, outside the index's folder): followed, and shown. Empty when not a link.
std::string linkTarget(const std::string &path)
{
    struct stat st;
    if (::lstat(path.c_str(), &st) != 0 || !S_ISLNK(st.st_mode))
        return {};
    std::unique_ptr<char, decltype(&std::free)> resolved(::realpath(path.c_str(), nullptr), &std::free);
    return resolved ? std::string(resolved.get()) : std::string();
}

} // namespace

bool Checkpoint::isIndexPath(const std::string &path)
{
    static const std::string suffix = ".index.json";
    return path.size() >= suffix.size() && path.compare(path.size() - suffix.size(), suffix.size(), suffix) == 0;
}

std::shared_ptr<const Checkpoint> Checkpoint::open(
    const std::string &path, std::string &error, const ProgressFn &progress)
{
    std::shared_ptr<Checkpoint> checkpoint(new Checkpoint);
    checkpoint->m_path = path;
    if (!isIndexPath(path)) {
        auto file = SafetensorsFile::open(path, error);
        if (!file)
            return nullptr;
        checkpoint->m_shards.push_back(file);
        checkpoint->m_shardNames.push_back(path.substr(path.rfind('/') + 1));
        checkpoint->m_shardTargets.push_back(linkTarget(path));
        checkpoint->m_tensors.reserve(file->header().tensors.size());
        prefaultForWriting(checkpoint->m_tensors.data(), checkpoint->m_tensors.capacity() * sizeof(Tensor));
        for (const auto &t : file->header().tensors)
            checkpoint->m_tensors.push_back({&t, 0});
        return checkpoint;
    }

    checkpoint->m_sharded = true;
    auto mapping = MappedFile::open(path, error);
    if (!mapping)
        return nullptr;
    // Real indexes are kilobytes to a few megabytes; refuse to copy anything absurd. That is a
    // finding about the model (a rule broken), not a file we could not read.
    if (mapping->size() > kMaxHeaderLength) {
        checkpoint->m_diagnostics.add(diagnose(Rule::IndexTooLarge,
                                               "the index is " + formatCount(mapping->size())
                                                   + " bytes: too large for an index (limit "
                                                   + formatCount(kMaxHeaderLength) + " bytes); not read",
                                               0));
        return checkpoint;
    }
    {
        // Read, not touched through the mapping: the text is parsed once and freed, and the
        // mapping's pages would stay resident beside it.
        std::string json(static_cast<std::size_t>(mapping->size()), '\0');
        if (mapping->read(0, std::as_writable_bytes(std::span(json))) != json.size()) {
            error = "the file changed on disk while it was being read";
            return nullptr;
        }
        mapping.reset();
        checkpoint->m_index = parseShardIndex(json);
    }
    checkpoint->m_diagnostics = checkpoint->m_index.diagnostics;
    checkpoint->openShards(folderOf(path), progress);
    checkpoint->checkIndexConsistency();
    return checkpoint;
}

void Checkpoint::openShards(const std::string &folder, const ProgressFn &progress)
{
    // Each distinct shard once, named by its first entry for the messages.
    const std::size_t count = m_index.shards.size();
    std::vector<const ShardIndex::Entry *> firstEntry(count, nullptr);
    for (const auto &entry : m_index.weightMap) {
        if (!firstEntry[entry.shard])
            firstEntry[entry.shard] = &entry;
    }
    m_shardOfIndexShard.assign(count, std::string::npos);
    m_shardErrors.assign(count, {});
    std::vector<std::uint32_t> plain; // index shard numbers to open
    for (std::uint32_t i = 0; i < count; ++i) {
        const ShardIndex::Entry &entry = *firstEntry[i];
        if (!isPlainShardName(m_index.shards[i])) {
            m_diagnostics.add(diagnose(Rule::IndexShardName,
                                       "shard name " + quotedName(m_index.shards[i])
                                           + " is not a plain file name next to the index: refused, not followed",
                                       entry.offset, m_index.tensor(entry)));
            continue;
        }
        plain.push_back(i);
    }

    // Side by side: a model of hundreds of shards is hundreds of headers to read and parse.
    std::vector<std::shared_ptr<const SafetensorsFile>> files(plain.size());
    std::vector<std::string> errors(plain.size());
    std::mutex reporting; // progress is never called concurrently with itself
    std::uint64_t opened = 0;
    parallelFor(plain.size(), threadCount(), [&](std::uint64_t s, unsigned) {
        files[s] = SafetensorsFile::open(folder + "/" + m_index.shards[plain[s]], errors[s]);
        if (progress) {
            const std::lock_guard lock(reporting);
            progress(++opened, plain.size());
        }
        return true;
    });
    for (std::size_t s = 0; s < plain.size(); ++s) {
        const std::string &name = m_index.shards[plain[s]];
        const ShardIndex::Entry &entry = *firstEntry[plain[s]];
        if (!files[s])
            m_shardErrors[plain[s]] = errors[s];
        if (!files[s])
            m_diagnostics.add(diagnose(Rule::IndexMissingShard,
                                       "shard " + quotedName(name) + " cannot be read: " + errors[s], entry.offset,
                                       m_index.tensor(entry)));
        m_shardOfIndexShard[plain[s]] = m_shards.size();
        m_shards.push_back(std::move(files[s]));
        m_shardNames.push_back(name);
        m_shardTargets.push_back(linkTarget(folder + "/" + name));
    }
}

void Checkpoint::checkIndexConsistency()
{
    const TensorLocations foundIn = collectShardTensors();
    const IndexListing listed = readWeightMap();
    checkListedTensors(listed, foundIn);
    checkUnlistedTensors(listed);
    checkTotalSize();
}

Checkpoint::TensorLocations Checkpoint::collectShardTensors()
{
    // Where each tensor really is; a name in two shards is kept from the first.
    TensorLocations foundIn;
    for (std::size_t s = 0; s < m_shards.size(); ++s) {
        if (!m_shards[s])
            continue;
        for (const auto &t : m_shards[s]->header().tensors) {
            auto [it, inserted] = foundIn.try_emplace(t.name, s);
            if (!inserted) {
                m_diagnostics.add(diagnose(Rule::IndexDuplicateTensor,
                                           "tensor " + quotedName(t.name) + " is in two shards: "
                                               + quotedName(m_shardNames[it->second]) + " and "
                                               + quotedName(m_shardNames[s]),
                                           t.headerOffset, t.name));
                continue;
            }
            m_tensors.push_back({&t, s});
        }
    }
    return foundIn;
}

Checkpoint::IndexListing Checkpoint::readWeightMap()
{
    // Entries sorted by name (stably: a name's entries stay in file order), so each run of equal
    // names is one tensor and its last entry is the one that counts.
    const auto &entries = m_index.weightMap;
    IndexListing listing;
    std::vector<std::uint32_t> order(entries.size());
    std::iota(order.begin(), order.end(), 0u);
    std::stable_sort(order.begin(), order.end(), [&](std::uint32_t a, std::uint32_t b) {
        return m_index.tensor(entries[a]) < m_index.tensor(entries[b]);
    });
    listing.counts.assign(entries.size(), false);
    for (std::size_t i = 0; i < order.size();) {
        const std::string_view name = m_index.tensor(entries[order[i]]);
        std::size_t end = i + 1;
        while (end < order.size() && m_index.tensor(entries[order[end]]) == name)
            ++end;
        for (std::size_t k = i + 1; k < end; ++k) {
            const ShardIndex::Entry &earlier = entries[order[k - 1]], &entry = entries[order[k]];
            if (earlier.shard != entry.shard)
                m_diagnostics.add(diagnose(Rule::IndexDuplicateTensor,
                                           "tensor " + quotedName(name) + " is listed twice, in "
                                               + quotedName(m_index.shard(earlier)) + " and "
                                               + quotedName(m_index.shard(entry)),
                                           entry.offset, name));
        }
        listing.counts[order[end - 1]] = true;
        listing.byName.push_back(order[end - 1]);
        i = end;
    }
    return listing;
}

void Checkpoint::checkListedTensors(const IndexListing &listed, const TensorLocations &foundIn)
{
    // In file order, so the diagnostics kept (the first 10,000) are the first in the file.
    const auto &entries = m_index.weightMap;
    for (std::size_t i = 0; i < entries.size(); ++i) {
        if (!listed.counts[i])
            continue;
        const ShardIndex::Entry &entry = entries[i];
        const std::size_t shard = m_shardOfIndexShard[entry.shard];
        const std::string_view name = m_index.tensor(entry);
        const auto found = foundIn.find(name);
        if (found == foundIn.end())
            m_absent.push_back({ name, entry.shard });
        if (shard == std::string::npos || !m_shards[shard])
            continue; // the shard itself is reported
        if (found == foundIn.end())
            m_diagnostics.add(diagnose(Rule::IndexMissingTensor,
                                       "tensor " + quotedName(name) + " is listed in shard "
                                           + quotedName(m_index.shard(entry)) + " but no shard holds it",
                                       entry.offset, name));
        else if (found->second != shard)
            m_diagnostics.add(diagnose(Rule::IndexWrongShard,
                                       "tensor " + quotedName(name) + " is listed in shard "
                                           + quotedName(m_index.shard(entry)) + " but is in "
                                           + quotedName(m_shardNames[found->second]),
                                       entry.offset, name));
    }
}

void Checkpoint::checkUnlistedTensors(const IndexListing &listed)
{
    const auto &entries = m_index.weightMap;
    for (const auto &tensor : m_tensors) {
        const std::string_view name = tensor.info->name;
        const auto it = std::lower_bound(listed.byName.begin(), listed.byName.end(), name,
                                         [&](std::uint32_t e, std::string_view n) { return m_index.tensor(entries[e]) < n; });
        if (it == listed.byName.end() || m_index.tensor(entries[*it]) != name)
            m_diagnostics.add(diagnose(Rule::IndexUnlistedTensor,
                                       "tensor " + quotedName(tensor.info->name) + " is in shard "
                                           + quotedName(m_shardNames[tensor.shard])
                                           + " but not in the index's weight_map",
                                       tensor.info->headerOffset, tensor.info->name));
    }
}

void Checkpoint::checkTotalSize()
{
    if (!m_index.totalSize)
        return;
    for (const auto &s : m_shards) {
        if (!s)
            return; // a missing shard is reported; its bytes cannot be counted
    }
    const std::uint64_t sum = totalTensorBytes();
    if (sum != *m_index.totalSize)
        m_diagnostics.add(diagnose(Rule::IndexTotalSize,
            "metadata.total_size is " + formatCount(*m_index.totalSize) + " but the shards' tensors hold "
                + formatCount(sum) + " bytes",
            0));
}

std::string Checkpoint::absentReason(const AbsentTensor &tensor) const
{
    const std::string &name = m_index.shards[tensor.indexShard];
    const std::size_t shard = m_shardOfIndexShard[tensor.indexShard];
    if (shard == std::string::npos)
        return "shard name " + quotedName(name) + " is refused (not a plain file name next to the index)";
    if (!m_shards[shard])
        return "shard " + quotedName(name) + " cannot be read: " + m_shardErrors[tensor.indexShard];
    if (const Diagnostic *verdict = m_shards[shard]->header().verdict())
        return "shard " + quotedName(name)
            + " does not hold it (the shard is invalid: " + std::string(verdict->id()) + ")";
    return "shard " + quotedName(name) + " does not hold it";
}

bool Checkpoint::valid() const
{
    for (const auto &d : m_diagnostics) {
        if (d.isError())
            return false;
    }
    for (const auto &s : m_shards) {
        if (!s || !s->header().valid())
            return false;
    }
    return !m_shards.empty() || m_sharded;
}

const Diagnostic *Checkpoint::firstError() const
{
    for (const auto &d : m_diagnostics) {
        if (d.isError())
            return &d;
    }
    for (const auto &s : m_shards) {
        if (s && s->header().verdict())
            return s->header().verdict();
    }
    return nullptr;
}

std::size_t Checkpoint::problemCount() const
{
    std::size_t count = m_diagnostics.dropped(); // every index finding is an error
    for (const auto &d : m_diagnostics)
        count += d.isError();
    for (const auto &s : m_shards)
        count += !s || !s->header().valid();
    return count;
}

std::uint64_t Checkpoint::totalTensorBytes() const
{
    std::uint64_t sum = 0;
    for (const auto &t : m_tensors)
        sum += t.info->byteLength();
    return sum;
}

std::uint64_t Checkpoint::totalFileBytes() const
{
    std::uint64_t sum = 0;
    for (const auto &s : m_shards) {
        if (s)
            sum += s->mapping().size();
    }
    return sum;
}

} // namespace stb
