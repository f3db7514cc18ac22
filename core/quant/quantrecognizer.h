#pragma once

#include "core/io/checkpoint.h"
#include "core/quant/quantview.h"

#include <string>
#include <string_view>
#include <unordered_map>

namespace stb {

// A small tensor's bytes, copied under the SIGBUS guard; nullopt when it is not wholly inside
// its file or larger than `limit`.
std::optional<std::vector<std::byte>> readSmallTensor(
    const Checkpoint &checkpoint, std::size_t tensor, std::size_t limit);

// Builds a QuantView: finds the tensors holding codes by their name suffix and dtype, pairs
// them with their companions, checks shapes, then the orphans and the config. Internal to
// QuantView::build; one per build, single-threaded.
class QuantRecognizer {
public:
    QuantRecognizer(const Checkpoint &checkpoint, const QuantConfig *config, QuantView &view);
    void run();

private:
    const TensorInfo &info(std::size_t tensor) const { return *m_checkpoint.tensors()[tensor].info; }
    std::ptrdiff_t find(const std::string &name) const;
    void warn(QuantRule rule, std::size_t tensor, std::string message);
    // Adds the weight (claiming its tensors) and returns it for the caller to finish.
    QuantizedWeight &add(QuantizedWeight weight);
    void companion(QuantizedWeight &w, CompanionRole role, std::ptrdiff_t tensor);

    void tryFp8(std::size_t tensor, const std::string &base);
    void tryMxfp4(std::size_t tensor, std::string_view base, char separator);
    void tryGptqOrAwq(std::size_t tensor, const std::string &base);
    void tryBnb4(std::size_t tensor, const std::string &base);
    bool hasBnb4State(const std::string &weightName) const;
    void tryBnbInt8(std::size_t tensor, const std::string &base);
    void tryPackQuantized(std::size_t tensor, const std::string &base);
    void findOrphans();
    void checkConfig();
    void totals();

    const Checkpoint &m_checkpoint;
    const QuantConfig *m_config;
    QuantView &m_view;
    // Name -> tensor, built at the first find(): most checkpoints hold no quantized weight and
    // never ask (100,000 names took tens of milliseconds of every opening).
    mutable std::unordered_map<std::string_view, std::size_t> m_byName;
    std::vector<bool> m_claimed;
};

} // namespace stb
