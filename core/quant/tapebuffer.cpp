#include "core/quant/tapebuffer.h"

#include "core/io/largealloc.h"

#include <mutex>
#include <utility>

namespace stb::quant {

namespace {

// The kept buffer (none: null) and its guard.
struct Kept {
    std::mutex mutex;
    std::uint8_t *data = nullptr;
    std::size_t capacity = 0;
};

// Never destroyed: an analysis still running on a worker thread at exit may give its buffer
// back after static destructors ran.
Kept &kept()
{
    static Kept *instance = new Kept;
    return *instance;
}

} // namespace

TapeBuffer::TapeBuffer(std::size_t bytes)
    : m_size(bytes)
{
    if (!bytes)
        return;
    {
        Kept &k = kept();
        std::lock_guard lock(k.mutex);
        if (k.data && k.capacity >= bytes) {
            m_data = k.data;
            m_capacity = k.capacity;
            k.data = nullptr;
            k.capacity = 0;
            return;
        }
    }
    m_data = static_cast<std::uint8_t *>(allocateLarge(bytes));
    m_capacity = bytes;
}

TapeBuffer::~TapeBuffer()
{
    if (!m_data)
        return;
    if (m_capacity <= kKeptTape) {
        Kept &k = kept();
        std::lock_guard lock(k.mutex);
        if (k.capacity < m_capacity) { // the larger of the two is kept
            std::swap(k.data, m_data);
            std::swap(k.capacity, m_capacity);
        }
    }
    releaseLarge(m_data, m_capacity);
}

} // namespace stb::quant
