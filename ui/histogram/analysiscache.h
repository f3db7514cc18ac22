#pragma once

#include "core/format/tensorinfo.h"
#include "core/stats/tensorstats.h"

#include <QCache>
#include <QHashFunctions>

namespace stb {

// Finished tensor analyses of one document, by tensor and bin count, so going back to a tensor
// (or to a bin count) shows at once. A tensor is named by its TensorInfo, which lives as long as
// the document's Checkpoint. Bounded: each entry costs about its histogram, so a thousand bins
// weigh more than ten; the least recently used go first.
class AnalysisCache {
public:
    // `dequantized`: a quantized weight's dequantized values rather than its stored codes.
    struct Key {
        const TensorInfo *tensor = nullptr;
        unsigned bins = 0;
        bool dequantized = false;
        friend bool operator==(const Key &, const Key &) = default;
        friend size_t qHash(const Key &key, size_t seed = 0) noexcept
        {
            return qHashMulti(seed, key.tensor, key.bins, key.dequantized);
        }
    };

    explicit AnalysisCache(qsizetype maxBins = 1'000'000)
        : m_cache(maxBins)
    { }

    const TensorAnalysis *find(const TensorInfo *tensor, unsigned bins, bool dequantized = false) const
    {
        return m_cache.object(Key { tensor, bins, dequantized });
    }
    void insert(
        const TensorInfo *tensor, unsigned bins, const TensorAnalysis &analysis, bool dequantized = false)
    {
        m_cache.insert(Key { tensor, bins, dequantized }, new TensorAnalysis(analysis),
            std::max<qsizetype>(16, static_cast<qsizetype>(analysis.histogram.counts.size())));
    }
    qsizetype size() const { return m_cache.size(); }
    void clear() { m_cache.clear(); }

private:
    QCache<Key, TensorAnalysis> m_cache;
};

} // namespace stb
