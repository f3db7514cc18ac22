#pragma once

// The buffer of code counting's tape (quantanalyzer.cpp): megabytes that pass 1 writes once and
// pass 2 reads once. Fresh memory is zeroed by the kernel at its first touch, and on the virtual
// machines measured that cost 10% of a bitsandbytes 4-bit analysis (perf: clear_page_erms under
// the tape's first writes), more than the moments. So the last buffer, when at most kKeptTape
// bytes, is kept for the next analysis instead of being given back; pass 1 overwrites every
// byte that pass 2 reads, so what an old tape left in it does not matter.
#include <cstddef>
#include <cstdint>

namespace stb::quant {

// 32 MiB: the tape of a bitsandbytes 4-bit weight of 128 M elements, or GPTQ groups of 128 of
// 256 M. Held from the first analysis that needs it until the process ends.
inline constexpr std::size_t kKeptTape = std::size_t(32) << 20;

// `bytes` of unspecified content (none when 0), from huge pages (allocateLarge); safe to hold
// on several threads at once (each gets its own).
class TapeBuffer {
public:
    explicit TapeBuffer(std::size_t bytes);
    ~TapeBuffer();
    TapeBuffer(const TapeBuffer &) = delete;
    TapeBuffer &operator=(const TapeBuffer &) = delete;

    std::uint8_t *data() const { return m_data; }
    bool empty() const { return m_size == 0; }

private:
    std::uint8_t *m_data = nullptr;
    std::size_t m_size = 0, m_capacity = 0;
};

} // namespace stb::quant
