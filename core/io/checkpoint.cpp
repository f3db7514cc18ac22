#include "core/io/checkpoint.h"

#include "core/concurrency/parallel.h"
#include "core/io/busguard.h"
#include "core/text/textformat.h"

#include <cstdlib>
#include <memory>
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

std::shared_ptr<const Checkpoint> Checkpoint::open(const std::string &path, std::string &error)
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
    std::string json(static_cast<std::size_t>(mapping->size()), '\0');
    if (!guardedCopy(std::as_writable_bytes(std::span(json)), mapping->bytes())) {
        error = "the file changed on disk while it was being read";
        return nullptr;
    }
    checkpoint->m_index = parseShardIndex(json);
    checkpoint->m_diagnostics = checkpoint->m_index.diagnostics;
    checkpoint->openShards(folderOf(path));
    checkpoint->checkIndexConsistency();
    return checkpoint;
}

void Checkpoint::openShards(const std::string &folder)
{
    std::unordered_map<std::string, bool> seen;
    std::vector<const ShardIndex::Entry *> shards; // each shard's first entry, in index order
    for (const auto &entry : m_index.weightMap) {
        if (!seen.emplace(entry.shard, true).second)
            continue;
        if (!isPlainShardName(entry.shard)) {
            m_diagnostics.add(diagnose(Rule::IndexShardName,
                                       "shard name " + quotedName(entry.shard)
                                           + " is not a plain file name next to the index: refused, not followed",
                                       entry.offset, entry.tensor));
            continue;
        }
        shards.push_back(&entry);
    }

    // Side by side: a model of hundreds of shards is hundreds of headers to read and parse.
    std::vector<std::shared_ptr<const SafetensorsFile>> files(shards.size());
    std::vector<std::string> errors(shards.size());
    parallelFor(shards.size(), threadCount(), [&](std::uint64_t s, unsigned) {
        files[s] = SafetensorsFile::open(folder + "/" + shards[s]->shard, errors[s]);
        return true;
    });
    for (std::size_t s = 0; s < shards.size(); ++s) {
        const ShardIndex::Entry &entry = *shards[s];
        if (!files[s])
            m_diagnostics.add(diagnose(Rule::IndexMissingShard,
                                       "shard " + quotedName(entry.shard) + " cannot be read: " + errors[s],
                                       entry.offset, entry.tensor));
        m_shards.push_back(std::move(files[s]));
        m_shardNames.push_back(entry.shard);
        m_shardTargets.push_back(linkTarget(folder + "/" + entry.shard));
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
    // Where the index says each tensor is; a name listed twice keeps its last entry.
    IndexListing listed;
    for (const auto &entry : m_index.weightMap) {
        auto [it, inserted] = listed.try_emplace(entry.tensor, &entry);
        if (!inserted) {
            if (it->second->shard != entry.shard)
                m_diagnostics.add(diagnose(Rule::IndexDuplicateTensor,
                                           "tensor " + quotedName(entry.tensor) + " is listed twice, in "
                                               + quotedName(it->second->shard) + " and " + quotedName(entry.shard),
                                           entry.offset, entry.tensor));
            it->second = &entry;
        }
    }
    return listed;
}

void Checkpoint::checkListedTensors(const IndexListing &listed, const TensorLocations &foundIn)
{
    std::unordered_map<std::string_view, std::size_t> shardOf;
    for (std::size_t i = 0; i < m_shardNames.size(); ++i)
        shardOf.emplace(m_shardNames[i], i);
    for (const auto &[name, entry] : listed) {
        const auto shard = shardOf.find(entry->shard);
        if (shard == shardOf.end() || !m_shards[shard->second])
            continue; // the shard itself is reported
        const auto found = foundIn.find(name);
        if (found == foundIn.end())
            m_diagnostics.add(diagnose(Rule::IndexMissingTensor,
                                       "tensor " + quotedName(entry->tensor) + " is listed in shard "
                                           + quotedName(entry->shard) + " but no shard holds it",
                                       entry->offset, entry->tensor));
        else if (found->second != shard->second)
            m_diagnostics.add(diagnose(Rule::IndexWrongShard,
                                       "tensor " + quotedName(entry->tensor) + " is listed in shard "
                                           + quotedName(entry->shard) + " but is in "
                                           + quotedName(m_shardNames[found->second]),
                                       entry->offset, entry->tensor));
    }
}

void Checkpoint::checkUnlistedTensors(const IndexListing &listed)
{
    for (const auto &tensor : m_tensors) {
        if (!listed.count(tensor.info->name))
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
                                   "metadata.total_size is " + std::to_string(*m_index.totalSize)
                                       + " but the shards' tensors hold " + std::to_string(sum) + " bytes",
                                   0));
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
    std::size_t count = 0;
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
